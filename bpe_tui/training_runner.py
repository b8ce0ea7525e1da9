"""The training runner the app owns: starts one run at a time and turns its events into throttled messages.

``TrainingRunner.follow`` is a generator the app's thread worker iterates, posting each message it yields
to the app; it never touches a widget. What it yields is throttled (``post_interval``, always the first and
the last) because a fast run makes thousands of merges a second and the UI needs about ten updates a
second. Merges are never dropped, they are sent in batches; only progress messages replace each other in
a busy queue. When a run finishes, its ``Tokenizer`` is built here, in the worker's thread, so the UI
thread only has to hand it to the session. A run the user stops keeps the merges the app received (the
ones the dashboard showed): they are built into a tokenizer the same way, recorded as stopped.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from textual.message import Message

from core.corpus import open_corpus
from core.errors import BPEError
from core.model import BPEModel, TrainingInfo
from core.train.events import MergeMade, PhaseProgress, ShardsRead, TrainingFinished
from core.train.memory import RSSProbe

from bpe_tui.services import ProbeFactory, SourceFactory
from bpe_tui.throughput import reading_rate, text_rate
from bpe_tui.session import LoadedTokenizer
from bpe_tui.training_process import (
    MEASURE_MAX_CHARS,
    SamplesMeasured,
    Throttle,
    TrainingFailed,
    TrainingProcess,
    TrainingSource,
    measure,
)
from bpe_tui.training_spec import TrainingSpec

READ_RATE_AFTER_SECONDS = 1.0
"""How long reading runs before its rate so far is reported: the first moments (starting the reading
processes) say little about the rate, as with the dashboard's ETA."""


def trained_name(spec: TrainingSpec, model: BPEModel) -> str:
    """What a tokenizer trained in the app is called in lists: ``"trained: english.txt 1000"``."""
    return f"trained: {spec.label or model.name} {model.vocab_size}"


def stopped_model(spec: TrainingSpec, merges: Sequence[MergeMade]) -> BPEModel:
    """The tokenizer a stopped run made: its special tokens and ``merges`` so far, recorded as stopped.

    ``merges`` are the run's ``MergeMade`` events in rank order, as the app received them. The training
    info is what the run would have recorded, with ``stopped_after`` set; the hash of a corpus file is
    left empty (hashing a large file would hold up the stop) and is filled in when saving
    (:func:`with_corpus_hash`).

    >>> merge = MergeMade(rank=0, left=b"a", right=b"b", new_id=257, count=5, runner_up_count=2, won_tie=False)
    >>> model = stopped_model(TrainingSpec(vocab_size=300, text="ab ab", special_tokens=("<|x|>",)), [merge])
    >>> model.vocab[256], model.vocab[257], model.merges, model.training.stopped_after
    (b'<|x|>', b'ab', [(b'a', b'b')], 1)
    """
    vocab = {i: bytes([i]) for i in range(256)}
    for offset, token in enumerate(spec.special_tokens):
        vocab[256 + offset] = token.encode("utf-8")
    for merge in merges:
        vocab[merge.new_id] = merge.left + merge.right
    if spec.text is not None:
        data = spec.text.encode("utf-8")
        corpus_bytes, corpus_sha256 = len(data), hashlib.sha256(data).hexdigest()
    else:
        corpus_sha256 = ""
        try:  # a folder of shards counts its shards' bytes, as a finished run does
            corpus_bytes = open_corpus(spec.corpus_path).total_bytes if spec.corpus_path is not None else 0
        except (OSError, BPEError):
            corpus_bytes = 0
    info = TrainingInfo(
        vocab_size=spec.vocab_size,
        min_frequency=spec.min_frequency,
        corpus_path=str(spec.corpus_path) if spec.corpus_path is not None else None,
        corpus_bytes=corpus_bytes,
        corpus_sha256=corpus_sha256,
        workers=spec.workers if spec.workers is not None else (os.cpu_count() or 1),
        stopped_after=len(merges),
    )
    stem = spec.corpus_path.stem if spec.corpus_path is not None else "text"
    return BPEModel(
        vocab=vocab,
        merges=[(merge.left, merge.right) for merge in merges],
        special_tokens=list(spec.special_tokens),
        merge_counts=[merge.count for merge in merges],
        merge_runner_ups=[merge.runner_up_count for merge in merges],
        training=info,
        name=f"{stem}-{len(vocab)}",
    )


