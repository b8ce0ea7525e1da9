"""How context coverage is written: one line for the workbench, one cell a window for Compare's table."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content

from core.analysis.coverage import Coverage


def coverage_line(coverages: Sequence[Coverage]) -> Content:
    """The workbench's line: the characters (ch) and bytes (B) of the text the first window of each size holds.

    >>> coverage_line([Coverage(128, 128, 498, 512, False), Coverage(1024, 300, 1200, 1250, True)]).plain
    'window 128: 498 ch 512 B · 1,024: whole text'
    """
    parts: list[str | tuple[str, str]] = []
    for position, coverage in enumerate(coverages):
        if position:
            parts.append((" · ", "dim"))
        label = f"{coverage.window:,}: " if position else f"window {coverage.window:,}: "
        parts.append((label, "bold"))
        parts.append("whole text" if coverage.whole else f"{coverage.chars:,} ch {coverage.bytes:,} B")
    return Content.assemble(*parts)


def coverage_cell(coverage: Coverage) -> str:
    """Compare's cell for one tokenizer and window: characters / bytes covered, or ``whole``.

    >>> coverage_cell(Coverage(128, 128, 498, 512, False)), coverage_cell(Coverage(8192, 90, 400, 410, True))
    ('498 / 512', 'whole')
    """
    return "whole" if coverage.whole else f"{coverage.chars:,} / {coverage.bytes:,}"
