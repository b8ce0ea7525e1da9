"""Pictures of the merge stepper: the toy corpus at step 0, after a few steps, and a Japanese live run."""

from __future__ import annotations

from textual.pilot import Pilot

from tests.ui.app_harness import SIZE, make_app, ready


def _after(*keys: str):
    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        for key in keys:
            await pilot.press(key)
            await ready(pilot)

    return run_before


def test_stepper_start(snap_compare) -> None:
    assert snap_compare(make_app(start_mode="stepper"), terminal_size=SIZE, run_before=ready)


def test_stepper_after_three_steps(snap_compare) -> None:
    app = make_app(start_mode="stepper")
    assert snap_compare(app, terminal_size=SIZE, run_before=_after("right", "right", "right"))


def test_stepper_japanese_after_twenty_merges(snap_compare) -> None:
    app = make_app(start_mode="stepper")
    run_before = _after("c", "c", "pagedown", "pagedown")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
