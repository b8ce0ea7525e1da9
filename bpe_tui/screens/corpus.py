"""The corpus pane: browse for a corpus file or a folder of shards, or type its path; preview it, see its
stats, and start training.

A plain text file shows its size, lines, documents and script mix; a shard (``.jsonl``, ``.parquet``,
anything compressed) or a folder of shards (``f`` picks the highlighted folder) shows its shards,
records and bytes, counted by reading every record once, as training will.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text, TextType
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import DirectoryTree, Header, Input, Static, Tree
from textual.worker import get_current_worker

from core.analysis.corpus_stats import CorpusStats, escape_controls, preview_text, scan_corpus
from core.corpus import open_corpus
from core.corpus.records import ReadOptions
from core.corpus.shards import shard_format
from core.corpus.summary import ShardsSummary, scan_shards, shards_preview
from core.errors import BPEError, CorpusError
from core.formats import detect_format
from core.input_files import os_problem, shown_path

from bpe_tui.messages import SessionChanged
from bpe_tui.recent_files import load_recent, remember
from bpe_tui.sample_files import not_corpora
from bpe_tui.screens.pane_screen import PaneScreen
from bpe_tui.session import Session
from bpe_tui.text import shown_text, with_selectors_written
from bpe_tui.training_process import Throttle
from bpe_tui.training_spec import TrainingSpec
from bpe_tui.widgets.corpus_stats import CorpusStatsView, markers_notice
from bpe_tui.widgets.shards_stats import shards_content
from bpe_tui.widgets.path_box import PathBox
from bpe_tui.widgets.key_footer import KeyFooter
from bpe_tui.widgets.training_form import TrainingForm

PREVIEW_BYTES = 4096


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def is_shards(path: Path) -> bool:
    """Whether ``path`` is read as shards (a folder, JSON lines, Parquet, anything compressed), not as one text.

    >>> is_shards(Path("a.txt")), is_shards(Path("a.txt.gz")), is_shards(Path("b.jsonl")), is_shards(Path("notes"))
    (False, True, True, False)
    """
    kind, compression = shard_format(path.name)
    if kind not in (None, "text") or compression is not None:
        return True
    try:
        return path.is_dir()
    except OSError:
        return False


TOKENIZER_SNIFF_BYTES = 256 << 20
"""Largest shard that failed to read which is checked for being a tokenizer file (the check reads it whole)."""


def tokenizer_not_corpus(path: Path) -> str | None:
    """What to say of a ``.json`` shard that failed to read because it is a tokenizer file, else ``None``.

    A ``tokenizer.json`` chosen in the tree read as JSON lines: "line 1: not valid JSON ...; fix the record or
    skip bad records", a fix that does not apply.
    """
    try:
        if not path.is_file() or path.stat().st_size > TOKENIZER_SNIFF_BYTES:
            return None
        detect_format(path)
    except (OSError, BPEError):
        return None
    return f"{shown_path(path)}: is a tokenizer file, not a corpus; ctrl+o opens it as a tokenizer"


class CorpusTree(DirectoryTree):
    """A directory tree without hidden files (a corpus is rarely in ``.git``) and without the given paths."""

    def __init__(self, path: Path, *, hidden: frozenset[Path] = frozenset(), id: str | None = None) -> None:
        super().__init__(path, id=id)
        self.hidden = hidden
        """Paths never listed: the samples' tokenizer folder, which a user would otherwise pick as a corpus."""

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [path for path in paths if not path.name.startswith(".") and path not in self.hidden]

    def process_label(self, label: TextType) -> Text:
        # A file's name as every pane shows names: an escape sequence in it reached the terminal (recolouring
        # the screen), a byte that is not UTF-8 was written wider than measured and broke the row.
        return super().process_label(shown_text(label) if isinstance(label, str) else label)


