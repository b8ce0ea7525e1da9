"""Builds the real app for tests: pinned theme, frozen clock and RSS probe, a fixed tree root, no blinking.

Pilot tests and snapshot tests both use ``make_app``; a recorded training run (``recorded_run``) stands in
for the training process wherever the test is about what the UI shows rather than about the process, played
back at once (``replay_factory``) or held part-way until the test releases or stops it (``HeldSource``).
"""

from __future__ import annotations

import itertools
import tempfile
import threading
from collections.abc import Awaitable, Callable, Sequence
from functools import cache
from pathlib import Path

from textual import events
from textual.pilot import Pilot
from textual.widgets import Input, TextArea
from textual.worker import WorkerCancelled, WorkerFailed

from bpe_tui.app import BpeTuiApp
from bpe_tui.services import Services
from bpe_tui.session import Session
from bpe_tui.training_process import ReplaySource, SourceEvent, measure
from bpe_tui.training_spec import TrainingSpec
from core.train.events import MergeMade, TrainingFinished
from core.train.run import TrainingRun

ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLES = ROOT / "samples"
CORPUS_ROOT = Path(__file__).resolve().parent.parent / "snapshots" / "corpus_root"
"""A small committed folder the corpus pane's tree shows, so pictures do not depend on the checkout."""
THEME = "textual-dark"
SIZE = (100, 30)


class FrozenProbe:
    """An RSS probe that always reads the same, so no picture shows the machine's memory."""

    def __init__(self, pid: int | None = None, rss: int = 48 << 20, peak: int = 64 << 20) -> None:
        self.pid = pid
        self.rss = rss
        self.peak = peak

    def sample(self) -> int:
        return self.rss


def frozen_clock() -> float:
    return 0.0


@cache
def recorded_run(name: str = "english", vocab_size: int = 400) -> tuple[SourceEvent, ...]:
    """The events of a real in-process run on a sample, plus one bytes/token measurement, as a training
    process would send them. Deterministic, so pictures of it are stable."""
    text = (SAMPLES / f"{name}.txt").read_text(encoding="utf-8")
    events: list[SourceEvent] = []
    run = TrainingRun.from_text(text, vocab_size, ["<|endoftext|>"], workers=1)
    texts = tuple((n, (SAMPLES / f"{n}.txt").read_text(encoding="utf-8")[:20_000]) for n in ("english", "japanese"))
    for event in run.events():
        if isinstance(event, TrainingFinished):
            events.append(measure(event.model, texts))
        events.append(event)
    return tuple(events)


def replay_factory(events: Sequence[SourceEvent]) -> Callable[[TrainingSpec], ReplaySource]:
    """A training source factory that plays ``events`` back for every run (and remembers the specs)."""

    def factory(spec: TrainingSpec) -> ReplaySource:
        factory.specs.append(spec)  # type: ignore[attr-defined]
        return ReplaySource(events, pid=None)

    factory.specs = []  # type: ignore[attr-defined]
    return factory


class HeldSource:
    """A training source that sends ``first`` at once, then ``rest`` only when ``release`` is set.

    Until then it reports nothing new, like a process busy merging; ``cancel`` ends it at once, as
    cancelling the real process does (events it had not sent are lost).
    """

    def __init__(self, first: Sequence[SourceEvent], rest: Sequence[SourceEvent] = ()) -> None:
        self.first = list(first)
        self.rest = list(rest)
        self.release = threading.Event()
        self.cancelled = threading.Event()
        self._sent_first = self._sent_rest = False

    @property
    def pid(self) -> int | None:
        return None

    def start(self) -> None:
        pass

    def poll(self, timeout: float) -> list[SourceEvent] | None:
        if self.cancelled.is_set():
            return None
        if not self._sent_first:
            self._sent_first = True
            return self.first
        if self.release.wait(min(timeout, 0.02)):
            if self._sent_rest:
                return None
            self._sent_rest = True
            return self.rest
        return []

    def cancel(self) -> None:
        self.cancelled.set()


def held_factory(source: HeldSource):
    """A factory giving ``source`` to the first run; later runs get a fresh copy of it (same events)."""
    made: list[HeldSource] = []

    def factory(spec: TrainingSpec) -> HeldSource:
        made.append(source if not made else HeldSource(source.first, source.rest))
        return made[-1]

    return factory


def split_after_merges(count: int) -> tuple[list[SourceEvent], list[SourceEvent]]:
    """The recorded run cut just after its ``count``-th merge."""
    events = list(recorded_run())
    seen = 0
    for index, event in enumerate(events):
        if isinstance(event, MergeMade):
            seen += 1
            if seen == count:
                return events[: index + 1], events[index + 1 :]
    raise AssertionError(f"the recorded run has fewer than {count} merges")


