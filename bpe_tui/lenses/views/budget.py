"""The budget lens's view: merges coloured by script in rank order, and the sentence pair's cost."""

from __future__ import annotations

from textual.content import Content

from bpe_tui.lenses.views.base import LensView, dim, heading, token_row
from bpe_tui.lenses.views.share_bar import parts_bar, sparkline
from core.analysis.lenses.budget import MergeBudget
from core.analysis.script_mix import SCRIPTS

SCRIPT_STYLES = {"latin": "$primary", "kana": "$readable-success", "kanji": "$readable-warning", "other": "dim"}
"""One colour per script, for the strip and its key."""

STRIP_WIDTH = 40
"""Merges per strip row."""


class BudgetView(LensView):
    """←/→ moves the budget or the mix; each merge is one cell in its script's colour."""

    def render_result(self, result: MergeBudget) -> Content:
        counts = result.script_counts
        english, japanese = result.pair
        key = [Content.assemble(("█", SCRIPT_STYLES[script]), f" {script} {counts[script]}  ") for script in SCRIPTS]
        lines = [
            Content.assemble(heading(f"{result.mix:.0%}"), " English  ", heading(f"{len(result.merges)}"),
                             dim(f" of {result.budget}"), " merges made"),
            parts_bar([(counts[script], SCRIPT_STYLES[script]) for script in SCRIPTS], STRIP_WIDTH),
            Content.assemble(*key),
            Content(""),
            Content.assemble(heading("en"), f" {english.count} tokens  ", heading("ja"), f" {japanese.count} tokens"),
            token_row(english.ids, english.tokens),
            token_row(japanese.ids, japanese.tokens),
            Content(""),
            *self.curve_lines(result),
            Content(""),
            dim("each merge's script, in rank order:"),
        ]
        for start in range(0, len(result.scripts), STRIP_WIDTH):
            cells = [("▌", SCRIPT_STYLES[script]) for script in result.scripts[start : start + STRIP_WIDTH]]
            lines.append(Content.assemble(dim(f"{start:>5} "), *cells))
        return Content("\n").join(lines)

    @staticmethod
    def curve_lines(result: MergeBudget) -> list[Content]:
        """Bytes per token of each sentence against merges, 0 to all, as two sparklines on one scale."""
        if len(result.curve) < 2:
            return []
        sizes = [len(text.text.encode("utf-8")) for text in result.pair]
        rates = [[size / point[1 + i] for point in result.curve] for i, size in enumerate(sizes)]
        top = max(max(row) for row in rates)
        lines = [dim(f"bytes per token from 0 to {result.curve[-1][0]:,} merges:")]
        for name, row in zip(("en", "ja"), rates):
            lines.append(Content.assemble(f"{name} ", sparkline(row, top), dim(f" {row[0]:.1f} → {row[-1]:.2f}")))
        return lines

