"""Pictures of the inspector: its canonical state (first merge selected) and a hex search."""

from __future__ import annotations

from textual.pilot import Pilot

from tests.ui.app_harness import SIZE, after_keys, make_app, ready
from tests.ui.views_harness import bilingual_800, session_with


def inspector_app():
    return make_app(session=session_with(bilingual_800()), start_mode="inspector")


def test_inspector(snap_compare) -> None:
    assert snap_compare(inspector_app(), terminal_size=SIZE, run_before=ready)


def test_inspector_search_hex_then_longest_match(snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.press("slash", "e", "3", "space", "8", "1")
        await pilot.pause(0.3)
        await ready(pilot)
        await pilot.press("escape", "end")
        await ready(pilot)

    assert snap_compare(inspector_app(), terminal_size=SIZE, run_before=run_before)


def test_inspector_at_80x24(snap_compare) -> None:
    assert snap_compare(inspector_app(), terminal_size=(80, 24), run_before=ready)


def test_inspector_ties(snap_compare) -> None:
    assert snap_compare(inspector_app(), terminal_size=SIZE, run_before=after_keys("i"))
