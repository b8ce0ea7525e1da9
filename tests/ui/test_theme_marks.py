"""Marks drawn as text in a theme's signal colours (a tie, a special token, a name), and the titles of boxes
without focus, read on every theme."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.color import Color

from bpe_tui.theme_marks import MARKS, MIN_CONTRAST, ReadableMarks, contrast, readable_marks
from bpe_tui.widgets.merge_table import MergeTable
from core.train.events import MergeMade
from tests.ui.app_harness import SIZE, make_app

THEMES = sorted(name for name in App().available_themes if not name.startswith("ansi"))


class TableApp(ReadableMarks):
    def __init__(self, theme: str) -> None:
        super().__init__()
        self.theme = theme

    def compose(self) -> ComposeResult:
        yield MergeTable(flush_seconds=3600)


async def tie_colours(theme: str, *, on_cursor: bool = False, segment: int | None = None) -> tuple[Color, Color]:
    """The colour of the ``tie`` mark in a merge table row (the cursor's, or the one above it), and the colour
    under it; or those of the row's ``segment``-th piece (0: its rank and pair)."""
    app = TableApp(theme)
    async with app.run_test(size=(70, 6)) as pilot:
        table = app.query_one(MergeTable)
        table.focus()
        table.append([MergeMade(0, b"a", b"b", 256, 10, 10, True), MergeMade(1, b"c", b"d", 257, 9, 9, True)])
        table.flush()
        await pilot.pause()
        assert table.cursor == 1  # on the newest row
        line = table.render_line(2 if on_cursor else 1)
        pieces = list(line)
        mark = pieces[segment] if segment is not None else next(piece for piece in pieces if piece.text.strip() == "tie")
        assert mark.style is not None and mark.style.color and mark.style.bgcolor
        return Color.from_rich_color(mark.style.color), Color.from_rich_color(mark.style.bgcolor)


@pytest.mark.parametrize("theme", ["textual-light", "atom-one-light", "catppuccin-latte"])
async def test_a_tie_reads_on_a_light_theme(theme: str) -> None:
    # Drawn in $warning it was 1.1-1.9:1 on these themes' rows, all but invisible.
    assert contrast(*await tie_colours(theme)) >= 2.5


async def test_textual_dark_keeps_its_own_warning_colour() -> None:
    app = App()
    warning = Color.parse(app.available_themes["textual-dark"].to_color_system().generate()["warning"])
    mark, _ = await tie_colours("textual-dark")
    assert mark.rgb == warning.rgb


@pytest.mark.parametrize("theme", THEMES)
def test_every_mark_reads_or_is_the_themes_text_shade(theme: str) -> None:
    variables = App().available_themes[theme].to_color_system().generate()
    marks = readable_marks(variables)
    for name in MARKS:
        colour = Color.parse(marks[f"readable-{name}"])
        worst = min(contrast(colour, Color.parse(variables[ground])) for ground in ("background", "surface"))
        assert worst >= MIN_CONTRAST or marks[f"readable-{name}"] == variables[f"text-{name}"], (name, worst)


@pytest.mark.parametrize("theme", ["textual-dark", "gruvbox", "tokyo-night", "catppuccin-latte"])
async def test_a_tie_under_the_cursor_is_drawn_as_the_cursor_row(theme: str) -> None:
    # The newest merge, which the cursor follows while a run streams, had its tie in the warning colour on
    # the cursor's: 1.0-1.4:1 on gruvbox, tokyo-night and catppuccin-latte.
    mark, under = await tie_colours(theme, on_cursor=True)
    row, _ = await tie_colours(theme, on_cursor=True, segment=0)
    assert mark == row and contrast(mark, under) > 2


def drawn_colours(app: App, text: str) -> tuple[Color, Color]:
    """The colour of ``text`` where the screen draws it as one piece, and the colour under it."""
    for strip in app.screen._compositor.render_strips():
        for piece in strip:
            if piece.text.strip() == text and piece.style and piece.style.color and piece.style.bgcolor:
                return Color.from_rich_color(piece.style.color), Color.from_rich_color(piece.style.bgcolor)
    raise AssertionError(f"{text!r} is not on the screen")


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_titles_of_boxes_without_focus_read(theme: str) -> None:
    # In the colour of their muted border these were 1.2:1 (textual-dark) and 1.7:1 (textual-light).
    app = make_app(start_mode="study")
    async with app.run_test(size=SIZE) as pilot:
        app.theme = theme
        await pilot.pause()
        assert contrast(*drawn_colours(app, "bytes/token against vocab size")) >= 3  # never focused
        await pilot.press("5")
        await pilot.pause()
        assert contrast(*drawn_colours(app, "merge tree")) >= 3  # the table has the focus