class CorpusScreen(PaneScreen):
    """Highlight a file to preview it and count it; the form below trains on it."""

    AUTO_FOCUS = "#tree"

    BINDINGS = [
        Binding("s", "show_samples", "Samples", tooltip="Show the bundled sample corpora"),
        Binding("w", "show_workdir", "Working dir", tooltip="Show the working directory"),
        Binding("f", "choose_folder", "Folder", tooltip="Train on the highlighted folder of shards"),
        Binding("p", "type_path", "Path", tooltip="Type a corpus path (~ works, tab completes, ↑↓ recent files)"),
        Binding("ctrl+t", "train", "Train", tooltip="Train on the chosen file with these settings"),
        Binding("escape", "focus_tree", "To tree", show=False),
    ]

    @dataclass
    class TrainingRequested(Message):
        """The user asked to train ``spec`` on the chosen file (ctrl+t or the form's button); the app runs it."""

        spec: TrainingSpec
        warning: str | None = None
        """What the user should know as the run starts (markers left out of the special tokens), or ``None``."""

    @dataclass
    class PreviewRead(Message):
        """The start of ``path``, already made safe for display."""

        path: Path
        text: str

    @dataclass
    class StatsScanned(Message):
        """Stats of the chosen file so far (``stats.complete`` once the scan is done), scanned with
        ``special_tokens`` (documents and forgotten markers depend on them)."""

        stats: CorpusStats
        special_tokens: tuple[str, ...]

    @dataclass
    class ShardsScanned(Message):
        """Counts of the shards of ``path`` so far (``summary.complete`` once the scan is done)."""

        path: Path
        summary: ShardsSummary

    @dataclass
    class ScanFailed(Message):
        """The chosen file could not be read."""

        path: Path
        reason: str
        """The whole one-line message, naming the path once."""

    def __init__(self, session: Session, *, corpus_root: Path, recent_store: Path) -> None:
        """Args:
        session: the app's session; the chosen file is kept in ``session.corpus_path``.
        corpus_root: where the directory tree starts (``w`` goes back there).
        recent_store: the JSON file of recent corpus files (``bpe_tui.recent_files``).
        """
        super().__init__()
        self._session = session
        self._corpus_root = corpus_root
        self._recent_store = recent_store
        self._recent = load_recent(recent_store)
        self._shown: tuple[Path, tuple[str, ...], str, str | None] | None = None
        """The file, special tokens, text field and (for shards) errors last scanned, so a session change that
        keeps them does not rescan."""
        self._stats: CorpusStats | None = None
        """The newest stats of the scan for ``_shown``, ``None`` until the first arrives."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="corpus-body"):
            with Vertical(id="corpus-left"):
                yield PathBox(lambda: self._recent, id="corpus-path")
                yield Static("", id="corpus-path-hint", markup=False)
                yield CorpusTree(self._corpus_root, hidden=not_corpora(self._session.samples_dir), id="tree")
            # Scrolls when the terminal is too short for preview, stats and form: a field tabbed into is shown.
            with VerticalScroll(id="corpus-right", can_focus=False):
                # Not focusable: a long preview would take the tab from the tree to the form, unseen, and the
                # vocab size typed next would switch panes.
                with VerticalScroll(id="preview-box", can_focus=False):
                    yield Static("", id="preview", markup=False)
                yield CorpusStatsView("", id="stats")
                yield TrainingForm(id="form")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#preview-box").border_title = "Preview"
        session = self._session
        if session.corpus_path is None and session.sample_path("english") is not None:
            session.set_corpus(session.sample_path("english"))
        self._show_corpus()

    def on_session_changed(self, message: SessionChanged) -> None:
        if message.reason in ("corpus", "reading"):
            self._recent = load_recent(self._recent_store)  # the app may have added one (ctrl+o on a text file)
            self._show_corpus()

    # -- choosing a file -------------------------------------------------------------------------------------

    @on(Tree.NodeHighlighted, "#tree")
    def _highlighted(self, event: Tree.NodeHighlighted) -> None:
        entry = event.node.data
        path = getattr(entry, "path", None)
        if isinstance(path, Path) and _is_file(path):
            self._session.set_corpus(path)

    @on(DirectoryTree.FileSelected, "#tree")
    def _selected(self, event: DirectoryTree.FileSelected) -> None:
        # The tree keeps focus: moved into the vocab field, the next pane key (2) was typed into it.
        self._session.set_corpus(event.path)

    def _show_corpus(self) -> None:
        path = self._session.corpus_path
        if path is None:
            self.query_one("#preview", Static).update("Highlight a file in the tree (s shows the samples).")
            self.query_one(CorpusStatsView).show_message("No corpus chosen yet.")
            return
        form = self.query_one(TrainingForm)
        shards = is_shards(path)
        form.show_shard_options(shards)
        # errors changes a shard scan only (a text file's notes a bad byte either way)
        shown = (path, form.special_tokens, self._session.text_field, self._session.errors if shards else None)
        if self._shown == shown:
            return
        self._shown = shown
        self._stats = None
        # Content, not str: a border title string is read as markup, and a file name is data.
        self.query_one("#preview-box").border_title = Content(f"Preview · {shown_text(path.name)}")
        if shards:
            self._scan_shards(path, self._session.text_field, self._session.errors)
        else:
            self._scan(path, form.special_tokens)

    @on(TrainingForm.SpecialsChanged)
    def _specials_changed(self, message: TrainingForm.SpecialsChanged) -> None:
        self._session.set_special_tokens(message.special_tokens)  # the Study pane trains with them too
        self._show_corpus()

    @on(TrainingForm.ReadingChanged)
    def _reading_changed(self, message: TrainingForm.ReadingChanged) -> None:
        """The form's text field, skip toggle or errors: kept in the session (the Study pane reads by them too);
        a new text field re-counts the shards."""
        self._session.set_corpus_reading(message.text_field, message.skip_bad_records, message.errors)

    @work(thread=True, exclusive=True, exit_on_error=False, group="corpus-scan")
    def _scan(self, path: Path, special_tokens: tuple[str, ...]) -> None:
        """Read the preview and scan the file, posting at most ~10 updates a second and the final one."""
        worker = get_current_worker()
        try:
            open_corpus(path)  # gzip data named .txt, a Git LFS pointer: what training would refuse it for
            self.post_message(self.PreviewRead(path, preview_text(path, PREVIEW_BYTES)))
            throttle = Throttle(0.1)
            for stats in scan_corpus(path, special_tokens):
                if worker.is_cancelled:
                    return
                if stats.complete or throttle.ready():
                    self.post_message(self.StatsScanned(stats, special_tokens))
        except CorpusError as error:  # the file cannot be used: the message names the path already
            self.post_message(self.ScanFailed(path, str(error)))
        except OSError as error:  # reading failed part-way: the system's words, the path still to add
            self.post_message(self.ScanFailed(path, f"{shown_path(path)}: {os_problem(error)}"))

    @work(thread=True, exclusive=True, exit_on_error=False, group="corpus-scan")
    def _scan_shards(self, path: Path, text_field: str, errors: str) -> None:
        """Find the shards, read a preview, then count every shard's records, posting ~10 updates a second.

        Records are read by ``text_field`` and invalid UTF-8 by ``errors``, as training reads them (with
        'replace', such a record is one, and the shards after it are counted); bad records are not skipped
        here, so the first one is shown whatever the toggle says.
        """
        worker = get_current_worker()
        options = ReadOptions(text_field=text_field, errors=errors)
        try:
            corpus = open_corpus(path)
            self.post_message(self.PreviewRead(path, escape_controls(shards_preview(corpus, PREVIEW_BYTES, options))))
            throttle = Throttle(0.1)
            for summary in scan_shards(corpus, options):
                if worker.is_cancelled:
                    return
                if summary.complete or throttle.ready():
                    self.post_message(self.ShardsScanned(path, summary))
        except CorpusError as error:
            self.post_message(self.ScanFailed(path, tokenizer_not_corpus(path) or str(error)))
        except OSError as error:
            self.post_message(self.ScanFailed(path, error.strerror or str(error)))

    def on_corpus_screen_shards_scanned(self, message: ShardsScanned) -> None:
        if message.path == self._session.corpus_path:
            self.query_one(CorpusStatsView).update(shards_content(message.summary))

    def on_corpus_screen_preview_read(self, message: PreviewRead) -> None:
        if message.path == self._session.corpus_path:
            self.query_one("#preview", Static).update(Content(with_selectors_written(message.text) or "(empty file)"))

    def on_corpus_screen_stats_scanned(self, message: StatsScanned) -> None:
        if self._shown is not None and (message.stats.path, message.special_tokens) == self._shown[:2]:
            self._stats = message.stats
            self.query_one(CorpusStatsView).show_stats(message.stats)

    def on_corpus_screen_scan_failed(self, message: ScanFailed) -> None:
        # A scan cancelled by a newer choice can still fail (a tree walked fast past a file it cannot read):
        # its message would stay over the stats of the file now chosen.
        if message.path != self._session.corpus_path:
            return
        self._shown = None
        self.query_one("#preview", Static).update("")  # not the last corpus's preview under this one's error
        self.query_one(CorpusStatsView).show_message(message.reason, error=True)

    # -- actions ------------------------------------------------------------------------------------------------

    def action_show_samples(self) -> None:
        samples = self._session.samples_dir
        if samples is None:
            self.notify("The bundled samples were not found.", severity="warning", markup=False)
            return
        tree = self.query_one(CorpusTree)
        tree.path = samples
        tree.focus()

    def action_show_workdir(self) -> None:
        tree = self.query_one(CorpusTree)
        tree.path = self._corpus_root
        tree.focus()

    def action_choose_folder(self) -> None:
        """Make the highlighted folder (or the highlighted file's folder) the corpus: its shards are trained on."""
        tree = self.query_one(CorpusTree)
        node = tree.cursor_node
        path = getattr(node.data, "path", None) if node is not None else None
        if not isinstance(path, Path):
            return
        self._session.set_corpus(path if path.is_dir() else path.parent)

    def action_focus_tree(self) -> None:
        self.query_one(CorpusTree).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "type_path" and isinstance(self.focused, Input):
            return None  # "p" typed into a field
        return True

    def action_type_path(self) -> None:
        self.set_focus(self.query_one(PathBox))

    @on(PathBox.Completed)
    def _completed(self, message: PathBox.Completed) -> None:
        if not message.matches:
            self._hint(Content.styled("no file or folder starts with that", "$error"))
        elif len(message.matches) == 1:
            self._hint(None)
        else:
            # Names from the file system, escapes written out: an ESC in one reached the terminal.
            shown = "  ".join(map(shown_text, message.matches[:8])) + ("  …" if len(message.matches) > 8 else "")
            self._hint(Content.assemble((f"{len(message.matches)}: ", "bold"), shown))

    def _hint(self, content: Content | None) -> None:
        """The line under the path box: matches or a problem; hidden when there is nothing to say."""
        hint = self.query_one("#corpus-path-hint", Static)
        hint.update(content or "")
        hint.display = content is not None

    @on(Input.Submitted, "#corpus-path")
    def _path_typed(self, message: Input.Submitted) -> None:
        """Enter in the path box: a file becomes the corpus (and a recent file), a folder is shown in the tree."""
        typed = message.value.strip()
        if not typed:
            return
        path = Path(typed).expanduser()
        try:
            is_dir, is_file = path.is_dir(), path.is_file()
        except OSError as error:
            self._hint(Content.styled(f"{typed}: {error.strerror or error}", "$error"))
            return
        if is_dir:
            tree = self.query_one(CorpusTree)
            tree.path = path.absolute()
            self._hint(None)
            tree.focus()
        elif is_file:
            self.use_corpus(path)
            self._hint(None)
            self.query_one(CorpusTree).focus()
        else:
            self._hint(Content.styled(f"{typed}: no such file or folder", "$error"))

    def use_corpus(self, path: Path) -> None:
        """Make ``path`` the corpus and put it first among the recent files."""
        path = path.expanduser().absolute()
        self._recent = remember(self._recent_store, path)
        self._session.set_corpus(path)

    def action_train(self) -> None:
        self.query_one(TrainingForm).submit()

    @on(TrainingForm.TrainRequested)
    def _train(self, message: TrainingForm.TrainRequested) -> None:
        path = self._session.corpus_path
        if path is None:
            self.notify("Choose a corpus file in the tree first.", severity="error", markup=False)
            return
        try:
            open_corpus(path)  # a text file, a shard or a folder of shards
        except CorpusError as error:
            self.notify(str(error), title="Cannot train", severity="error", markup=False)
            return
        spec = message.settings.spec(corpus_path=path, label=path.name, measure_texts=self._session.measure_texts())
        self._recent = remember(self._recent_store, path)
        self.post_message(self.TrainingRequested(spec, self._markers_warning(path, spec.special_tokens)))

    def _markers_warning(self, path: Path, special_tokens: tuple[str, ...]) -> str | None:
        """The stats' warning about forgotten markers, for the app to repeat as the run starts (it goes on regardless).

        It is known only once the scan for this file and these special tokens has seen them; a run started
        before that goes without it (the stats line still shows it when the scan gets there).
        """
        stats = self._stats
        if stats is None or self._shown is None or self._shown[:2] != (path, special_tokens) or not stats.markers:
            return None
        return markers_notice(stats).plain
