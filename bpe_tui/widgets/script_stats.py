"""Per-tokenizer token counts and bytes/token, overall and per script, one column per tokenizer.

Tokenizers are columns and measures are rows, so four tokenizers still fit beside the labels in an
80-column terminal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import DataTable

from core.analysis.compare import ScriptTokens, TextStats
from core.analysis.script_mix import SCRIPTS


def script_cell(counts: ScriptTokens) -> str:
    """``tokens / bytes per token``, or a dash when the script has no tokens.

    >>> script_cell(ScriptTokens(tokens=12, bytes=30)), script_cell(ScriptTokens())
    ('12 / 2.50', '—')
    """
    if not counts.tokens:
        return "—"
    return f"{counts.tokens:,} / {counts.bytes_per_token:.2f}"


def stats_rows(
    totals: Sequence[TextStats], scripts: Sequence[Mapping[str, ScriptTokens]], cut_counts: Sequence[int]
) -> list[tuple[str, list[str]]]:
    """The table's rows as ``(label, cell per tokenizer)``.

    >>> rows = stats_rows([TextStats(5, 9, 3)], [dict.fromkeys(SCRIPTS, ScriptTokens())], [2])
    >>> rows[0], rows[1], rows[-1]
    (('tokens', ['3']), ('bytes/token', ['3.00']), ('unshared cuts', ['2']))
    """
    rows: list[tuple[str, list[str]]] = [
        ("tokens", [f"{stats.tokens:,}" for stats in totals]),
        ("bytes/token", [f"{stats.bytes_per_token:.2f}" for stats in totals]),
        ("chars/token", [f"{stats.chars_per_token:.2f}" for stats in totals]),
    ]
    for script in SCRIPTS:
        rows.append((f"{script} tok / b·t", [script_cell(per_script[script]) for per_script in scripts]))
    rows.append(("unshared cuts", [f"{count:,}" for count in cut_counts]))
    return rows


class ScriptStatsTable(DataTable[Text]):
    """Measures down the side, tokenizers (A, B, ...) across the top. Cells are ``Text``, never markup."""

    DEFAULT_CSS = """
    ScriptStatsTable {
        height: auto;
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(cursor_type="none", zebra_stripes=True, show_cursor=False, name=name, id=id, classes=classes)
        self.can_focus = False

    def show(self, labels: Sequence[str], rows: Sequence[tuple[str, Sequence[str]]]) -> None:
        """Replace the table: one column per label, one row per ``(measure, cells)``."""
        self.clear(columns=True)
        # Explicit widths: auto widths are measured lazily and came out stale when rows were swapped fast.
        self.add_column(Text(""), key="measure", width=max([0, *(cell_len(measure) for measure, _ in rows)]))
        for position, label in enumerate(labels):
            width = max([cell_len(label), *(cell_len(cells[position]) for _, cells in rows)])
            self.add_column(Text(label, style="bold", justify="right"), key=label, width=width)
        for measure, cells in rows:
            self.add_row(Text(measure, style="dim"), *(Text(cell, justify="right") for cell in cells), key=measure)
