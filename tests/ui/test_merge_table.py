"""The dashboard's merge table: what it shows, that it follows the newest merge, and that a row is formatted once."""

from __future__ import annotations

import pytest
from textual.app import ComposeResult

from bpe_tui.theme_marks import ReadableMarks
from bpe_tui.widgets import merge_table
from bpe_tui.widgets.merge_table import MergeTable
from core.train.events import MergeMade


def made(rank: int, left: bytes = b"a", right: bytes = b"b", count: int = 10, runner_up: int = 5,
         tie: bool = False) -> MergeMade:
    return MergeMade(rank, left, right, 256 + rank, count, runner_up, tie)


class TableApp(ReadableMarks):
    def __init__(self, table: MergeTable) -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        yield self.table


def lines(table: MergeTable) -> list[str]:
    return [table.render_line(y).text for y in range(table.scrollable_content_region.height)]


async def test_rows_show_tokens_as_text_and_counts_whole() -> None:
    table = MergeTable(flush_seconds=3600)
    async with TableApp(table).run_test(size=(70, 8)) as pilot:
        table.append([made(0, b"[b", b"]", count=4_993_210, runner_up=4_993_210, tie=True),
                      made(1, b"\n", b"\xe3", count=7)])
        table.flush()
        await pilot.pause()
        header, first, second, *_ = lines(table)
        assert header.split() == ["#", "left", "right", "token", "count", "2nd", "tie"]
        assert first.split() == ["0", "[b", "]", "[b]", "4,993,210", "4,993,210", "tie"]  # not markup, not cut
        assert second.split()[:4] == ["1", "↵", "\\xe3", "↵\\xe3"]


async def test_it_keeps_the_newest_rows_and_follows_them_until_the_cursor_moves_up() -> None:
    table = MergeTable(keep=50, flush_seconds=3600)
    async with TableApp(table).run_test(size=(70, 8)) as pilot:
        table.append(made(rank) for rank in range(120))
        table.flush()
        await pilot.pause()
        assert table.ranks == list(range(70, 120))
        assert lines(table)[-1].split()[0] == "119"  # the newest row is on screen, at the bottom
        assert table.cursor == 49

        table.focus()
        await pilot.press("up", "up")
        assert table.cursor == 47
        table.append(made(rank) for rank in range(120, 125))
        table.flush()
        await pilot.pause()
        assert table.ranks[-1] == 124
        assert table.ranks[table.cursor] == 117  # the row the user chose, though 5 rows went off the top
        shown = [int(line.split()[0]) for line in lines(table)[1:]]
        assert 117 in shown and 124 not in shown  # the view stayed on the same merges

        await pilot.press("end")
        table.append([made(125)])
        table.flush()
        await pilot.pause()
        assert table.ranks[table.cursor] == 125 and lines(table)[-1].split()[0] == "125"


async def test_each_row_is_formatted_once_however_often_it_is_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    formatted: list[int] = []
    real = merge_table.merge_cells

    def counting(merge: MergeMade) -> tuple[str, ...]:
        formatted.append(merge.rank)
        return real(merge)

    monkeypatch.setattr(merge_table, "merge_cells", counting)
    table = MergeTable(flush_seconds=3600)
    async with TableApp(table).run_test(size=(70, 8)) as pilot:
        for start in range(0, 40, 10):
            table.append(made(rank) for rank in range(start, start + 10))
            table.flush()
            await pilot.pause()
            lines(table)
        assert sorted(formatted) == sorted(set(formatted))
        assert set(formatted) >= set(range(33, 40))  # the rows on screen at the end


async def test_reset_empties_the_table() -> None:
    table = MergeTable(flush_seconds=3600)
    async with TableApp(table).run_test(size=(70, 8)) as pilot:
        table.append(made(rank) for rank in range(30))
        table.flush()
        table.append([made(30)])
        table.reset()
        table.flush()
        await pilot.pause()
        assert table.row_count == 0 and table.ranks == []
        assert [line.strip() for line in lines(table)[1:]] == [""] * 7


async def test_the_cursor_row_stays_on_screen_when_the_table_gets_shorter() -> None:
    # A stopped run's panel grows a line ("stopped after N merges") and the table under it loses one: the
    # newest merge, the cursor's row, went below the bottom edge (also on a terminal made smaller).
    table = MergeTable(flush_seconds=3600)
    async with TableApp(table).run_test(size=(70, 10)) as pilot:
        table.append(made(rank) for rank in range(32))
        table.flush()
        await pilot.pause()
        assert lines(table)[-1].split()[0] == "31"
        table.styles.height = 6
        await pilot.pause()
        await pilot.pause()
        assert table.scrollable_content_region.height == 6
        assert lines(table)[-1].split()[0] == "31"
