"""The vocab lens's view: the sum, then a bar per shipped vocabulary with this tokenizer's among them."""

from __future__ import annotations

from textual.content import Content

from bpe_tui.lenses.views.base import LensView, dim, heading
from core.analysis.lenses.vocab import VocabResult

BAR = 36
"""Width of the longest bar, in cells."""


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
            style = "bold $accent" if ours else "$primary"
            lines.append(Content.assemble(
                (f"{name:<{width}} ", "bold" if ours else ""), (f"{size:>9,} ", ""), ("█" * cells, style),
                dim(f"  {note}") if note else "",
            ))
        return Content("\n").join(lines)