_RECENT_FOLDER = tempfile.TemporaryDirectory(prefix="bpe-tui-recent-")
"""Where the apps of this test process keep their recent-files lists; deleted when the process ends."""

_RECENT_NUMBERS = itertools.count()


def own_recent_store() -> Path:
    """A recent-files list of one app's own, never the user's (``~/.config/bpe-tui/recent.json``)."""
    return Path(_RECENT_FOLDER.name) / f"recent-{next(_RECENT_NUMBERS)}.json"


def make_services(**overrides: object) -> Services:
    """Frozen clock and probe, the fixture tree root, and a recorded run unless told otherwise."""
    options: dict[str, object] = {
        "clock": frozen_clock,
        "probe_factory": lambda pid: FrozenProbe(pid),
        "source_factory": replay_factory(recorded_run()),
        "corpus_root": CORPUS_ROOT,
        # Never the user's own list: a file of this app's own, in a folder removed when the tests end
        # (tests that read the list pass their own under tmp_path).
        "recent_store": own_recent_store(),
    }
    options.update(overrides)
    return Services(**options)  # type: ignore[arg-type]


def make_session(corpus: Path | None = None) -> Session:
    session = Session(samples_dir=SAMPLES)
    session.corpus_path = corpus
    return session


class QuietApp(BpeTuiApp):
    """The real app with text cursors that never blink (a blinking cursor makes pictures flaky)."""

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        # An unfocused Input or TextArea draws no cursor, so stopping the blink on focus is enough.
        if isinstance(event.widget, (Input, TextArea)):
            event.widget.cursor_blink = False


def make_app(
    *,
    session: Session | None = None,
    services: Services | None = None,
    train_on_start: bool = False,
    start_mode: str | None = "corpus",
    tokenizer_paths: Sequence[Path] = (),
    reference_on_start: bool = False,
) -> BpeTuiApp:
    return QuietApp(
        session=session if session is not None else make_session(CORPUS_ROOT / "story.txt"),
        services=services if services is not None else make_services(),
        train_on_start=train_on_start,
        start_mode=start_mode,
        tokenizer_paths=tokenizer_paths,
        theme=THEME,
        reference_on_start=reference_on_start,
    )


def app_on_corpus(corpus: Path | None, root: Path) -> BpeTuiApp:
    """The app on its corpus pane, with ``corpus`` chosen (or none) and the file tree rooted at ``root``."""
    return make_app(session=make_session(corpus), services=make_services(corpus_root=root))


def app_trained_by(
    factory: Callable[[TrainingSpec], object],
    *,
    train_on_start: bool = False,
    start_mode: str | None = "corpus",
    **service_overrides: object,
) -> BpeTuiApp:
    """The app on the fixture story whose runs come from ``factory`` (other services overridable by name).

    Most pilot tests of training differ only in where the events come from; this is their one set-up.
    """
    services = make_services(source_factory=factory, **service_overrides)
    return make_app(services=services, train_on_start=train_on_start, start_mode=start_mode)


def held_app(source: HeldSource, **options: object) -> BpeTuiApp:
    """:func:`app_trained_by` with its first run held by ``source`` (later runs get a copy of it)."""
    return app_trained_by(held_factory(source), **options)  # type: ignore[arg-type]


async def settle(pilot: Pilot, rounds: int = 3) -> None:
    """Wait for workers and the messages they post; handlers may start more workers, so go round again.

    The directory tree's ``_loader`` worker lives as long as the tree, so it is not waited for; workers
    that were cancelled (superseded) or failed count as done.
    """
    for _ in range(rounds):
        for worker in list(pilot.app.workers):
            if worker.group == "_loader":
                continue
            try:
                await worker.wait()
            except (WorkerCancelled, WorkerFailed):
                pass
        await pilot.pause()


async def tree_loaded(pilot: Pilot) -> None:
    """Wait until the corpus pane's directory tree has listed its root (it loads in its own worker)."""
    from textual.widgets import DirectoryTree

    for _ in range(200):
        trees = pilot.app.screen.query(DirectoryTree)
        if not trees or (trees.first().root.children and not trees.first().loading):
            break
        await pilot.pause(0.02)
    await pilot.pause()


async def ready(pilot: Pilot) -> None:
    """Everything a picture needs: workers done, tree listed, notifications (toasts) cleared."""
    await settle(pilot)
    await tree_loaded(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


def after_keys(*keys: str) -> Callable[[Pilot], Awaitable[None]]:
    """A ``run_before`` for snapshot tests: get ready, then press each key and get ready again after it."""

    async def run_before(pilot: Pilot) -> None:
        await ready(pilot)
        for key in keys:
            await pilot.press(key)
            await ready(pilot)

    return run_before
