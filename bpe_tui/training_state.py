"""What the app knows of training: the current run as reported so far, and the last tokenizer a run made.

The app owns one ``TrainingState`` and changes it on the UI thread as the runner's messages arrive, then
posts ``TrainingChanged`` to the dashboard. The dashboard is handed the state when it is built and draws
it, catching up on whatever happened before it existed (the start-up run may end behind another pane).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from core.errors import BPEError
from core.input_files import shown_path
from core.output_errors import describe_write_error
from core.train.events import MergeMade

from bpe_tui.session import LoadedTokenizer
from bpe_tui.training_process import SamplesMeasured
from bpe_tui.training_spec import TrainingSpec
from bpe_tui.training_runner import TrainingRunner, with_corpus_hash


@dataclass(frozen=True)
class TrainedTokenizer:
    """A tokenizer a run made: what the run was asked for, the tokenizer, and its place in the session."""

    spec: TrainingSpec
    loaded: LoadedTokenizer
    session_index: int

    def save_path(self, folder: Path) -> Path:
        """Where it is offered to be saved: ``<corpus stem>-<vocab size>.json`` in ``folder``, with what cannot
        be shown in the stem (control characters, bytes that are not UTF-8) as ``_``: the save dialog's field
        shows the path as it is, and an ESC in a corpus's name reached the terminal from there."""
        stem = self.spec.corpus_path.stem if self.spec.corpus_path is not None else "samples"
        stem = "".join(char if char.isprintable() else "_" for char in stem)
        return folder / f"{stem}-{self.loaded.model.vocab_size}.json"

    def save(self, path: Path) -> str | None:
        """Write it to ``path`` atomically, in bpe-tui's format with its corpus's hash (run in a worker
        thread: hashing and writing take a while); ``None`` when saved, else one line that names the path."""
        from core.formats import save_tokenizer

        try:
            save_tokenizer(with_corpus_hash(self.loaded.model), path, format="bpe-tui")
        except BPEError as error:  # its message names the path already
            return str(error)
        except OSError as error:
            return f"cannot write {shown_path(path)}: {describe_write_error(error)}"
        return None


@dataclass
class TrainingState:
    """The current run as the app has heard of it. Changed only by the app, on the UI thread."""

    run: int = 0
    """The current run's number (the runner's), 0 before any run."""

    spec: TrainingSpec | None = None
    """What the current run trains; ``None`` before any run."""

    running: bool = False
    """Started and not yet finished, failed or stopped."""

    progress: TrainingRunner.Progressed | None = None
    """The latest progress report of the current run."""

    merges: list[MergeMade] = field(default_factory=list)
    """Every merge the current run has reported, in rank order."""

    measured: SamplesMeasured | None = None
    """The latest bytes/token of the samples, ``None`` until the run has measured them."""

    outcome: TrainingRunner.Ended | None = None
    """How the current run ended, ``None`` while it runs."""

    trained: TrainedTokenizer | None = None
    """What ctrl+s saves: the tokenizer of the last run that finished or was stopped (its merges so far),
    kept while a newer run goes on; ``None`` once a run is stopped before its first merge, since saving
    an older tokenizer under that run's name is what a user would not expect."""

    def begin(self, run: int, spec: TrainingSpec) -> None:
        """Forget the previous run's reports (not its tokenizer) and follow run ``run``."""
        self.run = run
        self.spec = spec
        self.running = True
        self.progress = None
        self.merges = []
        self.measured = None
        self.outcome = None

    def record(self, message: TrainingRunner.RunMessage) -> None:
        """Take in one of the current run's messages (the caller drops those of older runs)."""
        if isinstance(message, TrainingRunner.Progressed):
            self.progress = message
        elif isinstance(message, TrainingRunner.MergesReceived):
            self.merges.extend(message.merges)
        elif isinstance(message, TrainingRunner.SamplesMeasured):
            self.measured = message.measured
        elif isinstance(message, TrainingRunner.Ended):
            self.outcome = message
            self.running = False
