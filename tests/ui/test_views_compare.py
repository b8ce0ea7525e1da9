"""The compare pane: aligned rows and markers (pure, exact), then choosing tokenizers with a pilot."""

from __future__ import annotations

from textual.widgets import SelectionList, Static

from bpe_tui.render import PALETTE, SPLIT_PALETTE
from bpe_tui.screens.compare import CompareScreen
from bpe_tui.widgets.compare_view import CompareView, align_tokenizations, render_aligned, wrap_positions
from bpe_tui.widgets.script_stats import ScriptStatsTable
from core.analysis.compare import boundary_diff
from tests.core.analysis.test_compare import spans_from_lengths as spans
from tests.ui.app_harness import SIZE, settle
from tests.ui.views_harness import (
    ViewsApp,
    bilingual_800,
    english_500,
    japanese_600,
    session_with,
)


def test_alignment_colours_markers_and_split_characters() -> None:
    text = "ab の"  # a b ␠ の(e3 81 ae): 6 bytes
    a = spans(2, 4)  # "ab" " の"
    b = spans(1, 1, 3, 1)  # "a" "b" " \xe3\x81" "\xae": splits の
    diff = boundary_diff([a, b])
    assert diff.differing == frozenset({1, 5})
    aligned = align_tokenizations(text, [a, b], [[0, 1], [6, 7, 8, 9]], diff.differing)
    assert aligned.glyphs == ("a", "b", "·", "の")
    assert aligned.marked == (False, True, False, True)
    assert aligned.styles[0] == (PALETTE[0], PALETTE[0], PALETTE[1], PALETTE[1])
    # b: ids 6, 7 -> PALETTE[0], PALETTE[1]; the space starts token 8 (PALETTE[2]); の is split.
    assert aligned.styles[1] == (PALETTE[0], PALETTE[1], PALETTE[2], SPLIT_PALETTE[0])


def test_render_aligned_rows_and_marker_row() -> None:
    text = "ab\ncd"
    a, b = spans(2, 1, 2), spans(1, 1, 1, 2)
    diff = boundary_diff([a, b])
    aligned = align_tokenizations(text, [a, b], [[0, 1, 2], [0, 1, 2, 3]], diff.differing)
    lines = [line.plain for line in render_aligned(aligned, 20)]
    assert lines == ["A ab↵", "B ab↵", "   ▲", "A cd", "B cd", ""]


def test_markers_stay_under_their_characters_past_combining_marks() -> None:
    # "สวัสดี x": ั and ี take no cell. A cuts before each character, B keeps the word whole, and C
    # cuts at the space and at x. The marker row gave each mark a cell of its own, so every marker after the
    # first mark stood a cell to the right of its character (and an uncut mark still shifted them).
    text = "สวัสดี x"
    a = spans(3, 3, 3, 3, 3, 3, 1, 1)
    b = spans(18, 2)
    c = spans(18, 1, 1)
    diff = boundary_diff([a, b, c])
    aligned = align_tokenizations(text, [a, b, c], [[1, 2, 3, 4, 5, 6, 7, 8], [9, 10], [9, 11, 12]], diff.differing)
    assert aligned.glyphs[2] == "◌ั" and aligned.glyphs[5] == "◌ี"  # cut at by A: a cell to be coloured in
    rows = [line.plain for line in render_aligned(aligned, 40)]
    assert rows[0] == "A สว◌ัสด◌ี·x"
    assert rows[-1] == "   ▲▲▲▲▲ ▲"  # a cell each; the space is cut by all three, x by A and C
    uncut = align_tokenizations(text, [b, c], [[9, 10], [9, 11, 12]], boundary_diff([b, c]).differing)
    assert uncut.glyphs[2] == "ั"  # no one cuts at the mark: it stays on its letter
    assert [line.plain for line in render_aligned(uncut, 40)][-1] == "       ▲"


def test_wrap_counts_double_width_cells() -> None:
    aligned = align_tokenizations("日本語x", [spans(3, 3, 3, 1)], [[1, 2, 3, 4]], frozenset())
    assert wrap_positions(aligned, 4) == [(0, 2), (2, 4)]


async def test_two_tokenizers_compared_on_the_mixed_sample() -> None:
    app = ViewsApp(CompareScreen, session_with(english_500(), bilingual_800()))
    seen: list[object] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        compared = [m for m in seen if isinstance(m, CompareScreen.Compared)]
        assert len(compared) == 1 and compared[0].key[1] == "mixed"
        table = screen.query_one(ScriptStatsTable)
        assert [str(column.label) for column in table.columns.values()] == ["", "A", "B"]
        assert str(table.get_cell("tokens", "A")) != str(table.get_cell("tokens", "B"))
        overlap = str(screen.query_one("#compare-overlap", Static).render())
        assert overlap.startswith("A∩B shared")
        view = screen.query_one(CompareView)
        assert view._aligned is not None and any(view._aligned.marked)
        await pilot.press("s")
        await settle(pilot)
        assert screen.sample == "toy"


async def test_choosing_tokenizers_with_the_list() -> None:
    session = session_with(english_500(), bilingual_800(), japanese_600())
    app = ViewsApp(CompareScreen, session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        pick = screen.query_one("#compare-pick", SelectionList)
        assert sorted(pick.selected) == [1, 2]  # the active (newest) one and the one before it
        await pilot.press("t")
        assert pick.has_focus
        await pilot.press("home", "space")
        await settle(pilot)
        table = screen.query_one(ScriptStatsTable)
        assert [str(column.label) for column in table.columns.values()] == ["", "A", "B", "C"]
        await pilot.press("space", "down", "space")
        await settle(pilot)
        assert sorted(pick.selected) == [2]
        assert "at least two" in str(screen.query_one("#compare-overlap", Static).render())
        assert screen.query_one(CompareView)._aligned is None


async def test_a_fifth_tokenizer_is_refused() -> None:
    tokenizers = [english_500(), bilingual_800(), japanese_600(), english_500(), bilingual_800()]
    app = ViewsApp(CompareScreen, session_with(*tokenizers))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pick = app.screen.query_one("#compare-pick", SelectionList)
        pick.select_all()
        await settle(pilot)
        assert len(pick.selected) <= 4
        assert any("at most 4" in n.message for n in app._notifications)


async def test_with_one_tokenizer_it_explains() -> None:
    app = ViewsApp(CompareScreen, session_with(bilingual_800()))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "needs two tokenizers" in str(app.screen.query_one("#compare-overlap", Static).render())
