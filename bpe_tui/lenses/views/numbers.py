"""The numbers lens's view: 0-999 as a grid, single tokens lit, and example numbers split three ways."""

from __future__ import annotations

from textual.content import Content

from bpe_tui.lenses.views.base import LensView, dim, heading, token_row
from core.analysis.lenses.numbers import NumberTokens

GRID_WIDTH = 40
"""Numbers per row: 0-999 is 25 rows of 40, narrow enough for the pane at 80 columns."""


class NumbersView(LensView):
    """Which numbers are one token (█) and which are several (·), then how digit grouping splits examples."""

    def render_result(self, result: NumberTokens) -> Content:
        lines = [
            Content.assemble(heading(f"{len(result.single_token)}"), f" of 0–{result.limit - 1} are one token",
                             dim("  (█ one token, · more)")),
        ]
        for start in range(0, result.limit, GRID_WIDTH):
            cells = [
                ("█", "$readable-success") if count == 1 else ("·", "dim")
                for count in result.token_counts[start : start + GRID_WIDTH]
            ]
            lines.append(Content.assemble(dim(f"{start:>4} "), *cells))
        pieces = ", ".join(f"{name} {count}" for name, count in result.single_piece.items())
        lines += [Content(""), Content.assemble(heading("digit grouping"), dim(f"  numbers left whole: {pieces}"))]
        for example in result.examples:
            lines.append(
                Content.assemble(
                    (f"{example.encoded.text:>9} ", "bold"), token_row(example.encoded.ids, example.encoded.tokens)
                )
            )
            for name, groups in example.groups.items():
                lines.append(
                    Content.assemble(
                        dim(f"{name:>9} "), " ".join(groups), dim(f"  ({example.grouped_tokens[name]} tokens)")
                    )
                )
        return Content("\n").join(lines)
