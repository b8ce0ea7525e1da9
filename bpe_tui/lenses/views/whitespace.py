"""The whitespace lens's view: two words in four spacings, each with its tokens and count."""

from __future__ import annotations

from textual.content import Content

from bpe_tui.lenses.views.base import LensView, dim, heading, token_row
from core.analysis.lenses.whitespace import SPACINGS, WhitespaceVariants


class WhitespaceView(LensView):
    """One row per spacing: a space moves from token to token, or becomes a token of its own."""

    def render_result(self, result: WhitespaceVariants) -> Content:
        width = max(map(len, SPACINGS))
        lines = [Content.assemble(heading(" ".join(result.words)), dim("  spaced four ways")), Content("")]
        for name, variant in zip(SPACINGS, result.variants):
            lines.append(
                Content.assemble(
                    f"{name:<{width}} ", (f"{variant.count}", "bold"), dim(" tok  "),
                    token_row(variant.ids, variant.tokens, show_ids=True),
                )
            )
        return Content("\n").join(lines)
