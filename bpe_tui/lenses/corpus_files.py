"""Reading a corpus file a lens is given (``--corpus PATH``), or the bundled one it defaults to, as text."""

from __future__ import annotations

from pathlib import Path

from core.errors import CorpusError
from core.input_files import check_regular_file, shown_path


def read_corpus(path: Path) -> str:
    """The UTF-8 text of ``path``.

    Raises:
        CorpusError: one line naming the file: missing, not a regular file, unreadable or not UTF-8.
    """
    check_regular_file(path, CorpusError)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise CorpusError(f"{shown_path(path)}: {error.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CorpusError(f"{shown_path(path)}: not valid UTF-8 at byte {error.start:,}; give a UTF-8 text file") from None


def bundled(folder: Path | None, name: str) -> Path:
    """The bundled sample file ``name``.

    Raises:
        CorpusError: this installation has no such file; the message says to give one.
    """
    if folder is None or not (folder / name).is_file():
        raise CorpusError(f"the bundled {name} is missing from this installation; give a corpus with --corpus")
    return folder / name
