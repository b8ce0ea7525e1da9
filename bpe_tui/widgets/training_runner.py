"""An invisible widget that owns the training run: starts the source, follows it in a thread, posts messages.

The worker only reads the source and posts; it never touches another widget. What it posts is throttled
(``post_interval``, always the first and the last) because a fast run makes thousands of merges a second
and the UI needs about ten updates a second. Merges are never dropped, they are sent in batches; only
progress messages replace each other in a busy queue.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from textual import on, work
from textual.message import Message
from textual.widget import Widget
from textual.worker import get_current_worker

from core.train.events import MergeMade, PhaseProgress, TrainingFinished
from core.train.memory import RSSProbe
from core.model import BPEModel

from bpe_tui.training_process import (
    SamplesMeasured,
    Throttle,
    TrainingFailed,
    TrainingProcess,
    TrainingSource,
    TrainingSpec,
)


class Probe(Protocol):
    """What the runner needs from an RSS probe (``core.train.memory.RSSProbe`` or a frozen one in tests)."""

    peak: int

    def sample(self) -> int: ...


SourceFactory = Callable[[TrainingSpec], TrainingSource]
ProbeFactory = Callable[[int | None], Probe]


class TrainingRunner(Widget):
    """Runs one training at a time and reports on it with the messages below."""

    DEFAULT_CSS = "TrainingRunner { display: none; }"

    @dataclass
    class RunMessage(Message):
        """Base of every message here; ``run`` numbers this runner's runs, so a handler can drop messages
        from a run that was replaced while they were queued (``message.run != runner.run``)."""

        run: int

    @dataclass
    class Started(RunMessage):
        """A run began."""

        spec: TrainingSpec

    @dataclass
    class Progressed(RunMessage):
        """Where the run is; a newer one replaces an unhandled older one."""

        phase: str
        done: int
        total: int
        merges_done: int
        elapsed: float
        phase_elapsed: float
        rss: int
        peak_rss: int

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, TrainingRunner.Progressed) and message.run == self.run

    @dataclass
    class MergesReceived(RunMessage):
        """Merges made since the last batch, in rank order."""

        merges: tuple[MergeMade, ...]

    @dataclass
    class SamplesMeasured(RunMessage):
        """Bytes/token of the samples re-measured with the tokenizer so far."""

        measured: SamplesMeasured

    @dataclass
    class Ended(RunMessage):
        """Base of the three ways a run ends."""

        spec: TrainingSpec

    @dataclass
    class Finished(Ended):
        """The run completed; ``model`` is the trained tokenizer."""

        model: BPEModel
        reason: str
        elapsed: float

    @dataclass
    class Failed(Ended):
        """The run stopped on an error (one line, for a notification)."""

        message: str

    @dataclass
    class Stopped(Ended):
        """The run was cancelled by the user; nothing was kept."""

        merges_done: int

    def __init__(
        self,
        *,
        source_factory: SourceFactory | None = None,
        probe_factory: ProbeFactory | None = None,
        clock: Callable[[], float] = time.monotonic,
        post_interval: float = 0.1,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._source_factory: SourceFactory = source_factory or TrainingProcess
        self._probe_factory: ProbeFactory = probe_factory or (lambda pid: RSSProbe(pid))
        self._clock = clock
        self._post_interval = post_interval
        self._source: TrainingSource | None = None
        self._run = 0

    @property
    def run(self) -> int:
        """The number of the latest run (0 before any)."""
        return self._run

    @property
    def running(self) -> bool:
        """Whether a run is in progress (started and not yet finished, failed or stopped)."""
        return self._source is not None

    @property
    def pid(self) -> int | None:
        """The training process's id while a run is in progress."""
        return self._source.pid if self._source is not None else None

    def start(self, spec: TrainingSpec) -> None:
        """Start ``spec``, stopping any run in progress first (the worker is exclusive)."""
        self.stop()
        source = self._source_factory(spec)
        self._source = source
        self._run += 1
        self._follow(source, spec, self._run)

    def stop(self) -> None:
        """Cancel the run in progress, if any; its worker then posts ``Stopped``."""
        if self._source is not None:
            self._source.cancel()

    def on_unmount(self) -> None:
        self.stop()

    @on(Ended)
    def _forget_ended_run(self, message: Ended) -> None:
        # Runs on the UI thread as the outcome passes through on its way to the screen.
        if message.run == self._run:
            self._source = None

    @work(thread=True, exclusive=True, exit_on_error=False, group="training")
    def _follow(self, source: TrainingSource, spec: TrainingSpec, run: int) -> None:
        """Start ``source`` and turn its events into throttled messages until it ends."""
        worker = get_current_worker()
        clock = self._clock
        throttle = Throttle(self._post_interval, clock)
        started = clock()
        try:
            source.start()
        except Exception as error:  # noqa: BLE001 - e.g. no more processes: report, never crash
            self.post_message(self.Failed(run, spec, f"could not start training: {error}"))
            return
        probe = self._probe_factory(source.pid)
        self.post_message(self.Started(run, spec))
        phase, done, total = "reading", 0, 0
        phase_started = started
        pending: list[MergeMade] = []
        merges_done = 0
        outcome: Message | None = None
        dirty = True
        rss = 0

        def flush() -> None:
            nonlocal pending, dirty
            if pending:
                self.post_message(self.MergesReceived(run, tuple(pending)))
                pending = []
            nonlocal rss
            now = clock()
            # A process that has just exited reads as 0: keep showing its last size instead.
            rss = probe.sample() or rss
            self.post_message(
                self.Progressed(
                    run, phase, done, total, merges_done, now - started, now - phase_started, rss, probe.peak
                )
            )
            dirty = False

        while True:
            if worker.is_cancelled:
                source.cancel()
                break
            batch = source.poll(0.05)
            if batch is None:
                break
            for event in batch:
                if isinstance(event, MergeMade):
                    pending.append(event)
                    merges_done = event.rank + 1
                    done += 1
                elif isinstance(event, PhaseProgress):
                    if event.phase != phase:
                        phase, phase_started = event.phase, clock()
                    done, total = event.done, event.total
                elif isinstance(event, SamplesMeasured):
                    self.post_message(self.SamplesMeasured(run, event))
                elif isinstance(event, TrainingFinished):
                    outcome = self.Finished(run, spec, event.model, event.reason, clock() - started)
                elif isinstance(event, TrainingFailed):
                    outcome = self.Failed(run, spec, event.message)
                dirty = True
            if dirty and throttle.ready():
                flush()
        flush()
        if outcome is None:
            outcome = self.Stopped(run, spec, merges_done)
        self.post_message(outcome)
