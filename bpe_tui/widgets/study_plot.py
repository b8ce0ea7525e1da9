"""The study's plot: bytes per token against vocabulary size, one line per evaluation text.

A small character-cell line chart, drawn from the widget's size each time: the x axis is logarithmic
(sizes such as 300 and 10,000 sit far apart), each text has its own colour and marker letter, points are
joined by interpolated dots, and a legend names the lines. Where lines cross a cell, the later text wins.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from textual.content import Content, Span
from textual.geometry import Size
from textual.widget import Widget

SERIES_STYLES = ("#5fafff", "#ff8700", "#87d75f", "#d787ff", "#ffd75f", "#5fd7d7")
"""One colour per line, told apart at 256 and 16 colours as well."""

Y_LABEL_WIDTH = 6


@dataclass(frozen=True)
class Series:
    """One line: a name and its ``(vocab size, bytes per token)`` points, in size order."""

    name: str
    points: tuple[tuple[int, float], ...]


def markers(names: Sequence[str]) -> list[str]:
    """Each line's marker: its first letter, or a digit when an earlier line has that letter.

    >>> markers(["english", "eval", "japanese"])
    ['e', '2', 'j']
    """
    chosen: list[str] = []
    for index, name in enumerate(names):
        letter = name[:1] or "?"
        chosen.append(letter if letter not in chosen else str(index + 1)[-1])
    return chosen


def _x_position(value: int, low: int, high: int, width: int) -> int:
    if high <= low:
        return 0
    return round((math.log(value) - math.log(low)) / (math.log(high) - math.log(low)) * (width - 1))


def plot_lines(series: Sequence[Series], width: int, height: int) -> list[Content]:
    """The chart as ``height`` lines of at most ``width`` cells (axes and legend included).

    >>> lines = plot_lines([Series("en", ((300, 1.5), (3000, 3.0)))], 30, 8)
    >>> len(lines), lines[-1].plain.strip()
    (8, 'e en')
    """
    points = [point for line in series for point in line.points]
    if not points or width < Y_LABEL_WIDTH + 8 or height < 5:
        return [Content.styled("(no study yet)", "dim")]
    plot_width, plot_height = width - Y_LABEL_WIDTH - 1, height - 3  # x axis, x labels, legend
    low_x, high_x = min(x for x, _ in points), max(x for x, _ in points)
    low_y, high_y = min(y for _, y in points), max(y for _, y in points)
    if high_y - low_y < 1e-9:
        low_y, high_y = low_y - 0.5, high_y + 0.5
    grid: list[list[tuple[str, str]]] = [[(" ", "")] * plot_width for _ in range(plot_height)]

    def row_of(y: float) -> int:
        return plot_height - 1 - round((y - low_y) / (high_y - low_y) * (plot_height - 1))

    letters = markers([line.name for line in series])
    for index, line in enumerate(series):
        style = SERIES_STYLES[index % len(SERIES_STYLES)]
        marker = letters[index]
        cells = [(_x_position(x, low_x, high_x, plot_width), y) for x, y in line.points]
        for (x0, y0), (x1, y1) in zip(cells, cells[1:]):
            for column in range(x0 + 1, x1):
                y = y0 + (y1 - y0) * (column - x0) / (x1 - x0)
                grid[row_of(y)][column] = ("·", style)
        for column, y in cells:
            grid[row_of(y)][column] = (marker, f"bold {style}")
    lines: list[Content] = []
    for number, row in enumerate(grid):
        label = ""
        if number == 0:
            label = f"{high_y:.2f}"
        elif number == plot_height - 1:
            label = f"{low_y:.2f}"
        text = "".join(glyph for glyph, _ in row)
        spans = [Span(column, column + 1, style) for column, (_, style) in enumerate(row) if style]
        lines.append(Content(f"{label:>{Y_LABEL_WIDTH}}│") + Content(text, spans))
    lines.append(Content(" " * Y_LABEL_WIDTH + "└" + "─" * plot_width))
    ticks = [" "] * plot_width
    for x in sorted({x for x, _ in points}):
        label = f"{x:,}"
        start = min(_x_position(x, low_x, high_x, plot_width), plot_width - len(label))
        if all(ch == " " for ch in ticks[max(0, start - 1) : start + len(label)]):
            ticks[start : start + len(label)] = list(label)
    lines.append(Content(" " * (Y_LABEL_WIDTH + 1) + "".join(ticks)))
    legend = [Content(" " * (Y_LABEL_WIDTH + 1))]
    for index, line in enumerate(series):
        style = SERIES_STYLES[index % len(SERIES_STYLES)]
        legend.append(Content.styled(letters[index], f"bold {style}") + Content(f" {line.name}   "))
    lines.append(Content("").join(legend))
    return lines


class StudyPlot(Widget):
    """Bytes/token against vocab size; :meth:`show` gives it the lines to draw."""

    DEFAULT_CSS = """
    StudyPlot {
        height: 1fr;
        min-height: 8;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._series: tuple[Series, ...] = ()

    def show(self, series: Sequence[Series]) -> None:
        """Draw ``series`` (empty clears the plot)."""
        self._series = tuple(series)
        self.refresh()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(8, container.height)

    def render(self) -> Content:
        region = self.content_region
        return Content("\n").join(plot_lines(self._series, region.width, region.height))
