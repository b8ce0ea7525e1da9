"""The slider lens's view: the count after k merges, and the sentence's tokens in colour with their ids."""

from __future__ import annotations

from textual.content import Content

from bpe_tui.lenses.views.base import LensView, dim, heading, token_row
from core.analysis.lenses.slider import SliderResult


BLOCKS = " ▁▂▃▄▅▆▇█"


def curve_content(result: SliderResult) -> Content:
    """Bytes per token against merges, one column per sampled k, the column of the current k highlighted.

    The height is bytes/token scaled from its value at 0 merges (1 for a byte base, where every byte is a
    token) to the best the curve reaches.
    """
    ratios = [(k, result.text_bytes / count if count else 0.0) for k, count in result.curve]
    low = ratios[0][1] if ratios else 1.0
    top = max((ratio for _, ratio in ratios), default=1.0)
    span = top - low
    columns = []
    for k, ratio in ratios:
        level = round((ratio - low) / span * (len(BLOCKS) - 2)) + 1 if span > 0 else 1
        columns.append((BLOCKS[level], "bold $readable-accent" if k == result.merges else "$primary"))
    label = dim(f"bytes/token, 0 merges to all: {low:.2f} → {top:.2f}")
    return Content("\n").join([label, Content.assemble(*columns)])


class SliderView(LensView):
    """The sentence after k merges; ←/→ moves k."""

    def render_result(self, result: SliderResult) -> Content:
        fraction = result.merges / result.total_merges if result.total_merges else 1.0
        bar_width = 30
        filled = round(fraction * bar_width)
        bar = Content.assemble(("█" * filled, "$readable-accent"), ("░" * (bar_width - filled), "dim"))
        per_token = result.text_bytes / result.count if result.count else 0.0
        return Content("\n").join([
            Content.assemble(heading(f"{result.merges:,}"), f" of {result.total_merges:,} merges  ", bar),
            Content.assemble(heading(f"{result.count}"), f" tokens for {result.text_bytes} bytes",
                             dim(f"  ({per_token:.2f} bytes/token)")),
            curve_content(result),
            Content(""),
            token_row(result.ids, result.tokens, show_ids=True),
        ])
