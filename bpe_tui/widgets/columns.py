"""Fixed-width columns for the tables drawn line by line (the vocabulary and the merges)."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size


def fit_cells(text: str, width: int, right: bool) -> str:
    """Pad or cut ``text`` to exactly ``width`` cells; double-width characters count as two.

    >>> fit_cells("日本語", 5, False), fit_cells("ab", 4, True)
    ('日本…', '  ab')
    """
    length = cell_len(text)
    if length > width:
        return set_cell_size(text, width - 1) + "…"
    padding = " " * (width - length)
    return padding + text if right else text + padding
