"""What the dashboard redraws, and when: no layout pass for progress, nothing at all while another pane is shown.

Issue 13 item 13: while a run merged, the UI thread spent a fifth to half a core redrawing the dashboard,
and pane switches waited behind it. These tests pin the work away without timing anything: they record
which widgets were asked to refresh (and whether with a layout pass) and what a hidden dashboard drew.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Label, Sparkline, Static

from bpe_tui.screens.dashboard import DashboardScreen
from bpe_tui.training_runner import TrainingRunner
from bpe_tui.widgets.merge_table import MergeTable
from bpe_tui.widgets.progress_panel import ProgressPanel
from tests.ui.app_harness import SIZE, HeldSource, held_app, settle, split_after_merges

Refreshes = list[tuple[Widget, bool]]


@pytest.fixture
def refreshes(monkeypatch: pytest.MonkeyPatch) -> Callable[[], Refreshes]:
    """Start recording every ``Widget.refresh`` as (widget, asked for a layout); call it to start."""
    seen: Refreshes = []
    real = Widget.refresh

    def recording(self: Widget, *regions, repaint: bool = True, layout: bool = False, recompose: bool = False):
        seen.append((self, layout))
        return real(self, *regions, repaint=repaint, layout=layout, recompose=recompose)

    def start() -> Refreshes:
        monkeypatch.setattr(Widget, "refresh", recording)
        return seen

    return start


def text_of(root: Widget | App, selector: str) -> str:
    widget = root.query_one(selector)
    assert isinstance(widget, (Static, Label))
    return str(widget.content)


async def until(pilot: Pilot, condition: Callable[[], bool], what: str, rounds: int = 3000) -> None:
    """Let the app run until ``condition`` holds (the training worker is a thread); fail naming ``what``."""
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"never happened: {what}")


class PanelApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ProgressPanel(id="progress")


async def test_progress_redraws_only_changed_lines_and_never_asks_for_a_layout(refreshes) -> None:
    app = PanelApp()
    async with app.run_test(size=(100, 10)) as pilot:
        panel = app.query_one(ProgressPanel)
        panel.show_run("run")
        panel.show_progress("merging", 100, 1000, 2.0, 1 << 20, 2 << 20, 100)
        await pilot.pause()
        seen = refreshes()
        panel.show_progress("merging", 100, 1000, 2.0, 1 << 20, 2 << 20, 100)
        panel.show_ties(0)
        assert seen == [], "the same progress again redrew something"
        panel.show_progress("merging", 500, 1000, 4.0, 3 << 20, 3 << 20, 500)
        panel.show_ties(2)
        panel.show_longest(b" together")
        assert seen and not [widget for widget, layout in seen if layout], "a progress line asked for a layout"
        assert {widget.id for widget, _ in seen} >= {"eta", "rates", "longest"}
        assert "phase" not in {widget.id for widget, _ in seen}  # still merging: its label is not touched
        await pilot.pause()
        assert text_of(app, "#eta") == "ETA 4.0 s"
        assert text_of(app, "#rates").startswith("merges 500 (2 ties) · 125 merges/s · RSS 3.0 MiB")
        assert text_of(app, "#longest").startswith("longest token: ·together  (9 bytes: 20 74 6f")


async def test_a_progress_report_touches_neither_the_merge_table_nor_the_layout(refreshes) -> None:
    first, rest = split_after_merges(30)
    app = held_app(HeldSource(first, rest))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+t")
        await until(pilot, lambda: len(app.training.merges) == 30, "the first 30 merges reached the app")
        dashboard = app.screen
        assert isinstance(dashboard, DashboardScreen)
        table = dashboard.query_one(MergeTable)
        table.flush()
        await pilot.pause()
        progress = app.training.progress
        assert progress is not None
        seen = refreshes()
        app.post_message(TrainingRunner.Progressed(
            progress.run, "merging", 31, 400, 31, progress.elapsed + 1, progress.phase_elapsed + 1,
            5 << 20, 6 << 20,
        ))
        await until(pilot, lambda: "merges 31 " in text_of(dashboard, "#rates"), "the progress was drawn")
        await pilot.pause()
        assert table not in [widget for widget, _ in seen]
        assert [widget for widget, layout in seen if layout] == []


async def test_a_hidden_dashboard_draws_nothing_and_catches_up_exactly_when_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, rest = split_after_merges(30)
    source = HeldSource(first, rest)
    app = held_app(source)
    drawn: list[str] = []
    for owner, name in ((ProgressPanel, "show_progress"), (ProgressPanel, "show_outcome"),
                        (MergeTable, "append"), (MergeTable, "flush")):
        def spy(self, *args, _real=getattr(owner, name), _name=name, **kwargs):
            drawn.append(_name)
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(owner, name, spy)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+t")
        await until(pilot, lambda: len(app.training.merges) == 30, "the first 30 merges reached the app")
        dashboard = app.screen
        assert isinstance(dashboard, DashboardScreen)
        await pilot.pause()
        phase_before = text_of(dashboard, "#phase")
        await pilot.press("1")
        drawn.clear()
        source.release.set()
        await settle(pilot)
        assert isinstance(app.training.outcome, TrainingRunner.Finished)
        merges = app.training.merges
        assert len(merges) > 30
        assert drawn == [], "the dashboard drew while another pane was on screen"
        assert text_of(dashboard, "#phase") == phase_before != "done"

        await pilot.press("2")
        await pilot.pause()
        assert app.screen is dashboard
        assert text_of(dashboard, "#phase") == "done"
        assert text_of(dashboard, "#rates").startswith(f"merges {len(merges):,} (")
        table = dashboard.query_one(MergeTable)
        newest = [merge.rank for merge in merges[-table.keep:]]
        # The table shows what it missed at its first flush after the switch, not before the first frame.
        await until(pilot, lambda: table.ranks[-1:] == newest[-1:], "the table reached the newest merge")
        assert table.ranks == newest  # every merge it keeps, in order, and nothing after them
        assert table.cursor == table.row_count - 1  # following the newest
        assert len(dashboard.query_one("#counts", Sparkline).data or []) == len(merges)