def with_corpus_hash(model: BPEModel) -> BPEModel:
    """``model`` with the SHA-256 of its corpus file filled in if it was left empty (a stopped run's).

    Reads the whole corpus: call it where a wait is expected (the save worker). A file that can no longer
    be read leaves the hash empty.
    """
    info = model.training
    if info is None or info.corpus_sha256 or info.corpus_path is None:
        return model
    from core.train.reading import file_sha256

    try:
        digest = file_sha256(Path(info.corpus_path))
    except OSError:
        return model
    return dataclasses.replace(model, training=dataclasses.replace(info, corpus_sha256=digest))


@dataclass(frozen=True)
class Run:
    """One started run: its number, what it trains, and the source its events come from."""

    number: int
    spec: TrainingSpec
    source: TrainingSource


class TrainingRunner:
    """Runs one training at a time and reports on it with the messages below.

    ``start`` and ``stop`` are called on the UI thread; ``follow`` runs in a thread worker and only
    yields messages.
    """

    @dataclass
    class RunMessage(Message):
        """Base of every message here; ``run`` numbers the runner's runs, so a handler can drop messages
        from a run that was replaced while they were queued."""

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
        read_rate: float | None = None
        """Bytes per second of the reading phase: its whole rate once it is over, the rate so far while it
        goes on (after a second), None before. Kept here because a short reading phase may end between
        two posts, and a dashboard that saw none of them still shows the estimate it feeds."""
        shards: ShardsRead | None = None
        """The latest shard progress, for a corpus of shards (``None`` for one text file)."""

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
        """The run completed; ``loaded`` holds the trained model and the ``Tokenizer`` already built from it."""

        loaded: LoadedTokenizer
        reason: str
        elapsed: float

        @property
        def model(self) -> BPEModel:
            """The trained tokenizer as data."""
            return self.loaded.model

    @dataclass
    class Failed(Ended):
        """The run stopped on an error (one line, for a notification)."""

        message: str

    @dataclass
    class Stopped(Ended):
        """The run was cancelled by the user. ``loaded`` holds the merges made so far as a tokenizer
        (:func:`stopped_model`), ``None`` if it stopped before its first merge."""

        merges_done: int
        loaded: LoadedTokenizer | None = None

    def __init__(
        self,
        *,
        source_factory: SourceFactory | None = None,
        probe_factory: ProbeFactory | None = None,
        clock: Callable[[], float] = time.monotonic,
        post_interval: float = 0.1,
    ) -> None:
        self._source_factory: SourceFactory = source_factory or TrainingProcess
        self._probe_factory: ProbeFactory = probe_factory or (lambda pid: RSSProbe(pid))
        self._clock = clock
        self._post_interval = post_interval
        self._current: Run | None = None
        self._count = 0

    @property
    def pid(self) -> int | None:
        """The training process's id while a run is in progress."""
        return self._current.source.pid if self._current is not None else None

    def start(self, spec: TrainingSpec) -> Run:
        """Stop any run in progress and prepare one for ``spec``; the caller's worker then ``follow``s it."""
        self.stop()
        self._count += 1
        self._current = Run(self._count, spec, self._source_factory(spec))
        return self._current

    def stop(self) -> None:
        """Cancel the run in progress, if any; ``follow`` then yields ``Stopped``."""
        if self._current is not None:
            self._current.source.cancel()

    def ended(self, run: int) -> None:
        """Forget run ``run`` once its ``Ended`` message has arrived, so ``stop`` no longer cancels it.

        Called on the UI thread: a process that has ended must not be signalled again, its id may be reused.
        """
        if self._current is not None and self._current.number == run:
            self._current = None

    def follow(self, run: Run, cancelled: Callable[[], bool]) -> Iterator[RunMessage]:
        """Start ``run``'s source and yield throttled messages until it ends; the last one is an ``Ended``.

        ``cancelled`` is polled between batches (the worker's ``is_cancelled``): the source is then
        cancelled and the run ends with ``Stopped``.
        """
        number, spec, source = run.number, run.spec, run.source
        clock = self._clock
        throttle = Throttle(self._post_interval, clock)
        started = clock()
        try:
            source.start()
        except Exception as error:  # noqa: BLE001 - e.g. no more processes: report, never crash
            yield self.Failed(number, spec, f"could not start training: {error}")
            return
        probe = self._probe_factory(source.pid)
        yield self.Started(number, spec)
        phase, done, total = "reading", 0, 0
        phase_started = started
        pending: list[MergeMade] = []
        made: list[MergeMade] = []
        merges_done = 0
        outcome: TrainingRunner.Ended | None = None
        dirty = True
        rss = 0
        read_rate: float | None = None  # the reading phase's, once it is over
        shards: ShardsRead | None = None

        def flush() -> Iterator[TrainingRunner.RunMessage]:
            nonlocal pending, dirty, rss
            if pending:
                yield self.MergesReceived(number, tuple(pending))
                pending = []
            now = clock()
            # A process that has just exited reads as 0: keep showing its last size instead.
            rss = probe.sample() or rss
            rate_now = read_rate
            if phase == "reading":
                rate_now = text_rate(reading_rate(done, total, now - phase_started,
                                                  settle_seconds=READ_RATE_AFTER_SECONDS), shards, done)
            yield self.Progressed(
                number, phase, done, total, merges_done, now - started, now - phase_started, rss, probe.peak,
                rate_now, shards,
            )
            dirty = False

        while True:
            if cancelled():
                source.cancel()
                break
            batch = source.poll(0.05)
            if batch is None:
                break
            for event in batch:
                if isinstance(event, MergeMade):
                    pending.append(event)
                    made.append(event)
                    merges_done = event.rank + 1
                    done += 1
                elif isinstance(event, PhaseProgress):
                    if event.phase != phase:
                        now = clock()
                        if phase == "reading":
                            read_rate = text_rate(reading_rate(total, total, now - phase_started, settle_seconds=0.0),
                                                  shards, total)
                        phase, phase_started = event.phase, now
                    done, total = event.done, event.total
                elif isinstance(event, ShardsRead):
                    shards = event
                elif isinstance(event, SamplesMeasured):
                    yield self.SamplesMeasured(number, event)
                elif isinstance(event, TrainingFinished):
                    outcome = self._finished(number, spec, event, clock() - started)
                elif isinstance(event, TrainingFailed):
                    outcome = self.Failed(number, spec, event.message)
                dirty = True
            if dirty and throttle.ready():
                yield from flush()
        yield from flush()
        if outcome is None:
            outcome = self._stopped(number, spec, made)
            measured = self._measure_stopped(outcome)
            if measured is not None:
                yield self.SamplesMeasured(number, measured)
        yield outcome

    def _stopped(self, number: int, spec: TrainingSpec, made: list[MergeMade]) -> TrainingRunner.Stopped:
        """``Stopped`` with the merges so far built into a tokenizer, here in the worker like ``_finished``."""
        if not made:
            return self.Stopped(number, spec, 0)
        try:
            model = stopped_model(spec, made)
            loaded = LoadedTokenizer.from_model(model, name=f"{trained_name(spec, model)} (stopped)")
        except Exception:  # noqa: BLE001 - the stop itself must still be reported; there is just nothing to save
            loaded = None
        return self.Stopped(number, spec, len(made), loaded)

    def _measure_stopped(self, stopped: TrainingRunner.Stopped) -> SamplesMeasured | None:
        """Bytes/token of the samples with a stopped run's tokenizer, as the training process measures them.

        The last measurement the process sent was taken some merges before the stop; measured again, the
        dashboard's bytes/token line names the merges the run really reached (``None`` if it cannot).
        """
        if stopped.loaded is None or not stopped.spec.measure_texts:
            return None
        texts = tuple((name, text[:MEASURE_MAX_CHARS]) for name, text in stopped.spec.measure_texts)
        try:
            return measure(stopped.loaded.model, texts)
        except Exception:  # noqa: BLE001 - a measurement is a nicety; the stop is reported regardless
            return None

    def _finished(
        self, number: int, spec: TrainingSpec, event: TrainingFinished, elapsed: float
    ) -> TrainingRunner.Ended:
        """``Finished`` with the ``Tokenizer`` built, here in the worker: it takes a tenth of a second for a
        50k vocabulary, which the UI thread would spend frozen."""
        try:
            loaded = LoadedTokenizer.from_model(event.model, name=trained_name(spec, event.model))
        except Exception as error:  # noqa: BLE001 - reported like any other failed run
            reason = f"could not build the trained tokenizer: {type(error).__name__}: {error}"
            return self.Failed(number, spec, reason)
        return self.Finished(number, spec, loaded, event.reason, elapsed)
