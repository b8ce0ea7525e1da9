"""App state shared by every pane: the loaded tokenizers, the active one, the corpus and the samples.

Plain Python with no Textual imports, so it can be built and checked in tests without an app. The app
owns one ``Session`` and hands it to each pane's constructor; panes refresh when they receive
``bpe_tui.messages.SessionChanged``, which the app posts to each of them once whenever ``Session``
reports a change.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from core.analysis.coverage import DEFAULT_WINDOWS
from bpe_tui.text import shown_text
from core.model import BPEModel

if TYPE_CHECKING:
    from core.encode.tokenizer import Tokenizer

SAMPLE_NAMES = ("english", "japanese", "mixed", "toy")
"""Bundled samples, in display order; each is ``<name>.txt`` in the samples folder."""


def find_samples_dir() -> Path | None:
    """The bundled samples folder (``samples/`` in a checkout, ``bpe_tui/_samples`` in a wheel), or ``None``.

    ``None`` lets the app start without them (with a notification) rather than fail.
    """
    from bpe_tui.sample_files import samples_dir

    return samples_dir()


@dataclass(frozen=True)
class LoadedTokenizer:
    """A tokenizer the app knows about, with the model it was built from and where it came from.

    Attributes:
        name: short label for lists and titles (file stem, or ``"trained: english.txt 1000"``).
        model: the tokenizer as data (vocab, merges, counts, training info).
        tokenizer: the encoder built from ``model``; built once here because building it is not free.
        source: the file it was loaded from or saved to, ``None`` if trained in-app and not saved.
    """

    name: str
    model: BPEModel
    tokenizer: Tokenizer
    source: Path | None = None

    @classmethod
    def from_model(cls, model: BPEModel, *, name: str | None = None, source: Path | None = None) -> LoadedTokenizer:
        """Wrap ``model``, building its ``Tokenizer``; ``name`` defaults to the model's name or the file stem."""
        from core.encode.tokenizer import Tokenizer

        label = name or model.name or (source.stem if source is not None else "tokenizer")
        return cls(name=label, model=model, tokenizer=Tokenizer.from_model(model), source=source)

    @property
    def shown_name(self) -> str:
        """The name as every pane, title and notification shows it: one line, control characters and escape
        sequences written out (``\\x1b``), so a file's name cannot drive the terminal. Always shown as plain
        text (``Content``, ``markup=False``), never as markup: ``[bold]`` in a name is shown as typed."""
        return shown_text(self.name)

    def named_apart_from(self, others: Sequence[LoadedTokenizer]) -> LoadedTokenizer:
        """This tokenizer under a name none of ``others`` has: its file's whole name (``hf30k.tiktoken`` beside
        ``hf30k`` from ``hf30k.json``), else the name numbered; itself when the name is free.

        Lists, the compare header and the title show only names: two ``hf30k`` could not be told apart.

        >>> from core.model import BPEModel
        >>> model = BPEModel({i: bytes([i]) for i in range(256)}, [])
        >>> first = LoadedTokenizer.from_model(model, source=Path("a/hf30k.json"))
        >>> second = LoadedTokenizer.from_model(model, source=Path("b/hf30k.tiktoken"))
        >>> second.named_apart_from([first]).name, first.named_apart_from([first, second]).name
        ('hf30k.tiktoken', 'hf30k.json')
        """
        taken = {other.name for other in others}
        if self.name not in taken:
            return self
        if self.source is not None and self.source.name not in taken:
            name = self.source.name
        else:
            name = next(f"{self.name} ({n})" for n in itertools.count(2) if f"{self.name} ({n})" not in taken)
        return LoadedTokenizer(name=name, model=self.model, tokenizer=self.tokenizer, source=self.source)

    def with_source(self, source: Path) -> LoadedTokenizer:
        """The same tokenizer, now saved at ``source``."""
        return LoadedTokenizer(name=self.name, model=self.model, tokenizer=self.tokenizer, source=source)


