"""The Textual app: one mode per pane, global bindings, the command palette, loading files, training.

The app owns what panes share and the long work: the ``Session`` (tokenizers, corpus), the ``Services``,
the ``TrainingRunner`` with the ``TrainingState`` of the current run, and saving what a run made. It builds
each pane's screen with the parts that screen reads. Panes ask for work by posting messages (the corpus
pane's ``TrainingRequested``, the dashboard's stop / run again / save requests); the app tells them of
changes with ``SessionChanged`` (every pane) and ``TrainingChanged`` (the dashboard).

Nothing modal opens unless the user asks: a run that ends says so in a notification (and that ctrl+s,
an app-wide key, saves it); the save dialog appears only on ctrl+s, so typing into a pane is never
diverted into a file name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.content import Content
from textual.filter import LineFilter, Monochrome
from textual.message import Message
from textual.screen import Screen
from textual.widget import AwaitMount
from textual.widgets import Input, TextArea
from textual.worker import Worker, get_current_worker

from bpe_tui.console_glyphs import console_filters
from bpe_tui.control_filter import ControlCharacters
from bpe_tui.gc_pauses import full_collections_held_back, settle_heap
from bpe_tui.no_color import TokenGreys
from bpe_tui.messages import SessionChanged, TrainingChanged
from bpe_tui.file_opening import REFERENCE_GROUP, ask_for_file, bundled_gpt2, file_read, reference_tokenizers
from bpe_tui.file_reading import read_opened_file, read_tokenizer
from bpe_tui.opened_ids import DecodedIds
from bpe_tui.pane_commands import PaneCommands
from bpe_tui.panes import PANES, Pane
from bpe_tui.screens.boundaries import BoundariesScreen
from bpe_tui.screens.compare import CompareScreen
from bpe_tui.screens.corpus import CorpusScreen
from bpe_tui.screens.dashboard import DashboardScreen
from bpe_tui.screens.help import HelpScreen
from bpe_tui.screens.inspector import InspectorScreen
from bpe_tui.screens.lenses import LensesScreen
from bpe_tui.screens.path_dialog import PathDialog
from bpe_tui.screens.stepper import StepperScreen
from bpe_tui.screens.study import StudyScreen
from bpe_tui.services import Services
from bpe_tui.session import LoadedTokenizer, Session, find_samples_dir
from bpe_tui.startup_run import startup_spec
from bpe_tui.text import counted, shown_text
from bpe_tui.theme_marks import ReadableMarks
from bpe_tui.training_spec import TrainingSpec
from bpe_tui.training_runner import Run, TrainingRunner
from bpe_tui.training_state import TrainedTokenizer, TrainingState


TEXT_FIELDS = (Input, TextArea)
"""Widgets that take printable keys as text, so pane keys do not reach the app while one is focused."""


class BpeTuiApp(ReadableMarks):
    """Train, watch and inspect byte-level BPE tokenizers."""

    @dataclass
    class Saved(Message):
        """A trained tokenizer was written to ``path`` (atomically)."""

        trained: TrainedTokenizer
        path: Path

    @dataclass
    class SaveFailed(Message):
        """Saving to ``path`` failed; ``reason`` is one line that names the path."""

        path: Path
        reason: str

    TITLE = "bpe-tui"
    CSS_PATH = Path(__file__).parent / "app.tcss"
    COMMANDS = App.COMMANDS | {PaneCommands}
    BINDINGS = [
        *(
            Binding(pane.key, f"switch_mode('{pane.mode}')", pane.title, tooltip=pane.description)
            for pane in PANES
        ),
        Binding("question_mark,f1", "help", "Help"),
        Binding("ctrl+o", "open_tokenizer", "Open tokenizer", show=False),
        Binding("ctrl+s", "save", "Save the last trained tokenizer", show=False),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self,
        *,
        session: Session | None = None,
        services: Services | None = None,
        tokenizer_paths: Sequence[Path] = (),
        train_on_start: bool = True,
        start_mode: str | None = None,
        theme: str | None = None,
        reference_on_start: bool = False,
    ) -> None:
        """Build the app.

        Args:
            session: the shared state; a fresh one pointing at the bundled samples by default.
            services: clock, RSS probe, training source and tree root (tests pass frozen ones).
            tokenizer_paths: tokenizer files to load after start-up (errors become notifications).
            train_on_start: train a small tokenizer on the samples at start-up unless files were given.
            start_mode: the pane to open on; by default the dashboard (start-up run) or the inspector.
            theme: a Textual theme name; tests pin one so snapshots do not depend on the default.
            reference_on_start: load GPT-2 (bundled in the samples) at start-up without making it active,
                so Compare shows the first trained tokenizer beside a known one.
        """
        super().__init__()
        self._token_greys = TokenGreys(sixteen_colours=self.console.color_system in ("standard", "windows"))
        """Replaces Textual's ``Monochrome`` filter under ``NO_COLOR`` (see :mod:`bpe_tui.no_color`)."""
        self._last_filters = (ControlCharacters(), *console_filters(self.console.color_system, no_color=self.no_color))
        self.session = session if session is not None else Session(samples_dir=find_samples_dir())
        self.services = services if services is not None else Services()
        self.runner = TrainingRunner(
            source_factory=self.services.source_factory,
            probe_factory=self.services.probe_factory,
            clock=self.services.clock,
            post_interval=self.services.post_interval,
        )
        """Starts runs and reports on them; the app's ``_follow`` worker drives it."""
        self.training = TrainingState()
        """The current run as reported so far; the dashboard draws it."""
        self._tokenizer_paths = list(tokenizer_paths)
        self._train_on_start = train_on_start and not tokenizer_paths
        self._start_mode = start_mode
        self._reference_on_start = reference_on_start
        if theme is not None:
            self.theme = theme
        self._panes: dict[str, Screen] = {}
        """The pane screens built so far, by mode: each hears of every session change, the dashboard of training."""
        self._showing_built_pane = False
        """Set while ``switch_mode`` shows a pane built before (see ``delay_update``)."""
        for pane in PANES:
            self.add_mode(pane.mode, partial(self._build_pane, pane))
        self.session.subscribe(self._session_changed)

    def switch_mode(self, mode: str) -> AwaitMount:
        """Show pane ``mode``; a pane left with focus in a text field gets its main view focused instead.

        Pane keys are plain digits: with focus back in a field they would be typed into it (a vocab size
        of ``6400023456``). Only a user editing a field should hold it, so focus never returns there
        by itself; the screen's ``AUTO_FOCUS`` widget takes it as the pane resumes.
        """
        self._showing_built_pane = mode in self._panes
        try:
            shown = super().switch_mode(mode)
        finally:
            self._showing_built_pane = False
        screen = self.screen
        if isinstance(screen.focused, TEXT_FIELDS):
            screen.set_focus(None)
        return shown

    def delay_update(self, delay: float = 0.05) -> None:
        """Hold back drawing for ``delay`` seconds, except when switching to a pane already built.

        Textual's ``switch_mode`` holds drawing back 50 ms to hide a screen still being composed. A pane
        built on an earlier visit has nothing to hide, and the wait was most of the time from a pane key to
        the pane on screen (``benchmarks/README.md``). A pane's first visit keeps it.
        """
        if not self._showing_built_pane:
            super().delay_update(delay)

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's (token greys under ``NO_COLOR``), :class:`ControlCharacters`, the Linux console's glyphs."""
        filters = super().get_line_filters()
        if self.no_color:
            filters = [self._token_greys if type(line_filter) is Monochrome else line_filter for line_filter in filters]
        return [*filters, *self._last_filters]

    def _build_pane(self, pane: Pane) -> Screen:
        """Build ``pane``'s screen with what it reads (Textual calls this when the mode first opens)."""
        session = self.session
        builders: dict[type[Screen], Callable[[], Screen]] = {
            CorpusScreen: lambda: CorpusScreen(
                session, corpus_root=self.services.corpus_root, recent_store=self.services.recent_store
            ),
            DashboardScreen: lambda: DashboardScreen(self.training),
            StepperScreen: lambda: StepperScreen(session),
            BoundariesScreen: lambda: BoundariesScreen(session),
            InspectorScreen: lambda: InspectorScreen(session),
            CompareScreen: lambda: CompareScreen(session),
            LensesScreen: lambda: LensesScreen(session),
            StudyScreen: lambda: StudyScreen(session),
        }
        screen = builders[pane.screen]()
        # Its widgets take the stylesheet as it is now as they mount: marked so, Textual does not re-read
        # and re-apply every stylesheet (twice) before showing it, most of a first visit's time.
        screen._css_update_count = self._css_update_count
        self._panes[pane.mode] = screen
        self.call_after_refresh(settle_heap)  # a pane's widgets live as long as the app: settle once it is drawn
        return screen

    async def on_mount(self) -> None:
        mode = self._start_mode or (
            "dashboard" if self._train_on_start else "inspector" if self._tokenizer_paths else "corpus"
        )
        await self.switch_mode(mode)  # building the pane settles the heap once it is drawn
        for path in self._tokenizer_paths:
            self.load_tokenizer_file(path)
        gpt2 = bundled_gpt2(self.session.samples_dir)
        if self._reference_on_start and gpt2 is not None:
            self.run_worker(partial(read_tokenizer, gpt2), name=str(gpt2), group=REFERENCE_GROUP, thread=True,
                            exit_on_error=False)
        if self._train_on_start:
            spec = self.startup_spec()
            if spec is None:
                self.notify("Bundled samples not found: pick a corpus to train on.", severity="warning")
            else:
                self.start_training(spec)

    def startup_spec(self) -> TrainingSpec | None:
        """The quick run over the samples that gives every pane a tokenizer at once (:mod:`bpe_tui.startup_run`)."""
        return startup_spec(self.session)

    # -- training -----------------------------------------------------------------------------------------

    def start_training(self, spec: TrainingSpec) -> None:
        """Train ``spec`` in the app's training worker, stopping any run in progress."""
        run = self.runner.start(spec)
        self.training.begin(run.number, spec)
        self._follow(run)
        self._training_changed()

    @work(thread=True, exclusive=True, exit_on_error=False, group="training")
    def _follow(self, run: Run) -> None:
        """Iterate the run in a thread, posting what it reports to the app; it never touches a widget."""
        worker = get_current_worker()
        try:
            with full_collections_held_back():
                for message in self.runner.follow(run, lambda: worker.is_cancelled):
                    self.post_message(message)
        except Exception as error:  # noqa: BLE001 - a run that ends without news would look busy for ever
            run.source.cancel()
            reason = f"training failed: {type(error).__name__}: {error}"
            self.post_message(TrainingRunner.Failed(run.number, run.spec, reason))

    def _training_changed(self) -> None:
        dashboard = self._panes.get("dashboard")
        if dashboard is not None:
            dashboard.post_message(TrainingChanged())

    @on(TrainingRunner.RunMessage)
    def _run_reported(self, message: TrainingRunner.RunMessage) -> None:
        if isinstance(message, TrainingRunner.Ended):
            self.runner.ended(message.run)
        if message.run != self.training.run:
            return  # news from a run that was replaced while it was queued
        self.training.record(message)
        if isinstance(message, TrainingRunner.Finished):
            self._keep_trained(message)
        elif isinstance(message, TrainingRunner.Failed):
            self.notify(shown_text(message.message), title="Training failed", severity="error", timeout=10, markup=False)
        elif isinstance(message, TrainingRunner.Stopped):
            self._keep_stopped(message)
        self._training_changed()
        if isinstance(message, TrainingRunner.Ended):
            self.call_after_refresh(settle_heap)  # the run's merges and tokenizer, once the end is drawn

    def _keep_trained(self, message: TrainingRunner.Finished) -> None:
        """Hand a finished run's tokenizer (built in the worker) to the session and say that ctrl+s saves it.

        Only a notification: a dialog opened here would take the keys of whatever the user is typing.
        """
        index = self.session.add_tokenizer(message.loaded)
        self.training.trained = TrainedTokenizer(message.spec, self.session.tokenizers[index], index)
        model = message.model
        progress = self.training.progress
        shards = progress.shards if progress is not None else None
        skipped = f" Skipped {counted(shards.skipped, 'bad record')}." if shards is not None and shards.skipped else ""
        self.notify(
            f"{counted(len(model.merges), 'merge')}, vocab {model.vocab_size:,}.{skipped} Every pane can use it "
            "now; ctrl+s saves it.",
            title="Training finished",
            markup=False,
        )

    def _keep_stopped(self, message: TrainingRunner.Stopped) -> None:
        """Keep a stopped run's merges so far (built in the worker) as what ctrl+s saves.

        It joins the session's tokenizers without becoming the active one: the panes keep showing the
        tokenizer they showed, and the partial one is a ctrl+p away.
        """
        if message.loaded is None:
            self.training.trained = None
            self.notify("Stopped before the first merge; nothing to save.", title="Training stopped", markup=False)
            return
        index = self.session.add_tokenizer(message.loaded, activate=False)
        self.training.trained = TrainedTokenizer(message.spec, self.session.tokenizers[index], index)
        self.notify(
            f"Stopped after {counted(message.merges_done, 'merge')}; ctrl+s saves them (recorded as stopped).",
            title="Training stopped",
            markup=False,
        )

    @on(CorpusScreen.TrainingRequested)
    async def _training_requested(self, message: CorpusScreen.TrainingRequested) -> None:
        self.start_training(message.spec)
        await self.switch_mode("dashboard")
        if message.warning is not None:
            self.notify(shown_text(message.warning), title="Markers trained as text", severity="warning", timeout=10, markup=False)

    @on(BoundariesScreen.InspectRequested)
    async def _inspect_requested(self, message: BoundariesScreen.InspectRequested) -> None:
        """Enter on a token in the workbench: the Inspector, on that token's row and merge tree."""
        await self.switch_mode("inspector")
        inspector = self._panes.get("inspector")
        if isinstance(inspector, InspectorScreen):
            inspector.show_token(message.token_id)

    @on(DashboardScreen.StopRequested)
    def _stop_requested(self) -> None:
        self.runner.stop()

    @on(DashboardScreen.RestartRequested)
    def _restart_requested(self) -> None:
        if self.training.spec is not None and not self.training.running:
            self.start_training(self.training.spec)

    @on(DashboardScreen.SaveRequested)
    def _save_requested(self) -> None:
        self.save_trained()

    def on_unmount(self) -> None:
        self.runner.stop()

    # -- saving -------------------------------------------------------------------------------------------

    def action_save(self) -> None:
        """ctrl+s from any pane: save what the last run made (the dashboard's own ctrl+s does the same)."""
        self.save_trained()

    def save_trained(self) -> None:
        """Ask where to save the last trained tokenizer, then save it atomically in a thread.

        Only ever called because the user pressed ctrl+s; says so when there is nothing to save.
        """
        trained = self.training.trained
        if trained is None:
            self.notify("No trained tokenizer to save yet: train one in the corpus pane (1).", markup=False)
            return
        if isinstance(self.screen, PathDialog):
            return
        default = trained.save_path(self.services.corpus_root)

        def chosen(path: Path | None) -> None:
            if path is None:
                self.notify("Not saved; ctrl+s saves it later.", markup=False)
            else:
                self._save(trained, path)

        title = Content.assemble("Save ", (trained.loaded.shown_name, "bold"), " as (bpe-tui JSON)")
        inputs = [trained.spec.corpus_path] if trained.spec.corpus_path is not None else []
        self.push_screen(PathDialog(title, str(default), "Save", must_exist=False, protected=inputs), chosen)

    @work(thread=True, exclusive=True, exit_on_error=False, group="save")
    def _save(self, trained: TrainedTokenizer, path: Path) -> None:
        problem = trained.save(path)
        self.post_message(self.Saved(trained, path) if problem is None else self.SaveFailed(path, problem))

    @on(Saved)
    def _saved(self, message: Saved) -> None:
        index = message.trained.session_index
        tokenizers = self.session.tokenizers
        if index < len(tokenizers) and tokenizers[index] is message.trained.loaded:
            self.session.replace_tokenizer(index, message.trained.loaded.with_source(message.path))
        self.notify(f"Saved to {shown_text(message.path)}", title="Tokenizer saved", markup=False)

    @on(SaveFailed)
    def _save_failed(self, message: SaveFailed) -> None:
        self.notify(shown_text(message.reason), title="Could not save", severity="error", timeout=10, markup=False)

    # -- session --------------------------------------------------------------------------------------------

    def _session_changed(self, reason: str) -> None:
        # Called by Session on the UI thread: the app's one listener. Each pane built so far hears once,
        # whether it is on screen or not; one built later reads the session when it mounts.
        loaded = self.session.active_tokenizer()
        self.sub_title = f"active: {loaded.shown_name}" if loaded is not None else ""
        for screen in self._panes.values():
            screen.post_message(SessionChanged(reason))

    # -- loading tokenizer files ------------------------------------------------------------------------

    def reference_tokenizers(self) -> dict[str, str]:
        """Known tokenizers loadable by name (see ``file_opening.reference_tokenizers``)."""
        return reference_tokenizers(self.session.samples_dir)

    def load_tokenizer_file(self, path: Path) -> Worker[LoadedTokenizer]:
        """Load a tokenizer file (or a reference encoding by name) in a thread; success adds it to the session,
        failure is a notification."""
        return self.run_worker(
            partial(read_tokenizer, Path(path)),
            name=str(path),
            group="load",
            thread=True,
            exit_on_error=False,
        )

    def open_file(self, path: Path) -> Worker[LoadedTokenizer | DecodedIds]:
        """Open ctrl+o's file in a thread: an id file (``.npy``, told by its first bytes) is decoded into the
        workbench with the active tokenizer; anything else is loaded as a tokenizer (or offered as a corpus)."""
        active = self.session.active_tokenizer()
        known = tuple(self.session.tokenizers)
        return self.run_worker(
            partial(read_opened_file, Path(path), active, known),
            name=str(path),
            group="load",
            thread=True,
            exit_on_error=False,
        )

    @on(Worker.StateChanged)
    async def _tokenizer_loaded(self, event: Worker.StateChanged) -> None:
        await file_read(self, event)

    async def show_decoded(self, decoded: DecodedIds) -> None:
        """Put an id file's decoded text in the workbench (pane 4) and say what was decoded, warning when the
        sidecar names another tokenizer or cannot be read."""
        await self.switch_mode("boundaries")
        workbench = self._panes.get("boundaries")
        if isinstance(workbench, BoundariesScreen):
            workbench.show_text(decoded.text, decoded.label)
        self.notify(decoded.summary(), title="Id file", markup=False)
        warning = decoded.warning()
        if warning is not None:
            title = "Ids not checked" if decoded.sidecar_problem is not None else "Ids from another tokenizer"
            self.notify(warning, title=title, severity="warning", timeout=15, markup=False)

    def action_open_tokenizer(self) -> None:
        ask_for_file(self)

    # -- help -------------------------------------------------------------------------------------------------

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())
