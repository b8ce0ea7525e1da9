"""Runs a ``core.train.run.TrainingRun`` in a separate process and hands its events back in batches.

The pure-Python trainer holds the GIL for seconds at a time, so running it in a thread would freeze the
UI. Here it runs in its own process (``spawn``, so the child inherits none of the app's threads or
terminal state) and sends lists of events through a ``multiprocessing`` queue about every 50 ms; the
app's thread worker drains the queue and throttles what it posts to the UI. Nothing here imports
Textual: the child imports this module too.

The trainer forks reading workers of its own (``core.train.worker_pool``), so ``cancel`` terminates the whole
process tree itself, and an ``atexit`` hook does the same for any run still alive when the app exits.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import queue as queue_module
import sys
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import psutil

from bpe_tui.training_spec import TrainingSpec, training_run
from core.train.events import MergeMade, TrainingEvent, TrainingFinished
from core.model import BPEModel

BATCH_SECONDS = 0.05
"""The child sends what it has at most this often (and at every phase change and at the end)."""

MEASURE_SECONDS = 1.0
"""How often the child re-measures bytes/token of the samples with the tokenizer so far."""

CHILD_NICENESS = 5
"""How much the training process lowers its scheduling priority (its pool workers inherit it)."""

MEASURE_MAX_CHARS = 20_000
"""Samples are cut to this length before measuring, so a measurement costs the trainer little."""


@dataclass(frozen=True, slots=True)
class SamplesMeasured:
    """Bytes per token of each measured sample after ``merges_done`` merges."""

    merges_done: int
    bytes_per_token: tuple[tuple[str, float], ...]


@dataclass(frozen=True, slots=True)
class TrainingFailed:
    """The run stopped on an error; ``message`` is one line for the user."""

    message: str


SourceEvent = TrainingEvent | SamplesMeasured | TrainingFailed
"""What a ``TrainingSource`` yields: the core's events plus measurements and failures."""


class TrainingSource(Protocol):
    """Where the app's worker gets events from: a real process, or a recording in tests."""

    @property
    def pid(self) -> int | None: ...

    def start(self) -> None: ...

    def poll(self, timeout: float) -> list[SourceEvent] | None:
        """The events that arrived within ``timeout`` seconds (maybe none), or ``None`` once the run is over."""

    def cancel(self) -> None: ...


def measure(model: BPEModel, texts: Sequence[tuple[str, str]]) -> SamplesMeasured:
    """Bytes per token of each text with ``model`` (the tokenizer so far)."""
    from core.encode.tokenizer import Tokenizer

    tokenizer = Tokenizer.from_model(model)
    results = []
    for name, text in texts:
        ids = tokenizer.encode(text)
        results.append((name, len(text.encode("utf-8")) / len(ids) if ids else 0.0))
    return SamplesMeasured(len(model.merges), tuple(results))


def _measured(model: BPEModel, texts: Sequence[tuple[str, str]]) -> list[SamplesMeasured]:  # pragma: no cover
    """``measure``, or nothing if it fails: a measurement is a nicety and must never end the run."""
    try:
        return [measure(model, texts)]
    except Exception:  # noqa: BLE001
        return []


@contextlib.contextmanager
def failures_sent(events: multiprocessing.Queue, *, doing: str, smaller: str) -> Iterator[None]:
    """In a child process: send any error as one ``TrainingFailed`` line, and always end with ``None``.

    Args:
        events: the queue to the app.
        doing: what failed, for unexpected errors (``"training"``).
        smaller: what to try when memory ran out (``"a smaller corpus or vocab size"``).
    """
    from core.errors import BPEError

    try:
        yield
    except BPEError as error:
        events.put([TrainingFailed(str(error))])
    except MemoryError:
        events.put([TrainingFailed(f"out of memory; try {smaller}")])
    except Exception as error:  # noqa: BLE001 - anything else still reaches the user as one line
        events.put([TrainingFailed(f"{doing} failed: {type(error).__name__}: {error}")])
    finally:
        events.put(None)


