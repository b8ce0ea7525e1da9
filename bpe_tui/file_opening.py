"""What the app does with a file once it is read (ctrl+o, a tokenizer named at start, a reference by name):
a tokenizer joins the session, decoded ids go to the workbench, a text file is offered as the corpus, and a
failure becomes a notification. Also the dialog that asks ctrl+o's file, and the tokenizers known by name.

Apart from the app so that app.py holds what it owns (the session, the panes, the training run, saving);
the files themselves are read off the UI thread in ``file_reading``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from textual.worker import Worker, WorkerState

from core.errors import BPEError, TextNotTokenizerError
from core.export.npy_ids import IdsFileError
from core.formats.tiktoken_cache import REFERENCE_ENCODINGS, cached_reference_names

from bpe_tui.gc_pauses import settle_heap
from bpe_tui.opened_ids import DecodedIds, IdsNotDecodable
from bpe_tui.recent_files import remember
from bpe_tui.screens.corpus_offer import CorpusOfferDialog
from bpe_tui.screens.path_dialog import PathDialog
from bpe_tui.services import Services
from bpe_tui.session import LoadedTokenizer, Session
from bpe_tui.text import shown_text

REFERENCE_GROUP = "load-reference"
"""Worker group of the start-up GPT-2 load, which joins the session without a notification or becoming active."""


class OpeningApp(Protocol):
    """What opening files asks of the app (the app imports this module, so it is named by what it does)."""

    session: Session
    services: Services

    def notify(self, message: str, *, title: str = "", severity: Any = "information", timeout: float | None = None,
               markup: bool = True) -> None: ...
    def push_screen(self, screen: Any, callback: Callable[[Any], None] | None = None) -> Any: ...
    def switch_mode(self, mode: str) -> Any: ...
    def call_after_refresh(self, callback: Callable[[], Any]) -> bool: ...
    def open_file(self, path: Path) -> object: ...
    async def show_decoded(self, decoded: DecodedIds) -> None: ...


def bundled_gpt2(samples_dir: Path | None) -> Path | None:
    """The GPT-2 bundled with the samples (``vocab.json`` + ``merges.txt``), if it is there."""
    folder = samples_dir
    return folder / "gpt2" if folder is not None and (folder / "gpt2" / "vocab.json").is_file() else None


def reference_tokenizers(samples_dir: Path | None) -> dict[str, str]:
    """Known tokenizers loadable by name: the bundled GPT-2, and tiktoken's encodings already in its cache."""
    found: dict[str, str] = {}
    gpt2 = bundled_gpt2(samples_dir)
    if gpt2 is not None:
        found[str(gpt2)] = "GPT-2, bundled with bpe-tui"
    for name in cached_reference_names():
        found[name] = "from tiktoken's cache (never downloaded)"
    return found


async def file_read(app: OpeningApp, event: Worker.StateChanged) -> None:
    """A worker of group ``load`` (or the start-up GPT-2's) ended: add what it read, or say why it could not."""
    worker = event.worker
    if worker.group == REFERENCE_GROUP:
        # The start-up GPT-2 joins quietly: it must not take the place of the tokenizer being trained.
        if event.state == WorkerState.SUCCESS and isinstance(worker.result, LoadedTokenizer):
            app.session.add_tokenizer(worker.result, activate=False)
            app.call_after_refresh(settle_heap)
        return
    if worker.group != "load":
        return
    if event.state == WorkerState.SUCCESS and isinstance(worker.result, LoadedTokenizer):
        loaded = worker.result.named_apart_from(app.session.tokenizers)
        app.session.add_tokenizer(loaded)
        app.notify(f"Loaded {loaded.shown_name}", title="Tokenizer", markup=False)
        app.call_after_refresh(settle_heap)
    elif event.state == WorkerState.SUCCESS and isinstance(worker.result, DecodedIds):
        await app.show_decoded(worker.result)
    elif event.state == WorkerState.ERROR:
        error = worker.error
        if isinstance(error, TextNotTokenizerError):
            offer_as_corpus(app, Path(str(error.path)))
            return
        message = str(error) if isinstance(error, BPEError) else f"{worker.name}: {type(error).__name__}: {error}"
        title = "Could not decode the ids" if isinstance(error, (IdsFileError, IdsNotDecodable)) else (
            "Could not load tokenizer"
        )
        app.notify(shown_text(message), title=title, severity="error", timeout=10, markup=False)


def offer_as_corpus(app: OpeningApp, path: Path) -> None:
    """ctrl+o was given a text file: say it looks like a corpus, and make it the corpus if the user agrees.

    A dialog, not a toast, because it asks; it opens only as the answer to the user's own ctrl+o.
    """

    def chosen(use: bool | None) -> None:
        if not use:
            return
        corpus = path.expanduser().absolute()
        remember(app.services.recent_store, corpus)
        app.session.set_corpus(corpus)
        app.switch_mode("corpus")
        app.notify(f"Corpus: {shown_text(corpus)}", markup=False)

    app.push_screen(CorpusOfferDialog(path), chosen)


def ask_for_file(app: OpeningApp) -> None:
    """ctrl+o: ask for a tokenizer file, an id file or a reference encoding's name, then open it."""

    def chosen(path: Path | None) -> None:
        if path is not None:
            app.open_file(path)

    names = cached_reference_names()
    title = "Open a tokenizer file (any format) or ids (.npy)"
    title += f", or {' / '.join(names)} by name" if names else ""
    # Every reference name is taken as a name, cached or not: one not cached then fails saying how to cache
    # it, where the dialog said "cl100k_base: no such file".
    app.push_screen(
        PathDialog(title, str(app.services.corpus_root) + "/", "Open", names=tuple(REFERENCE_ENCODINGS)), chosen
    )
