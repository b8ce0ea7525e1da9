"""Pictures of the merge stepper: the toy corpus at step 0, after a few steps, and a Japanese live run."""

from __future__ import annotations

from tests.ui.app_harness import SIZE, after_keys, make_app, ready


def test_stepper_start(snap_compare) -> None:
    assert snap_compare(make_app(start_mode="stepper"), terminal_size=SIZE, run_before=ready)


def test_stepper_after_three_steps(snap_compare) -> None:
    app = make_app(start_mode="stepper")
    assert snap_compare(app, terminal_size=SIZE, run_before=after_keys("right", "right", "right"))


def test_stepper_japanese_after_twenty_merges(snap_compare) -> None:
    app = make_app(start_mode="stepper")
    run_before = after_keys("c", "c", "pagedown", "pagedown")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
