"""The bytes lens's view: the sentence in tokens, each token's bytes with bare ones marked, and a per-script table."""

from __future__ import annotations

from textual.content import Content

from bpe_tui.lenses.views.base import LensView, dim, heading, token_row
from bpe_tui.text import escape_token
from core.analysis.lenses.bytes_view import ByteTokens
from core.analysis.script_mix import SCRIPTS


class BytesView(LensView):
    """Every token with its UTF-8 bytes; a token holding part of a character is marked bare."""

    def render_result(self, result: ByteTokens) -> Content:
        spans = result.spans
        lines = [
            Content.assemble(heading(f"{result.bare_tokens}"), " bare byte tokens of ", heading(f"{len(spans)}")),
            dim(f"{len(result.text)} characters, {len(result.text.encode('utf-8'))} bytes; bare tokens are a piece "
                "of a character, shown as its bytes"),
            token_row([s.id for s in spans], [s.token for s in spans]),
            Content(""),
        ]
        width = max(len(str(span.id)) for span in spans)
        # As wide as the longest token's hex up to nine bytes (three kanji), so the text column lines up;
        # a longer token's row runs over rather than push every row's text off to the right.
        hex_width = min(max([12] + [len(span.token.hex(' ')) for span in spans]), 26)
        for span in spans:
            mark = ("  bare", "bold $readable-warning") if span.splits_char else ("", "")
            lines.append(
                Content.assemble(
                    dim(f"{span.id:>{width}} "), f"{span.token.hex(' '):<{hex_width}} ", escape_token(span.token), mark
                )
            )
        lines += [Content(""), Content.styled(f"{'script':<7} {'chars':>6} {'bytes':>6} {'tokens':>7}", "bold")]
        for script in SCRIPTS:
            cost = result.scripts[script]
            lines.append(Content(f"{script:<7} {cost.chars:>6} {cost.bytes:>6} {cost.tokens:>7}"))
        return Content("\n").join(lines)
