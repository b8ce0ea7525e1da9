"""Rich measures spacing combining marks and emoji skin tones as terminals draw them, not as no cell.

A spacing mark (Unicode category Mc: the vowel signs of Devanagari ``ि ा ी``, Bengali, Tamil, Telugu,
Kannada, Malayalam, Sinhala, Myanmar, Khmer...) advances the cursor by a cell in glibc's ``wcwidth``,
and so in xterm, VTE (GNOME Terminal), tmux, screen and the terminals that count cells the same way.
Rich's width tables, which Textual lays every widget out by, give it none. So every line of Hindi was
wider on screen than Textual thought: the workbench folded it a few cells too late and the end of each
line was hidden under the box's border, table columns after a Hindi token stood one cell right for each
vowel sign, and the inspector's merge tree box was pushed out of line. ``bpe_tui.text.cell_width``, by
which the CLI pads its columns, already counts a spacing mark as a cell.

A skin tone (U+1F3FB to U+1F3FF, as in 👍🏽) is the same story: Rich counts it as part of the emoji before
it, wcwidth (and so tmux) as a wide character of its own, two cells more. Terminals that join the two
(kitty, WezTerm, iTerm2) draw a line with one two cells shorter than counted, which leaves a gap at its end;
the other way round its end was lost, so the app counts as wcwidth does.

:func:`measure_as_terminals` gives those code points their cells in the table Rich reads, once per
process, before anything is drawn; every other width stays Rich's. A Rich that reads
its widths another way (no ``rich.cells.load_cell_table``) is left as it is.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import cache

import rich.cells

MARKS_END = 0x20000
"""Spacing marks all lie below this (the last is U+1D172); searching planes 0 and 1 only takes 15 ms."""

Ranges = Sequence[tuple[int, int, int]]
"""Rich's width table: sorted, disjoint ``(first, last, cells)`` code point ranges; others take one cell."""


SKIN_TONES = (0x1F3FB, 0x1F3FF, 2)
"""The emoji modifiers Fitzpatrick 1-2 to 6, wide characters of their own to wcwidth."""


@cache
def terminal_widths() -> tuple[tuple[int, int, int], ...]:
    """Every spacing mark as ``(first, last, cells)`` ranges (two cells for an East Asian wide one), and
    the skin tones.

    >>> (0x093E, 0x0940, 1) in terminal_widths()  # Devanagari ा ि ी
    True
    """
    ranges: list[tuple[int, int, int]] = []
    for code in range(MARKS_END):
        ch = chr(code)
        if unicodedata.category(ch) != "Mc":
            continue
        cells = 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
        if ranges and ranges[-1][1] == code - 1 and ranges[-1][2] == cells:
            ranges[-1] = (ranges[-1][0], code, cells)
        else:
            ranges.append((code, code, cells))
    return tuple(sorted([*ranges, SKIN_TONES]))


def overlay(base: Ranges, extra: Ranges) -> list[tuple[int, int, int]]:
    """``base`` with the ranges of ``extra`` laid over it: where they overlap, ``extra``'s width wins.

    >>> overlay([(0, 9, 0), (20, 29, 2)], [(5, 6, 1), (25, 40, 1)])
    [(0, 4, 0), (5, 6, 1), (7, 9, 0), (20, 24, 2), (25, 40, 1)]
    """
    kept: list[tuple[int, int, int]] = []
    first_extra = 0
    for start, end, cells in base:
        while first_extra < len(extra) and extra[first_extra][1] < start:
            first_extra += 1
        position = start
        for extra_start, extra_end, _ in extra[first_extra:]:
            if extra_start > end:
                break
            if extra_start > position:
                kept.append((position, extra_start - 1, cells))
            position = max(position, extra_end + 1)
        if position <= end:
            kept.append((position, end, cells))
    return sorted([*kept, *extra])


_original_load = getattr(rich.cells, "load_cell_table", None)


@cache
def _load_as_terminals(unicode_version: str = "auto") -> rich.cells.CellTable:
    assert _original_load is not None
    table = _original_load(unicode_version)
    return table._replace(widths=overlay(table.widths, terminal_widths()))


def measure_as_terminals() -> None:
    """Make Rich (and so Textual) count a spacing mark as one cell and a skin tone as two from now on.
    Idempotent."""
    if _original_load is None or rich.cells.load_cell_table is _load_as_terminals:
        return
    rich.cells.load_cell_table = _load_as_terminals
    rich.cells.get_character_cell_size.cache_clear()
    rich.cells.cached_cell_len.cache_clear()
