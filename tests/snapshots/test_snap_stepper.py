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


def test_stepper_at_a_tie_at_80x24(snap_compare) -> None:
    # Step 6 of the toy run: merge 5 won a tie (the rule and the byte strings on the third line), the next
    # merge is a tie too (the table's subtitle names the deciding byte strings), the winner and the runner-up are marked.
    app = make_app(start_mode="stepper")
    run_before = after_keys("right", "right", "right", "right", "right", "right")
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
