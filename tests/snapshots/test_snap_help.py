"""Picture of the help screen, generated from the bindings of the app and every pane."""

from __future__ import annotations

from textual.pilot import Pilot

from tests.ui.app_harness import SIZE, make_app, ready


def test_help_screen(snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("f1")
        await ready(pilot)

    assert snap_compare(make_app(start_mode="stepper"), terminal_size=SIZE, run_before=run_before)
