"""A terminal too small for the panes: each says how much room it needs instead of drawing itself.

At 40x12 (a split tmux pane, a small window) the panes were drawn as empty boxes: the workbench's token
view was its border alone, the corpus pane's training form was off the screen and tabbed into unseen.
"""

from __future__ import annotations

from textual.screen import Screen

from bpe_tui.screens.pane_screen import MIN_COLUMNS, MIN_ROWS, RoomNeeded
from tests.ui.app_harness import make_app, settle, tree_loaded
from tests.ui.test_workbench import gpt2
from tests.ui.views_harness import session_with


def shown(screen: Screen) -> list[str]:
    """The screen's own children on display, by type."""
    return [type(child).__name__ for child in screen.children if child.display]


def notice(screen: Screen) -> str:
    return str(screen.query_one(RoomNeeded).render())


async def test_every_pane_says_it_needs_more_room_and_comes_back_when_it_has_it() -> None:
    app = make_app(session=session_with(gpt2()))
    async with app.run_test(size=(40, 12)) as pilot:
        await settle(pilot)
        for key in "12345678":
            await pilot.press(key)  # pane keys still switch panes: each says the same
            await settle(pilot)
            assert shown(app.screen) == ["RoomNeeded"], f"pane {key}"
            assert f"at least {MIN_COLUMNS} columns x {MIN_ROWS} rows" in notice(app.screen)
            assert "this one is 40 x 12" in notice(app.screen)
        await pilot.resize_terminal(MIN_COLUMNS, MIN_ROWS)
        await settle(pilot)
        assert "RoomNeeded" not in shown(app.screen) and "KeyFooter" in shown(app.screen)
        await pilot.press("1")  # a pane last shown while too small is drawn again too
        await settle(pilot)
        assert "RoomNeeded" not in shown(app.screen) and "KeyFooter" in shown(app.screen)


async def test_too_few_rows_alone_is_too_small() -> None:
    app = make_app(session=session_with(gpt2()))
    async with app.run_test(size=(120, MIN_ROWS - 1)) as pilot:
        await settle(pilot)
        assert shown(app.screen) == ["RoomNeeded"]
        assert f"this one is 120 x {MIN_ROWS - 1}" in notice(app.screen)


async def test_the_training_form_is_on_screen_when_tabbed_into_at_the_smallest_size() -> None:
    # At 60x20 (and 80x20) the form was below the screen's edge: tab moved into the vocab size unseen, and at
    # 60 columns, beside the 32-column tree, its fields had no width at all.
    app = make_app()
    async with app.run_test(size=(MIN_COLUMNS, MIN_ROWS)) as pilot:
        await settle(pilot)
        await tree_loaded(pilot)
        for field in ("vocab", "workers", "specials"):
            await pilot.press("tab")
            await settle(pilot)
            focused = app.screen.focused
            assert focused is not None and focused.id == field
            assert focused.region.width >= 3 and app.screen.can_view_entire(focused), field


async def test_compare_under_80_columns_leaves_the_figures_the_width_and_shows_the_list_on_t() -> None:
    # At 64 columns the tokenizer list took 18 and the figures' column B was cut off, with no key to reach it.
    from bpe_tui.widgets.script_stats import ScriptStatsTable
    from tests.ui.views_harness import bilingual_800

    app = make_app(session=session_with(bilingual_800(), gpt2()), start_mode="compare")
    async with app.run_test(size=(64, 24)) as pilot:
        await settle(pilot)
        pick = app.screen.query_one("#compare-pick")
        table = app.screen.query_one(ScriptStatsTable)
        assert not pick.display
        assert table.virtual_size.width <= table.scrollable_content_region.width  # both columns in view
        await pilot.press("t")
        await settle(pilot)
        assert pick.display and app.focused is pick
        await pilot.press("space")  # choosing works while it is shown
        await settle(pilot)
        await pilot.press("tab")
        await settle(pilot)
        assert not pick.display
        await pilot.resize_terminal(100, 30)  # wide enough: always shown, as before
        await settle(pilot)
        assert pick.display
