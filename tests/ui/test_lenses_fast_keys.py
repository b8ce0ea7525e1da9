"""The Lenses pane under fast keys: only the lens the user stops on is computed, a superseded result is
never drawn, no character typed right after "/" is lost, and page up/down scroll a long lens view."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass

from textual.widgets import Input, OptionList

from bpe_tui.lenses.registry import LENSES
from bpe_tui.lenses.spec import LensSpec
from bpe_tui.lenses.views.base import LensView
from bpe_tui.screens.lenses import LensesScreen
from core.analysis.lenses.replay import ReplayResult
from tests.ui.app_harness import SIZE, make_app, ready
from tests.ui.views_harness import english_500, session_with

WAIT_SECONDS = 60.0
"""Only turns a deadlock into a failure; every wait below ends on a state."""


async def until(pilot, condition, what: str) -> None:
    """Let the app run until ``condition`` holds (a state, never a fixed time)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    while not condition():
        assert loop.time() < deadline, f"waited {WAIT_SECONDS:.0f} s for {what}"
        await pilot.pause()


def recording_runs(monkeypatch) -> list[str]:
    """Every lens computed from now on, by name, in order."""
    computed: list[str] = []
    real_run = LensSpec.run

    def run(spec: LensSpec, context, given=None):
        computed.append(spec.name)
        return real_run(spec, context, given)

    monkeypatch.setattr(LensSpec, "run", run)
    return computed


async def test_lenses_passed_over_with_down_are_never_computed(monkeypatch) -> None:
    computed = recording_runs(monkeypatch)
    # A wait no test outlasts: a request computes only when superseded-free and released by compute_now.
    monkeypatch.setattr(LensesScreen, "SETTLE_SECONDS", 3600.0)
    app = make_app(session=session_with(english_500()), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)  # the pane opening computes its first lens at once
        screen = app.screen
        assert computed == ["slider"]
        target = LENSES[8]  # past the unigram lens and onto the budget one, the two slow ones
        try:
            await pilot.press(*["down"] * 8)
            await until(pilot, lambda: screen.spec is target, "the list to reach the budget lens")
            assert computed == ["slider"]
            assert "computing" in str(screen.query_one("#lens-body").render())
        finally:
            screen.compute_now()  # never leave a worker waiting an hour, even when an assertion failed
        await ready(pilot)
        assert computed == ["slider", target.name]
        assert screen.last_result is not None and screen.spec is target


@dataclass(frozen=True)
class Named:
    """What the two test lenses compute: their own name."""

    name: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name}


def _base_view() -> type:
    return LensView


def named_lens(name: str, compute) -> LensSpec:
    return LensSpec(name=name, title=name, description=f"the {name} test lens", options=(), compute=compute,
                    render_text=lambda result: f"lens {result.name}", view=_base_view)


async def test_a_result_that_arrives_after_the_user_moved_on_is_never_drawn(monkeypatch) -> None:
    started, release = threading.Event(), threading.Event()

    def slow(context, options) -> Named:
        started.set()
        assert release.wait(WAIT_SECONDS), "the test never released the slow lens"
        return Named("slow")

    lenses = (named_lens("slow", slow), named_lens("quick", lambda context, options: Named("quick")))
    monkeypatch.setattr("bpe_tui.screens.lenses.LENSES", lenses)
    drawn: list[object] = []
    real_show = LensView.show_result
    monkeypatch.setattr(LensView, "show_result", lambda view, result: (drawn.append(result), real_show(view, result)))
    app = make_app(session=session_with(english_500()), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, started.is_set, "the slow lens to start computing")
        screen = app.screen
        await pilot.press("down")
        await until(pilot, lambda: screen.spec is lenses[1], "the list to reach the quick lens")
        release.set()  # the slow lens now finishes, after the user left it
        await ready(pilot)
        assert drawn == [Named("quick")]
        assert screen.last_result == Named("quick")
        assert "lens quick" in str(screen.query_one("#lens-body").render())


async def test_keys_typed_right_after_down_and_slash_all_reach_the_new_lens_field() -> None:
    loaded = english_500()
    app = make_app(session=session_with(loaded), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = app.screen
        await pilot.press("down", "down", "down")
        await ready(pilot)
        assert screen.spec.name == "vocab"  # no field of its own: "/" means the next lens's field
        # All in one go, as a fast typist sends them: the replay lens's field is not mounted when "/" comes.
        await pilot.press("down", "slash", "ctrl+u", "z", "e", "s", "t", "enter")
        await ready(pilot)
        assert screen.spec.name == "replay"
        assert isinstance(screen.last_result, ReplayResult)
        assert screen.last_result.word == "zest"
        assert list(screen.last_result.ids) == loaded.tokenizer.encode("zest")
        assert isinstance(app.focused, OptionList)


async def test_slash_then_typing_keeps_the_first_character_on_a_lens_just_chosen() -> None:
    app = make_app(session=session_with(english_500()), start_mode="lenses")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = app.screen
        await pilot.press("down", "slash", "ctrl+u", "x", "y")
        field = screen.query_one("#lens-field-text", Input)
        assert screen.spec.name == "fragments"
        assert app.focused is field
        await until(pilot, lambda: field.value == "xy", "the typed text in the fragments field")


async def test_page_down_and_up_scroll_a_lens_view_taller_than_the_screen() -> None:
    app = make_app(session=session_with(english_500()), start_mode="lenses")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        screen = app.screen
        await pilot.press(*["down"] * 10)
        await ready(pilot)
        assert screen.spec.name == "numbers"
        view = screen.query_one("#lens-view", LensView)
        await until(pilot, lambda: view.max_scroll_y > 0, "the numbers view to be taller than its room")
        assert isinstance(app.focused, OptionList)
        await pilot.press("pagedown")
        await until(pilot, lambda: view.scroll_y > 0, "page down to scroll the view")
        assert screen.spec.name == "numbers"  # the list stayed where it was
        await pilot.press("pageup")
        await until(pilot, lambda: view.scroll_y == 0, "page up to scroll back to the top")
