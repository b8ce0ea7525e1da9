"""Reading the files the app opens (ctrl+o, a tokenizer given on the command line, the bundled GPT-2), in a
worker thread: each function returns what the app adds to the session, or raises ``BPEError`` with a
one-line reason for the notification.
"""

from __future__ import annotations

from pathlib import Path

from core.formats.tiktoken_cache import REFERENCE_ENCODINGS, load_reference

from bpe_tui.opened_ids import DecodedIds, decode_id_file, is_id_file
from bpe_tui.session import LoadedTokenizer


def read_opened_file(path: Path, active: LoadedTokenizer | None, known: tuple[LoadedTokenizer, ...]) -> LoadedTokenizer | DecodedIds:
    """ctrl+o's file, read in a worker thread: ids decoded with ``active`` if it is an id file, else a tokenizer."""
    if is_id_file(path):
        return decode_id_file(path, active, known)
    return read_tokenizer(path)


def read_tokenizer(path: Path) -> LoadedTokenizer:
    """Read and build a tokenizer (in a worker thread); raises ``BPEError`` with a one-line reason.

    A path that does not exist but is the name of a reference encoding (``cl100k_base``) is read from
    tiktoken's cache.
    """
    from core.formats import load_tokenizer

    if str(path) in REFERENCE_ENCODINGS and not path.exists():
        return LoadedTokenizer.from_model(load_reference(str(path)), name=str(path))
    model = load_tokenizer(path)
    # The file's own name tells loaded tokenizers apart better than the name stored inside it.
    return LoadedTokenizer.from_model(model, name=path.stem or model.name, source=path)
