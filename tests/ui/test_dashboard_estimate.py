"""The Pile estimate: the runner measures the reading rate (also of a phase that ends between two posts),
the dashboard shows it in one line, none before there is a rate."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from bpe_tui.training_process import TrainingSpec
from bpe_tui.training_runner import TrainingRunner
from bpe_tui.widgets.progress_panel import ProgressPanel
from core.train.events import PhaseProgress, ShardsRead
from tests.ui.app_harness import SAMPLES, FrozenProbe, recorded_run


class PanelApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ProgressPanel(id="progress")


def estimate(app: App[None]) -> str:
    return str(app.query_one("#estimate", Static).content)


async def test_the_line_follows_the_rate_it_is_given() -> None:
    app = PanelApp()
    async with app.run_test(size=(100, 10)) as pilot:
        panel = app.query_one(ProgressPanel)
        panel.show_run("run")
        panel.show_progress("reading", 1 << 20, 100 << 20, 0.2, 0, 0, 0, None)
        await pilot.pause()
        assert estimate(app) == "the Pile (825 GB): time to read it once a run has read 4 MiB"
        # 10 MiB/s: 825e9 bytes / (10 * 2**20) bytes/s = 78,678 s = 21h 51m.
        panel.show_progress("merging", 10, 1000, 3.0, 0, 0, 10, 10 * 2**20)
        await pilot.pause()
        assert estimate(app) == "the Pile (825 GB): 21h 51m to read at 10.0 MiB/s (merging aside)"
        panel.show_run("next run")
        await pilot.pause()
        assert estimate(app).endswith("once a run has read 4 MiB")
        # A corpus under 4 MiB read to its end gives no rate: the line stops promising one.
        panel.show_progress("counting", 0, 10, 0.1, 0, 0, 0, None)
        await pilot.pause()
        assert estimate(app) == "the Pile (825 GB): no estimate from a corpus under 4 MiB"
        panel.show_run("third run")
        await pilot.pause()
        assert estimate(app).endswith("once a run has read 4 MiB")


class ScriptedSource:
    """Sends one batch a poll, each at the time given with it (the runner's clock reads ``now``)."""

    def __init__(self, batches: list[tuple[float, list]], clock: list[float]) -> None:
        self.batches = batches
        self.clock = clock

    pid = None

    def start(self) -> None:
        pass

    def poll(self, timeout: float):
        if not self.batches:
            return None
        self.clock[0], batch = self.batches.pop(0)
        return batch

    def cancel(self) -> None:
        pass


def follow(batches: list[tuple[float, list]]) -> list[TrainingRunner.Progressed]:
    now = [0.0]
    runner = TrainingRunner(source_factory=lambda spec: ScriptedSource(batches, now),
                            probe_factory=lambda pid: FrozenProbe(pid), clock=lambda: now[0], post_interval=0.1)
    run = runner.start(TrainingSpec(vocab_size=400, corpus_path=SAMPLES / "english.txt"))
    return [m for m in runner.follow(run, lambda: False) if isinstance(m, TrainingRunner.Progressed)]


def test_the_runner_reports_the_reading_rate_so_far_then_the_whole_phase() -> None:
    rest = [event for event in recorded_run() if not isinstance(event, PhaseProgress) or event.phase != "reading"]
    posted = follow([
        (0.5, [PhaseProgress("reading", 1 << 20, 64 << 20)]),  # half a second in: too early for a rate
        (2.0, [PhaseProgress("reading", 8 << 20, 64 << 20)]),  # 8 MiB in 2 s
        # The rest of reading and the start of counting arrive in one batch, 8 s in: 64 MiB in 8 s.
        (8.0, [PhaseProgress("reading", 64 << 20, 64 << 20), *rest]),
    ])
    rates = [(p.phase, p.read_rate) for p in posted]
    assert rates[0] == ("reading", None)
    assert rates[1] == ("reading", 4 * 2**20)
    assert [rate for phase, rate in rates[2:]] == [8 * 2**20] * (len(rates) - 2)
    assert rates[-1][0] == "merging"  # no reading post since, and the rate is still the whole phase's


def test_a_corpus_of_compressed_shards_is_timed_by_its_text() -> None:
    """The Pile's 825 GB are text: a corpus of .jsonl.zst shards read at 4 MiB/s of files holding four times
    that of text reads 16 MiB/s of text, and the estimate went by the 4 (four times too long)."""
    rest = [event for event in recorded_run() if not isinstance(event, PhaseProgress) or event.phase != "reading"]
    posted = follow([
        (2.0, [ShardsRead(1, 2, 100, 0, 2, text_bytes=32 << 20), PhaseProgress("reading", 8 << 20, 16 << 20)]),
        (4.0, [ShardsRead(2, 2, 200, 0, 2, text_bytes=64 << 20), PhaseProgress("reading", 16 << 20, 16 << 20),
               *rest]),
    ])
    rates = [(p.phase, p.read_rate) for p in posted]
    assert rates[0] == ("reading", 16 * 2**20)
    assert [rate for _, rate in rates[1:]] == [16 * 2**20] * (len(rates) - 1)


def test_a_corpus_too_small_to_time_gets_no_rate() -> None:
    # 30 kB read in half a second is the reading processes starting, not a rate: no Pile estimate from it.
    rest = [event for event in recorded_run() if not isinstance(event, PhaseProgress) or event.phase != "reading"]
    posted = follow([(0.5, [PhaseProgress("reading", 30_000, 30_000), *rest])])
    assert posted and all(p.read_rate is None for p in posted)


def test_the_line_fits_an_80_column_dashboard_at_any_rate() -> None:
    from bpe_tui.throughput import training_estimate_line

    # The panel leaves 76 columns for it at 80x24; rates from 1 B/s to 10 GiB/s.
    rates = [1.0, 9.9, 1000.0, 1023.9 * 1024, 9.5 * 1024, 65.6 * 1024, 2**30, 10 * 2**30]
    assert max(len(training_estimate_line(rate)) for rate in rates) <= 76
