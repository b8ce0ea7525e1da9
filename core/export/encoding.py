"""Encoding one chunk of a corpus into little-endian id bytes, and appending it to an export's file.

Both the exporting process and its worker processes encode chunks, so this sits below both; a test that
patches :func:`encode_range` here reaches every process that is forked after the patch.
"""

from __future__ import annotations

import sys
from array import array
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from core.errors import CorpusError
from core.output_errors import OutputError, describe_write_error
from core.input_files import HEAD_BYTES, encoding_problem, shown_path

if TYPE_CHECKING:
    from core.encode.tokenizer import Tokenizer


def _decode(data: bytes, path: Path, offset: int) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        head = data[:HEAD_BYTES] if offset == 0 and len(data) >= HEAD_BYTES else _file_start(path)
        fix = encoding_problem(head) or "export needs a UTF-8 text corpus"
        raise CorpusError(
            f"{path}: invalid UTF-8 at byte offset {offset + error.start} (byte 0x{data[error.start]:02x}); {fix}"
        ) from None


def _file_start(path: Path) -> bytes:
    """The start of ``path`` (a worker's chunk may lie anywhere in it), for a message."""
    try:
        with open(path, "rb") as handle:
            return handle.read(HEAD_BYTES)
    except OSError:
        return b""


_TYPECODES = {"uint16": "H", "uint32": "I" if array("I").itemsize == 4 else "L"}
ITEM_BYTES = {"uint16": 2, "uint32": 4}
"""Bytes per id for each id dtype."""


def encode_range(tokenizer: Tokenizer, path: Path, start: int, end: int, dtype: str) -> bytes:
    """The little-endian id bytes of ``path[start:end]``: one chunk of an export."""
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read(end - start)
    ids = array(_TYPECODES[dtype], tokenizer.encode(_decode(data, path, start)))
    if sys.byteorder == "big":
        ids.byteswap()
    return ids.tobytes()


def write_flushed(handle: BinaryIO, data: bytes, out: Path) -> None:
    """Write ``data`` to ``handle`` (the file ``out``), raising OutputError when it cannot."""
    # Flushed at once, so that a full disk is reported here, as an OutputError, and not at some later close.
    try:
        handle.write(data)
        handle.flush()
    except OSError as error:
        raise OutputError(f"cannot write {shown_path(out)}: {describe_write_error(error)}") from None


def encode_into(handle: BinaryIO, tokenizer: Tokenizer, corpus: Path, chunk: tuple[int, int], dtype: str,
                out: Path) -> int:
    """Append the ids of one chunk to ``handle``; returns how many there were."""
    ids = encode_range(tokenizer, corpus, *chunk, dtype)
    write_flushed(handle, ids, out)
    return len(ids) // ITEM_BYTES[dtype]
