"""Pictures of the Study pane: before a study, and showing a fixed study (a real run timed by a ticking clock),
its bytes per token and, after `c`, its context coverage."""

from __future__ import annotations

from textual.pilot import Pilot

from bpe_tui.screens.study import StudyScreen
from tests.ui.app_harness import SIZE, make_app, ready
from tests.ui.test_views_study import fixed_study
from tests.ui.views_harness import session_with


def test_study_before_a_run(snap_compare) -> None:
    assert snap_compare(make_app(session=session_with(), start_mode="study"), terminal_size=SIZE, run_before=ready)


async def study_shown(pilot: Pilot) -> None:
    """The fixed study arrives as a finished worker's message would."""
    await ready(pilot)
    pilot.app.screen.post_message(StudyScreen.StudyDone(fixed_study(), "english sample"))
    await ready(pilot)


def test_study_finished(snap_compare) -> None:
    app = make_app(session=session_with(), start_mode="study")
    assert snap_compare(app, terminal_size=SIZE, run_before=study_shown)


def test_study_finished_at_80x24(snap_compare) -> None:
    app = make_app(session=session_with(), start_mode="study")
    assert snap_compare(app, terminal_size=(80, 24), run_before=study_shown)


async def coverage_shown(pilot: Pilot) -> None:
    """The fixed study, then ``c``: the table shows each size's context coverage."""
    await study_shown(pilot)
    await pilot.press("c")
    await ready(pilot)


def test_study_coverage_at_80x24(snap_compare) -> None:
    app = make_app(session=session_with(), start_mode="study")
    assert snap_compare(app, terminal_size=(80, 24), run_before=coverage_shown)
