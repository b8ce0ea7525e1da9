"""``bpe-tui train``'s progress on stderr: the plain reporter's lines and the live display's redraws,
both with tokens escaped, and the events file's finished record."""

from __future__ import annotations

import io
from pathlib import Path

from bpe_tui.cli.train_display import LiveReporter, PlainReporter, TrainingStats
from bpe_tui.cli.train_events import event_record
from core.train.events import MergeMade, PhaseProgress, TrainingFinished
from core.train.memory import RSSProbe
from core.train.run import TrainingRun

ESC = "\x1b"


class FrozenProbe(RSSProbe):
    """An RSS probe that always reads the same value."""

    def sample(self) -> int:
        self.peak = max(self.peak, 64 << 20)
        return 48 << 20


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def stats(clock: FakeClock) -> TrainingStats:
    return TrainingStats(clock=clock, probe=FrozenProbe(), kernel_peak=lambda: 0)


def _merge(rank: int, left: bytes = b"a", right: bytes = b"b") -> MergeMade:
    return MergeMade(rank, left, right, 256 + rank, 100 - rank, 99 - rank, False)


def test_plain_reporter_escapes_tokens_and_reports_memory() -> None:
    clock = FakeClock()
    stream = io.StringIO()
    reporter = PlainReporter(stats(clock), stream)
    for event in (PhaseProgress("reading", 0, 1000), PhaseProgress("reading", 1000, 1000),
                  PhaseProgress("counting", 0, 12), PhaseProgress("counting", 12, 12), PhaseProgress("merging", 0, 20)):
        clock.now += 1
        reporter.observe(event)
    for rank in range(20):
        clock.now += 0.5
        reporter.observe(_merge(rank, b"\x1b[2J", b"\n\xe3\x81") if rank == 3 else _merge(rank))
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("reading: 100% (1000 B of 1000 B)")
    assert lines[1] == "counting: pairs in 12 unique pre-tokens (read 1000 B in 3.0 s)"
    assert lines[2] == "merging: up to 20 merges"
    assert len(lines) == 13
    assert lines[3] == (
        "merging:  10% (2/20 merges), 2 merges/s, ETA 9.0 s, RSS 48.0 MiB (peak 64.0 MiB), "
        "longest token ab (2 bytes, merge 1)"
    )
    assert lines[-1].endswith("longest token \\x1b[2J↵\\xe3\\x81 (7 bytes, merge 4)")
    assert ESC not in stream.getvalue()


def test_live_reporter_redraws_at_most_ten_times_a_second() -> None:
    from rich.console import Console

    clock = FakeClock()
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100)
    reporter = LiveReporter(
        stats(clock), screen, corpus=Path("c.txt"), output=Path("c.json"), console=console
    )
    with reporter:
        reporter.observe(PhaseProgress("merging", 0, 2000))
        for rank in range(2000):
            clock.now += 0.001  # 1,000 merges a second for two seconds
            reporter.observe(_merge(rank, b"\x07bell", b"\xf0\x9f"))
    assert reporter.redraws <= 2 * 10 + 3
    plain = Console(file=io.StringIO(), color_system=None, width=100)
    plain.print(reporter.render())
    shown = plain.file.getvalue()
    assert ESC not in shown and "\x07" not in shown
    assert "\\x07bell\\xf0\\x9f (7 bytes, merge 1)" in shown
    assert "2,000 of 2,000 merges" in shown and "1,000 merges/s" in shown and "RSS 48.0 MiB" in shown


def test_finished_event_record_omits_the_model() -> None:
    run = TrainingRun.from_text("low low low lower lower newest", 259)
    finished = [e for e in run.events() if isinstance(e, TrainingFinished)][0]
    assert event_record(finished) == {"event": "finished", "reason": "vocab_size", "merges": 3,
                                      "vocab_size": 259}