def _child_main(spec: TrainingSpec, events: multiprocessing.Queue) -> None:  # pragma: no cover - in child
    """Body of the training process: run, batch events, measure now and then, always end with ``None``."""
    silence_output()
    try:
        # The trainer and its pool use every core they get; a lower priority keeps the app's keys and
        # redraws prompt when cores are short, at little cost to the run when they are not.
        os.nice(CHILD_NICENESS)
    except OSError:
        pass
    texts = tuple((name, text[:MEASURE_MAX_CHARS]) for name, text in spec.measure_texts)
    with failures_sent(events, doing="training", smaller="a smaller corpus or vocab size"):
        run = training_run(spec)
        batch: list[SourceEvent] = []
        last_sent = time.monotonic()
        next_measure = last_sent + MEASURE_SECONDS
        for event in run.events():
            now = time.monotonic()
            if isinstance(event, TrainingFinished) and texts:
                batch.extend(_measured(event.model, texts))
            batch.append(event)
            if isinstance(event, MergeMade) and texts and now >= next_measure:
                batch.extend(_measured(run.result(), texts))
                # Never spend more than a tenth of the run measuring, however big the vocabulary gets.
                spent = time.monotonic() - now
                next_measure = now + max(MEASURE_SECONDS, 10 * spent)
            if not isinstance(event, MergeMade) or now - last_sent >= BATCH_SECONDS:
                events.put(batch)
                batch = []
                last_sent = now
        if batch:
            events.put(batch)


def _ensure_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with a real stderr.

    The tracker is started on first use and passes ``sys.stderr.fileno()`` to its process; inside a
    Textual app ``sys.stderr`` is a capture object without a usable descriptor, which makes starting it
    fail with "bad value(s) in fds_to_keep". Its only output is leak warnings, so it gets /dev/null.
    """
    from multiprocessing import resource_tracker

    saved = sys.stderr
    with open(os.devnull, "w") as devnull:
        sys.stderr = devnull
        try:
            resource_tracker.ensure_running()
        finally:
            sys.stderr = saved


def silence_output() -> None:  # pragma: no cover - in child
    """Point the child's stdout and stderr at /dev/null: it shares the app's terminal, and any stray
    warning or traceback printed there would scribble over the UI. Errors travel through the queue."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)


_live: weakref.WeakSet[ChildProcess] = weakref.WeakSet()


@atexit.register
def _cancel_live_runs() -> None:
    for process in list(_live):
        process.cancel()


