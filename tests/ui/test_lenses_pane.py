"""The Lenses pane (7): opens on its key, ↑/↓ choose a lens, ←/→ move a slider, fields apply on Enter,
and it follows the session's active tokenizer."""

from __future__ import annotations

from textual.widgets import Input, OptionList

from bpe_tui.lenses.registry import LENSES
from bpe_tui.screens.lenses import LensesScreen
from core.analysis.lenses.fragments import FragmentsResult
from core.analysis.lenses.slider import SliderResult
from tests.ui.app_harness import SIZE, make_app, ready
from tests.ui.views_harness import english_500, japanese_600, session_with


async def open_lenses(pilot) -> LensesScreen:
    await ready(pilot)
    await pilot.press("7")
    await ready(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, LensesScreen)
    return screen


async def test_key_7_opens_the_pane_on_the_first_lens_computed_for_the_active_tokenizer() -> None:
    loaded = english_500()
    app = make_app(session=session_with(loaded), start_mode="inspector")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_lenses(pilot)
        assert app.current_mode == "lenses"
        assert screen.spec is LENSES[0]
        assert isinstance(app.focused, OptionList)
        result = screen.last_result
        assert isinstance(result, SliderResult)
        assert result.merges == len(loaded.model.merges)
        assert list(result.ids) == loaded.tokenizer.encode(result.text)


async def test_down_and_up_choose_a_lens() -> None:
    app = make_app(session=session_with(english_500()), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = app.screen
        await pilot.press("down")
        await ready(pilot)
        assert screen.spec is LENSES[1]
        assert isinstance(screen.last_result, FragmentsResult)
        await pilot.press("up")
        await ready(pilot)
        assert screen.spec is LENSES[0] and isinstance(screen.last_result, SliderResult)


async def test_left_and_right_move_the_slider_and_recompute() -> None:
    loaded = english_500()
    total = len(loaded.model.merges)
    app = make_app(session=session_with(loaded), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = app.screen
        for key, expected in [("left", total - 1), ("left", total - 2), ("right", total - 1),
                              ("shift+left", total - 1 - total // 20), ("right", total - total // 20)]:
            await pilot.press(key)
            await ready(pilot)
            assert screen.values()["merges"] == expected
            assert screen.last_result.merges == expected
        await pilot.press("shift+right", "shift+right", "right")
        await ready(pilot)
        assert screen.last_result.merges == total  # held at the top of the range


async def test_space_flips_a_toggle() -> None:
    app = make_app(session=session_with(english_500()), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = app.screen
        await pilot.press("down")
        await ready(pilot)
        assert screen.last_result.specials is True
        assert any(f.special for f in screen.last_result.fragments)
        await pilot.press("space")
        await ready(pilot)
        assert screen.last_result.specials is False
        assert not any(f.special for f in screen.last_result.fragments)
        await pilot.press("space")
        await ready(pilot)
        assert screen.last_result.specials is True


async def test_slash_edits_the_text_and_enter_applies_it() -> None:
    loaded = english_500()
    app = make_app(session=session_with(loaded), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = app.screen
        await pilot.press("slash")
        field = screen.query_one("#lens-field-text", Input)
        assert app.focused is field
        field.value = ""
        # "/", space, ← and [ are the pane's keys, but while the field has focus they are the field's.
        await pilot.press("t", "o", "space", "slash", "e", "n", "d", "left", "left", "left_square_bracket", "enter")
        await ready(pilot)
        assert screen.last_result.text == "to /e[nd"
        assert list(screen.last_result.ids) == loaded.tokenizer.encode("to /e[nd")
        assert isinstance(app.focused, OptionList)


async def test_the_pane_follows_the_active_tokenizer() -> None:
    english, japanese = english_500(), japanese_600()
    session = session_with(english, japanese, active=0)
    app = make_app(session=session, start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = app.screen
        assert screen.last_result.total_merges == len(english.model.merges)
        session.set_active(1)
        await ready(pilot)
        assert screen.last_result.total_merges == len(japanese.model.merges)
        assert list(screen.last_result.ids) == japanese.tokenizer.encode(screen.last_result.text)


async def test_without_a_tokenizer_the_pane_says_so() -> None:
    app = make_app(session=session_with(), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.screen.last_result is None
        body = app.screen.query_one("#lens-body")
        assert "No tokenizer yet" in str(body.render())
