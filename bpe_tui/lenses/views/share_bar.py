"""Bars for the lens views: a share of a width, several parts side by side in their styles, and a sparkline."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content


def share_bar(fraction: float, width: int, style: str = "$readable-accent") -> Content:
    """``fraction`` of ``width`` cells filled in ``style``, the rest shaded.

    >>> share_bar(0.25, 8).plain
    '██░░░░░░'
    """
    filled = max(0, min(width, round(fraction * width)))
    return Content.assemble(("█" * filled, style), ("░" * (width - filled), "dim"))


def parts_bar(parts: Sequence[tuple[int, str]], width: int) -> Content:
    """One bar of ``width`` cells split between ``(amount, style)`` parts in proportion (largest remainders).

    >>> parts_bar([(3, "red"), (1, "blue")], 8).plain, parts_bar([], 4).plain
    ('████████', '░░░░')
    """
    total = sum(amount for amount, _ in parts)
    if total <= 0:
        return Content.styled("░" * width, "dim")
    exact = [amount * width / total for amount, _ in parts]
    cells = [int(value) for value in exact]
    by_remainder = sorted(range(len(parts)), key=lambda i: exact[i] - cells[i], reverse=True)
    for i in by_remainder[: width - sum(cells)]:
        cells[i] += 1
    return Content.assemble(*(("█" * n, style) for n, (_, style) in zip(cells, parts)))


SPARK_LEVELS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float], top: float, style: str = "$readable-accent") -> Content:
    """One cell a value, its height ``value / top`` in eighths (at least the lowest block, so none vanish).

    >>> sparkline([0, 1, 2, 4], 4).plain
    '▁▂▄█'
    """
    cells = []
    for value in values:
        level = round(value / top * len(SPARK_LEVELS)) if top > 0 else 0
        cells.append(SPARK_LEVELS[max(0, min(len(SPARK_LEVELS), level) - 1)])
    return Content.styled("".join(cells), style)

