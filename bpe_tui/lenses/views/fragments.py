"""The fragments lens's view: the text as fragments side by side, then each fragment's bytes and tokens."""

from __future__ import annotations

from rich.cells import cell_len
from textual.content import Content

from bpe_tui.lenses.views.base import LensView, dim, heading, padded, token_row
from bpe_tui.text import escape_token
from core.analysis.lenses.fragments import FragmentsResult


class FragmentsView(LensView):
    """Fragments in alternating colours, and each one's tokens: every token stays inside its fragment."""

    def render_result(self, result: FragmentsResult) -> Content:
        # The fragments themselves drawn as tokens: numbered in order, so neighbours take different colours.
        row = token_row(range(len(result.fragments)), [f.text.encode("utf-8") for f in result.fragments],
                        specials=frozenset(i for i, f in enumerate(result.fragments) if f.special))
        verdict = ("no token crosses a fragment boundary" if result.crossing == 0
                   else f"{result.crossing} tokens cross a fragment boundary")
        lines = [
            Content.assemble(heading(f"{len(result.fragments)}"), " fragments  ", dim(verdict),
                             dim("" if result.specials else "  (special tokens read as text)")),
            row,
            Content(""),
        ]
        width = max((cell_len(escape_token(f.text)) for f in result.fragments), default=0)
        for fragment in result.fragments:
            size = "special" if fragment.special else f"{fragment.bytes} B"
            lines.append(Content.assemble(
                f"{padded(escape_token(fragment.text), width)} ", dim(f"{size:>8}  "),
                token_row(fragment.ids, fragment.tokens, show_ids=True,
                          specials=frozenset(fragment.ids) if fragment.special else frozenset()),
            ))
        return Content("\n").join(lines)
