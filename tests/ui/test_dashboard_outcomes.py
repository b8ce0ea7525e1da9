"""The dashboard after a run ends, and before its ETA means anything: what the pane itself says."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Label, Static

from bpe_tui.training_process import TrainingFailed
from core.train.events import MergeMade
from bpe_tui.widgets.progress_panel import ProgressPanel
from tests.ui.app_harness import (
    SIZE,
    FrozenProbe,
    HeldSource,
    held_app,
    settle,
    split_after_merges,
)


def text_of(screen, selector: str) -> str:
    widget = screen.query_one(selector)
    return str(widget.content if isinstance(widget, (Static, Label)) else widget.render())


class PanelApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ProgressPanel(id="progress")


async def test_no_eta_until_the_phase_has_run_a_second() -> None:
    app = PanelApp()
    async with app.run_test(size=(100, 10)) as pilot:
        panel = app.query_one(ProgressPanel)
        panel.show_run("run")
        # Two merges in a tenth of a second of 30,000: the rate says hours, and means nothing yet.
        panel.show_progress("merging", 2, 30_000, 0.1, 0, 0, 2)
        await pilot.pause()
        assert text_of(app, "#eta") == "ETA —"
        assert "RSS —" in text_of(app, "#rates") and "0 B" not in text_of(app, "#rates")
        panel.show_progress("merging", 15_000, 30_000, 6.0, 48 << 20, 64 << 20, 15_000)
        await pilot.pause()
        assert text_of(app, "#eta") == "ETA 6.0 s"


def dashboard_app(source: HeldSource):
    return held_app(source, probe_factory=lambda pid: FrozenProbe(pid, rss=0))


async def test_a_failed_run_shows_its_reason_in_the_pane() -> None:
    first, _ = split_after_merges(5)
    source = HeldSource(first, [TrainingFailed("out of memory; try a smaller corpus or vocab size")])
    source.release.set()
    app = dashboard_app(source)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        app.clear_notifications()  # the toast goes away; the pane keeps saying why
        await pilot.pause()
        dashboard = app.screen
        assert text_of(dashboard, "#phase") == "failed"
        assert text_of(dashboard, "#outcome") == "failed: out of memory; try a smaller corpus or vocab size"
        assert dashboard.query_one("#outcome").display
        rates = text_of(dashboard, "#rates")
        ties = sum(event.won_tie for event in first if isinstance(event, MergeMade))
        assert rates.startswith(f"merges 5 ({ties} {'tie' if ties == 1 else 'ties'}) ·")
        assert "RSS 0 B" not in rates and "RSS —" not in rates
        assert text_of(dashboard, "#bpt") == "not measured: the run failed before a measurement"


async def test_a_stopped_run_says_what_it_kept_and_measures_where_it_stopped() -> None:
    first, rest = split_after_merges(30)
    source = HeldSource(first, rest)  # no measurement among the first events, as early in a real run
    app = dashboard_app(source)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert text_of(app.screen, "#bpt") == "measuring…"
        await pilot.press("s")
        await settle(pilot)
        dashboard = app.screen
        assert text_of(dashboard, "#phase") == "stopped" and text_of(dashboard, "#eta") == "at 30 merges"
        assert text_of(dashboard, "#outcome").startswith("stopped after 30 merges; ctrl+s saves them")
        assert "0 B" not in text_of(dashboard, "#rates") and "measuring" not in text_of(dashboard, "#bpt")
        # Measured again with the merges the run reached, not the last measurement the process sent.
        assert text_of(dashboard, "#bpt").startswith("bytes/token after 30 merges")
        assert app.training.measured is not None and app.training.measured.merges_done == 30
        # A new run clears the note.
        await pilot.press("r")
        await pilot.pause()
        assert not dashboard.query_one("#outcome").display
        await pilot.press("s")
        await settle(pilot)


async def test_a_run_stopped_before_its_first_merge_says_there_is_nothing_to_save() -> None:
    first, _ = split_after_merges(1)
    app = dashboard_app(HeldSource(first[:-1]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+t")
        await pilot.pause()
        await pilot.press("s")
        await settle(pilot)
        dashboard = app.screen
        assert text_of(dashboard, "#outcome") == "stopped before the first merge; nothing to save"
        assert text_of(dashboard, "#bpt") == "not measured: the run stopped before a measurement"