@dataclass
class Session:
    """App state shared by all panes. Mutated only on the UI thread.

    Every mutating method calls the listeners registered with ``subscribe`` afterwards; the app is the
    one listener, and posts ``SessionChanged`` to each pane, so panes never poll.

    Attributes:
        tokenizers: every tokenizer loaded or trained this session, oldest first.
        active: index into ``tokenizers`` of the current tokenizer, ``None`` when there is none.
        corpus_path: the corpus file chosen in the corpus pane, ``None`` before one is chosen.
        samples_dir: the bundled samples folder, ``None`` if it could not be found.
        workbench_text: the text in the boundaries pane's workbench, which Compare can run on too.
        context_windows: the window sizes, in tokens, whose coverage the workbench and Compare show.
        text_field: the JSON field or Parquet column a corpus of shards is read by (the corpus form's text
            field), for training, the corpus pane's counts and the Study pane alike.
        skip_bad_records: whether bad records of a corpus of shards are skipped and counted (the corpus
            form's toggle), not a reason to stop.
        errors: what invalid UTF-8 in the corpus does (the corpus form's errors): ``"strict"`` stops,
            ``"replace"`` reads U+FFFD, for training and the Study pane alike.
        special_tokens: the corpus form's special tokens, which the Study pane trains with too (so a study's
            sizes are the tokenizers the form would train).
    """

    tokenizers: list[LoadedTokenizer] = field(default_factory=list)
    active: int | None = None
    corpus_path: Path | None = None
    samples_dir: Path | None = None
    workbench_text: str = ""
    context_windows: tuple[int, ...] = DEFAULT_WINDOWS
    text_field: str = "text"
    skip_bad_records: bool = False
    errors: str = "strict"
    special_tokens: tuple[str, ...] = ("<|endoftext|>",)
    _listeners: list[Callable[[str], None]] = field(default_factory=list, repr=False, compare=False)
    _sample_cache: dict[str, str] | None = field(default=None, repr=False, compare=False)

    def subscribe(self, listener: Callable[[str], None]) -> None:
        """Call ``listener(reason)`` after every change; reasons are ``"added"``, ``"active"``, ``"corpus"``,
        ``"replaced"``, ``"workbench"``, ``"windows"``, ``"reading"``, ``"specials"``."""
        self._listeners.append(listener)

    def _changed(self, reason: str) -> None:
        for listener in list(self._listeners):
            listener(reason)

    def add_tokenizer(self, loaded: LoadedTokenizer, *, activate: bool = True) -> int:
        """Append ``loaded`` under a name no tokenizer here has (:meth:`LoadedTokenizer.named_apart_from`),
        making it active unless ``activate`` is false, and return its index.

        A second run with the same settings is ``trained: english.txt 1000 (2)``: under the same name, the
        palette's "Use tokenizer" entries, Compare's list and the title could not tell the two apart.
        """
        self.tokenizers.append(loaded.named_apart_from(self.tokenizers))
        index = len(self.tokenizers) - 1
        if activate or self.active is None:
            self.active = index
        self._changed("added")
        return index

    def replace_tokenizer(self, index: int, loaded: LoadedTokenizer) -> None:
        """Swap the entry at ``index`` (e.g. the same model, now saved to a file)."""
        self.tokenizers[index] = loaded
        self._changed("replaced")

    def set_active(self, index: int) -> None:
        """Make ``tokenizers[index]`` the current tokenizer.

        Raises:
            IndexError: if there is no tokenizer at ``index``.
        """
        if not 0 <= index < len(self.tokenizers):
            raise IndexError(f"no tokenizer at index {index}")
        if index != self.active:
            self.active = index
            self._changed("active")

    def active_tokenizer(self) -> LoadedTokenizer | None:
        """The current tokenizer, or ``None`` before any is loaded or trained."""
        if self.active is None or not self.tokenizers:
            return None
        return self.tokenizers[self.active]

    def set_corpus(self, path: Path | None) -> None:
        """Remember the corpus file chosen for training."""
        if path != self.corpus_path:
            self.corpus_path = path
            self._changed("corpus")

    def set_corpus_reading(self, text_field: str, skip_bad_records: bool, errors: str = "strict") -> None:
        """Remember how the corpus is read: the field holding a shard's text, whether bad records are skipped,
        and what invalid UTF-8 does."""
        if (text_field, skip_bad_records, errors) != (self.text_field, self.skip_bad_records, self.errors):
            self.text_field, self.skip_bad_records, self.errors = text_field, skip_bad_records, errors
            self._changed("reading")

    def set_special_tokens(self, special_tokens: tuple[str, ...]) -> None:
        """Remember the corpus form's special tokens (as typed: the run that uses them checks them)."""
        if tuple(special_tokens) != self.special_tokens:
            self.special_tokens = tuple(special_tokens)
            self._changed("specials")

    def set_workbench_text(self, text: str) -> None:
        """Remember the workbench's text (once typing settles), so Compare can run on the same text."""
        if text != self.workbench_text:
            self.workbench_text = text
            self._changed("workbench")

    def set_context_windows(self, windows: tuple[int, ...]) -> None:
        """Change the context window sizes (from ``core.analysis.coverage.parse_windows``) every pane shows."""
        if windows != self.context_windows:
            self.context_windows = tuple(windows)
            self._changed("windows")

    def sample_path(self, name: str) -> Path | None:
        """Path of the bundled sample ``name`` (``"english"``...), ``None`` if it is missing."""
        if self.samples_dir is None:
            return None
        path = self.samples_dir / f"{name}.txt"
        return path if path.is_file() else None

    def sample_texts(self) -> dict[str, str]:
        """``"english"``/``"japanese"``/``"mixed"``/``"toy"`` -> text of each bundled sample that exists.

        Read once and cached: the samples are a few KB and never change while the app runs.
        """
        if self._sample_cache is None:
            texts: dict[str, str] = {}
            for name in SAMPLE_NAMES:
                path = self.sample_path(name)
                if path is not None:
                    try:
                        texts[name] = path.read_text(encoding="utf-8")
                    except (OSError, UnicodeDecodeError):
                        continue
            self._sample_cache = texts
        return dict(self._sample_cache)

    def measure_texts(self) -> tuple[tuple[str, str], ...]:
        """The samples whose bytes/token a training run re-measures as it goes: English and Japanese."""
        texts = self.sample_texts()
        return tuple((name, texts[name]) for name in ("english", "japanese") if texts.get(name))
