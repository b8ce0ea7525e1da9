"""Picture of the help screen, generated from the bindings of the app and every pane."""

from __future__ import annotations

from tests.ui.app_harness import SIZE, after_keys, make_app


def test_help_screen(snap_compare) -> None:
    assert snap_compare(make_app(start_mode="stepper"), terminal_size=SIZE, run_before=after_keys("f1"))
