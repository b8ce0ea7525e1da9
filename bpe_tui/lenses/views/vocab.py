"""The vocab lens's view: the sum, a bar per shipped vocabulary with this tokenizer's among them, and the
merges' training counts against rank on a log scale."""

from __future__ import annotations

import math

from textual.content import Content

from bpe_tui.lenses.views.base import LensView, dim, heading
from core.analysis.lenses.vocab import VocabResult

BAR = 26
"""Width of the longest bar, in cells."""

BLOCKS = "▁▂▃▄▅▆▇█"


def count_plot(curve: tuple[tuple[int, int], ...]) -> list[Content]:
    """The merges' training counts against rank, one column per sampled rank, heights on a log scale."""
    if not curve:
        return [dim("(no merge counts recorded: a plot of count against rank needs a bpe-tui file)")]
    logs = [math.log10(max(count, 1)) for _, count in curve]
    low, high = min(logs), max(logs)
    span = high - low
    columns = "".join(BLOCKS[round((value - low) / span * (len(BLOCKS) - 1)) if span else 0] for value in logs)
    return [
        dim(f"count per merge rank, log scale: {curve[0][1]:,} at rank 0 → {curve[-1][1]:,} at rank {curve[-1][0]:,}"),
        Content.styled(columns, "$primary"),
    ]


class VocabView(LensView):
    """Where the vocabulary's ids come from, and how it sizes up against shipped ones."""

    def render_result(self, result: VocabResult) -> Content:
        rows = sorted([(rung.vocab, rung.name, rung.note, False) for rung in result.ladder]
                      + [(result.total, "this one", "", True)])
        largest = max(size for size, *_ in rows)
        width = max(len(name) for _, name, *_ in rows)
        lines = [Content.assemble(heading(result.sum_text)), Content(""), dim("shipped vocabularies")]
        for size, name, note, ours in rows:
            cells = max(1, round(size / largest * BAR))
            style = "bold $readable-accent" if ours else "$primary"
            lines.append(Content.assemble(
                (f"{name:<{width}} ", "bold" if ours else ""), (f"{size:>9,} ", ""), ("█" * cells, style),
                dim(f"  {note}") if note else "",
            ))
        lines += [Content(""), *count_plot(result.count_curve)]
        return Content("\n").join(lines)
