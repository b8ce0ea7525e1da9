"""The slider lens's view: the count after k merges, and the sentence's tokens in colour with their ids."""

from __future__ import annotations

from textual.content import Content

from bpe_tui.lenses.views.base import LensView, dim, heading, token_row
from core.analysis.lenses.slider import SliderResult


class SliderView(LensView):
    """The sentence after k merges; ←/→ moves k."""

    def render_result(self, result: SliderResult) -> Content:
        fraction = result.merges / result.total_merges if result.total_merges else 1.0
        bar_width = 30
        filled = round(fraction * bar_width)
        bar = Content.assemble(("█" * filled, "$accent"), ("░" * (bar_width - filled), "dim"))
        per_token = result.text_bytes / result.count if result.count else 0.0
        return Content("\n").join([
            Content.assemble(heading(f"{result.merges:,}"), f" of {result.total_merges:,} merges  ", bar),
            Content.assemble(heading(f"{result.count}"), f" tokens for {result.text_bytes} bytes",
                             dim(f"  ({per_token:.2f} bytes/token)")),
            Content(""),
            token_row(result.ids, result.tokens, show_ids=True),
        ])
