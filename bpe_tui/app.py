"""The Textual app: one mode per pane, global bindings, the command palette, loading files, the start-up run.

Kept thin on purpose: each pane is a screen in ``bpe_tui/screens``, state lives in ``Session``, and
training lives in the dashboard. The app wires them together and owns what is truly global.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from textual import on
from textual.app import App
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from core.errors import BPEError

from bpe_tui.messages import SessionChanged
from bpe_tui.panes import PANES, Pane
from bpe_tui.screens.boundaries import BoundariesScreen
from bpe_tui.screens.compare import CompareScreen
from bpe_tui.screens.corpus import CorpusScreen
from bpe_tui.screens.dashboard import DashboardScreen
from bpe_tui.screens.help import HelpScreen
from bpe_tui.screens.inspector import InspectorScreen
from bpe_tui.screens.path_dialog import PathDialog
from bpe_tui.screens.stepper import StepperScreen
from bpe_tui.services import Services
from bpe_tui.session import LoadedTokenizer, Session, find_samples_dir
from bpe_tui.training_process import TrainingSpec

STARTUP_VOCAB_SIZE = 1000
"""Vocab size of the tokenizer trained from the samples at start-up: big enough to be interesting, < 1 s."""


class PaneCommands(Provider):
    """Command palette entries: open each pane, open a tokenizer file, switch the active tokenizer, help."""

    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        app = self.app
        assert isinstance(app, BpeTuiApp)
        commands: list[tuple[str, Callable[[], object], str]] = [
            (f"Go to {pane.title} ({pane.key})", partial(app.switch_mode, pane.mode), pane.description)
            for pane in PANES
        ]
        commands.append(("Open tokenizer file…", app.action_open_tokenizer, "Load a tokenizer in any format"))
        commands.append(("Show keys (help)", app.action_help, "Every key binding, by pane"))
        for index, loaded in enumerate(app.session.tokenizers):
            commands.append(
                (f"Use tokenizer: {loaded.name}", partial(app.session.set_active, index), "Make it the active one")
            )
        return commands

    async def discover(self) -> Hits:
        for name, callback, help_text in self._commands():
            # Content, not str: the palette reads a str prompt as markup, and tokenizer names are data.
            yield DiscoveryHit(Content(name), callback, text=name, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, text=name, help=help_text)


class BpeTuiApp(App[None]):
    """Train, watch and inspect byte-level BPE tokenizers."""

    TITLE = "bpe-tui"
    CSS_PATH = Path(__file__).parent / "app.tcss"
    COMMANDS = App.COMMANDS | {PaneCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-normal"), (140, "-wide")]
    BINDINGS = [
        *(
            Binding(pane.key, f"switch_mode('{pane.mode}')", pane.title, tooltip=pane.description)
            for pane in PANES
        ),
        Binding("question_mark,f1", "help", "Help"),
        Binding("ctrl+o", "open_tokenizer", "Open tokenizer", show=False),
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
    ) -> None:
        """Build the app.

        Args:
            session: the shared state; a fresh one pointing at the bundled samples by default.
            services: clock, RSS probe, training source and tree root (tests pass frozen ones).
            tokenizer_paths: tokenizer files to load after start-up (errors become notifications).
            train_on_start: train a small tokenizer on the samples at start-up unless files were given.
            start_mode: the pane to open on; by default the dashboard (start-up run) or the inspector.
            theme: a Textual theme name; tests pin one so snapshots do not depend on the default.
        """
        super().__init__()
        self.session = session if session is not None else Session(samples_dir=find_samples_dir())
        self.services = services if services is not None else Services()
        self._tokenizer_paths = list(tokenizer_paths)
        self._train_on_start = train_on_start and not tokenizer_paths
        self._start_mode = start_mode
        if theme is not None:
            self.theme = theme
        self._panes: dict[str, Screen] = {}
        """The pane screens built so far, by mode; each hears of every session change."""
        for pane in PANES:
            self.add_mode(pane.mode, partial(self._build_pane, pane))
        self.session.subscribe(self._session_changed)

    def _build_pane(self, pane: Pane) -> Screen:
        """Build ``pane``'s screen with what it reads (Textual calls this when the mode first opens)."""
        session = self.session
        builders: dict[type[Screen], Callable[[], Screen]] = {
            CorpusScreen: lambda: CorpusScreen(session, corpus_root=self.services.corpus_root),
            DashboardScreen: lambda: DashboardScreen(),
            StepperScreen: lambda: StepperScreen(session),
            BoundariesScreen: lambda: BoundariesScreen(session),
            InspectorScreen: lambda: InspectorScreen(session),
            CompareScreen: lambda: CompareScreen(session),
        }
        screen = builders[pane.screen]()
        self._panes[pane.mode] = screen
        return screen

    async def on_mount(self) -> None:
        mode = self._start_mode or (
            "dashboard" if self._train_on_start else "inspector" if self._tokenizer_paths else "corpus"
        )
        await self.switch_mode(mode)
        for path in self._tokenizer_paths:
            self.load_tokenizer_file(path)
        if self._train_on_start:
            spec = self.startup_spec()
            if spec is None:
                self.notify("Bundled samples not found: pick a corpus to train on.", severity="warning")
            else:
                await self.start_training(spec, offer_save=False, switch=mode == "dashboard")

    def startup_spec(self) -> TrainingSpec | None:
        """A quick run over the English and Japanese samples, so every pane has a tokenizer at once."""
        texts = self.session.sample_texts()
        if not texts.get("english") and not texts.get("japanese"):
            return None
        return TrainingSpec(
            vocab_size=STARTUP_VOCAB_SIZE,
            text="\n".join(texts.get(name, "") for name in ("english", "japanese")),
            label="samples (english + japanese)",
            workers=1,
            measure_texts=self.session.measure_texts(),
        )

    async def start_training(self, spec: TrainingSpec, *, offer_save: bool = True, switch: bool = True) -> None:
        """Start ``spec`` on the dashboard (creating it if needed), showing the dashboard if ``switch``."""
        from bpe_tui.screens.dashboard import DashboardScreen

        current = self.current_mode
        await self.switch_mode("dashboard")
        dashboard = self.screen_stack[0]
        assert isinstance(dashboard, DashboardScreen)
        dashboard.start(spec, offer_save=offer_save)
        if not switch and current != "dashboard":
            await self.switch_mode(current)

    # -- session --------------------------------------------------------------------------------------------

    def _session_changed(self, reason: str) -> None:
        # Called by Session on the UI thread: the app's one listener. Each pane built so far hears once,
        # whether it is on screen or not; one built later reads the session when it mounts.
        loaded = self.session.active_tokenizer()
        self.sub_title = f"active: {loaded.name}" if loaded is not None else ""
        for screen in self._panes.values():
            screen.post_message(SessionChanged(reason))

    # -- loading tokenizer files ------------------------------------------------------------------------

    def load_tokenizer_file(self, path: Path) -> Worker[LoadedTokenizer]:
        """Load a tokenizer file in a thread; success adds it to the session, failure is a notification."""
        return self.run_worker(
            partial(_load_tokenizer, Path(path)),
            name=str(path),
            group="load",
            thread=True,
            exit_on_error=False,
        )

    @on(Worker.StateChanged)
    def _tokenizer_loaded(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group != "load":
            return
        if event.state == WorkerState.SUCCESS and isinstance(worker.result, LoadedTokenizer):
            self.session.add_tokenizer(worker.result)
            self.notify(f"Loaded {worker.result.name}", title="Tokenizer", markup=False)
        elif event.state == WorkerState.ERROR:
            error = worker.error
            message = str(error) if isinstance(error, BPEError) else f"{worker.name}: {type(error).__name__}: {error}"
            self.notify(message, title="Could not load tokenizer", severity="error", timeout=10, markup=False)

    def action_open_tokenizer(self) -> None:
        def chosen(path: Path | None) -> None:
            if path is not None:
                self.load_tokenizer_file(path)

        self.push_screen(
            PathDialog("Open a tokenizer file (any format)", str(self.services.corpus_root) + "/", "Open"), chosen
        )

    # -- help -------------------------------------------------------------------------------------------------

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())


def _load_tokenizer(path: Path) -> LoadedTokenizer:
    """Read and build a tokenizer (in a worker thread); raises ``BPEError`` with a one-line reason."""
    from core.formats import load_tokenizer

    model = load_tokenizer(path)
    # The file's own name tells loaded tokenizers apart better than the name stored inside it.
    return LoadedTokenizer.from_model(model, name=path.stem or model.name, source=path)