class ChildProcess:
    """Long work in a spawned child process that sends lists of events through a queue and ends with
    ``None``; implements ``TrainingSource``. Subclasses say what the child runs (:meth:`child_main`)."""

    CHILD_NAME = "bpe-tui-child"

    def __init__(self, spec: object, *, context: str = "spawn") -> None:
        self.spec = spec
        self._context = multiprocessing.get_context(context)
        self._queue: multiprocessing.Queue | None = None
        self._process: multiprocessing.process.BaseProcess | None = None
        self._ended = False
        self._cancelled = False

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def child_main(self) -> Callable[..., None]:
        """The top-level function the child runs with ``(spec, queue)``; it must end by putting ``None``."""
        raise NotImplementedError

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def start(self) -> None:
        _ensure_resource_tracker()
        self._queue = self._context.Queue()
        self._process = self._context.Process(
            target=self.child_main(), args=(self.spec, self._queue), name=self.CHILD_NAME
        )
        self._process.start()
        _live.add(self)

    def poll(self, timeout: float) -> list[SourceEvent] | None:
        if self._ended or self._queue is None or self._process is None:
            return None
        if self._cancelled:
            self._finish()
            return None
        try:
            batch = self._queue.get(timeout=timeout)
        except queue_module.Empty:
            if self._process.is_alive():
                return []
            # Dead without its final ``None``: killed from outside, or crashed hard.
            try:
                batch = self._queue.get(timeout=0.1)
            except queue_module.Empty:
                self._finish()
                if self._cancelled:
                    return None
                code = self._process.exitcode
                return [TrainingFailed(f"the training process stopped unexpectedly (exit code {code})")]
        except (EOFError, OSError):
            self._finish()
            return None
        if batch is None:
            self._finish()
            return None
        return batch

    def _finish(self) -> None:
        self._ended = True
        if self._process is not None:
            self._process.join(timeout=2.0)
        _live.discard(self)

    def cancel(self) -> None:
        """Stop the run now: terminate the child and its pool workers, kill any that linger.

        Safe to call from any thread and more than once. The child never writes files, so nothing partial
        is left behind.
        """
        self._cancelled = True
        process = self._process
        if process is None or process.pid is None:
            return
        try:
            children = psutil.Process(process.pid).children(recursive=True)
        except psutil.Error:
            children = []
        # The trainer first: otherwise its pool would replace the workers we stop.
        if process.is_alive():
            process.terminate()
        for child in children:
            try:
                child.terminate()
            except psutil.Error:
                pass
        process.join(timeout=1.0)
        if process.is_alive():
            process.kill()
            process.join(timeout=1.0)
        for child in _still_running(children, timeout=1.0):
            try:
                child.kill()
            except psutil.Error:
                pass
        _live.discard(self)


class TrainingProcess(ChildProcess):
    """A training run in a child process; implements ``TrainingSource``.

    >>> process = TrainingProcess(TrainingSpec(vocab_size=259, text="low low low lower lower newest"))
    >>> process.start()
    >>> events = []
    >>> while (batch := process.poll(5.0)) is not None:
    ...     events.extend(batch)
    >>> [e.token for e in events if isinstance(e, MergeMade)]
    [b'ow', b'low', b' low']
    """

    CHILD_NAME = "bpe-tui-training"

    def __init__(self, spec: TrainingSpec, *, context: str = "spawn") -> None:
        super().__init__(spec, context=context)
        self.spec: TrainingSpec = spec

    def child_main(self) -> Callable[..., None]:
        return _child_main


def _still_running(processes: list[psutil.Process], *, timeout: float) -> list[psutil.Process]:
    """Wait up to ``timeout`` for ``processes`` to end; return those still running.

    A zombie counts as ended: orphaned pool workers are reaped by init, which in a container may never
    happen, and ``psutil.wait_procs`` would wait out the whole timeout for them.
    """
    deadline = time.monotonic() + timeout
    while True:
        running = []
        for process in processes:
            try:
                if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                    running.append(process)
            except psutil.Error:
                pass
        if not running or time.monotonic() >= deadline:
            return running
        time.sleep(0.02)


class ReplaySource:
    """A recorded run played back instantly: deterministic input for tests and snapshots.

    ``poll`` returns everything at once, then ``None``.
    """

    def __init__(self, events: Sequence[SourceEvent], *, pid: int | None = None) -> None:
        self._events = list(events)
        self._pid = pid
        self._done = False
        self.started = False
        self.cancelled = False

    @property
    def pid(self) -> int | None:
        return self._pid

    def start(self) -> None:
        self.started = True

    def poll(self, timeout: float) -> list[SourceEvent] | None:
        if self._done or self.cancelled:
            return None
        self._done = True
        return self._events

    def cancel(self) -> None:
        self.cancelled = True


class Throttle:
    """Says when enough time has passed to post again; the first call is always ready.

    >>> t = Throttle(0.1, clock=iter([0.0, 0.05, 0.2]).__next__)
    >>> [t.ready(), t.ready(), t.ready()]
    [True, False, True]
    """

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self.clock = clock
        self._last: float | None = None

    def ready(self) -> bool:
        now = self.clock()
        if self._last is None or now - self._last >= self.interval:
            self._last = now
            return True
        return False
