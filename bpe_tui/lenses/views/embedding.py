"""The embedding lens's view: the embedding against the blocks as one bar, and GPT-2's four sizes beside it."""

from __future__ import annotations

from textual.content import Content

from bpe_tui.lenses.views.base import LensView, dim, heading
from bpe_tui.lenses.views.share_bar import parts_bar, share_bar
from core.analysis.lenses.embedding import EmbeddingShares

BAR_WIDTH = 30


class EmbeddingView(LensView):
    """The chosen shape's weights split into embedding and blocks; ←/→ move V, d or L."""

    def render_result(self, result: EmbeddingShares) -> Content:
        chosen = result.chosen
        lines = [
            Content.assemble(heading(f"{chosen.share:.1%}"), " of the weights are the embedding table"),
            parts_bar([(chosen.embedding, "$readable-warning"), (chosen.blocks, "$primary")], BAR_WIDTH),
            Content.assemble(("█", "$readable-warning"), f" embedding V·d = {chosen.vocab:,}·{chosen.d} = {chosen.embedding:,}"),
            Content.assemble(("█", "$primary"), f" blocks 12·L·d² = 12·{chosen.layers}·{chosen.d}² = {chosen.blocks:,}"),
            Content(""),
            Content.assemble(heading("GPT-2's sizes"), dim(f" at V = {chosen.vocab:,}")),
        ]
        for name, share in result.gpt2:
            lines.append(
                Content.assemble(
                    f"{name:<7}", dim(f"d {share.d:>4} L {share.layers:>2} "), share_bar(share.share, 16, "$readable-warning"),
                    f" {share.share:6.1%}",
                )
            )
        return Content("\n").join(lines)
