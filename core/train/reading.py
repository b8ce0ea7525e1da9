"""Reading a corpus for training: validation, hashing, and the pre-token counts of one chunk of the file.

A corpus is never read whole into one process where it need not be: it is cut into chunks where cutting
cannot change the pre-tokens (:func:`core.pretokenize.cuts.chunk_boundaries`, the rule export uses too),
so counting chunk by chunk gives exactly the counts of the whole text.

Counted chunk by chunk, in one process or several, the pre-tokens must equal
:func:`core.reference.count_pretokens` on the whole text. Chunks let several processes count at once
and keep each one's memory bounded; ASCII documents are split by the stdlib ``re`` engine, which is
faster than ``regex`` there.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from pathlib import Path

from core.errors import CorpusError
from core.input_files import HEAD_BYTES, encoding_problem, nul_byte_problem
from core.pretokenize.fast_split import splitter_for
from core.pretokenize.patterns import split_documents

TARGET_CHUNK_BYTES = 1 << 20
"""Chunk size for reading: a worker's peak is about ten times its chunk (the list of pre-tokens), so 1 MiB
keeps each worker near 10 MiB whatever the corpus size."""


_REPLACE_FIX = "fix the file, or train with errors 'replace' to read such bytes as U+FFFD"
"""What to do about invalid UTF-8 in a corpus a run reads (``train --errors``, the corpus form's errors)."""


def check_corpus_path(path: str | os.PathLike[str]) -> Path:
    """Return ``path`` as a Path if it is a readable regular file; otherwise raise a one-line CorpusError.

    FIFOs, devices, sockets and files whose size is not their length (``/proc``) are refused without
    blocking: see :func:`core.input_files.check_regular_file`.
    """
    from core.input_files import check_regular_file

    return check_regular_file(path, CorpusError)


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def decode_chunk(data: bytes, path: Path, offset: int, errors: str, *, fix: str = _REPLACE_FIX) -> str:
    """Decode one chunk, naming the exact byte offset of a NUL byte or of invalid UTF-8 (then saying ``fix``)."""
    nul = data.find(b"\x00")
    if nul != -1:
        problem = nul_byte_problem(_file_start(path, data, offset))
        raise CorpusError(f"{path}: NUL byte at byte offset {offset + nul}; {problem}")
    try:
        return data.decode("utf-8", errors=errors)
    except UnicodeDecodeError as error:
        bad = data[error.start]
        problem = encoding_problem(_file_start(path, data, offset)) or fix
        raise CorpusError(
            f"{path}: invalid UTF-8 at byte offset {offset + error.start} (byte 0x{bad:02x}); {problem}"
        ) from None


def _file_start(path: Path, data: bytes, offset: int) -> bytes:
    """The first bytes of the file ``data`` (read at ``offset``) comes from, for a message."""
    if offset == 0 and len(data) >= HEAD_BYTES:
        return data[:HEAD_BYTES]
    try:
        with open(path, "rb") as handle:
            return handle.read(HEAD_BYTES)
    except OSError:
        return b""


def read_text_file(path: str | os.PathLike[str]) -> str:
    """A whole UTF-8 text file, with the corpus checks: a regular file, no NUL byte, valid UTF-8.

    Raises:
        CorpusError: one line naming the file and the problem (and the byte offset where it is).
    """
    checked = check_corpus_path(path)
    # Its readers (diff --corpus, study's evaluation texts) have no errors setting to suggest.
    return decode_chunk(checked.read_bytes(), checked, 0, "strict", fix="fix the file: it must be UTF-8 text")


def count_pretokens(text: str, special_tokens: list[str], pattern: str, counts: Counter[str] | None = None) -> Counter[str]:
    """Count the pre-tokens of ``text``, documents split at special tokens (adding to ``counts`` if given).

    >>> from core.pretokenize.patterns import compile_pattern
    >>> count_pretokens("low low<|endoftext|>low", ["<|endoftext|>"], compile_pattern().pattern)
    Counter({'low': 2, ' low': 1})
    """
    split = splitter_for(pattern, spell_out_bmp=False)  # ASCII documents: stdlib re, twice as fast
    if counts is None:
        counts = Counter()
    for document in split_documents(text, special_tokens):
        counts.update(split(document))
    return counts


def count_chunk(job: tuple[str, int, int, list[str], str, str]) -> tuple[int, dict[str, int]]:
    """Worker entry point: read bytes ``[start, end)`` of a file and count its pre-tokens.

    Returns the number of bytes read (for progress) and the counts. Module-level so it pickles.
    """
    return count_chunks([job])


def count_chunks(jobs: list[tuple[str, int, int, list[str], str, str]]) -> tuple[int, dict[str, int]]:
    """Worker entry point: count the pre-tokens of several chunks (as ``count_chunk``), one result for all.

    One result instead of one per chunk: less to pickle, and the adding up is done in the worker.
    """
    counts: Counter[str] = Counter()
    done = 0
    for path_str, start, end, special_tokens, pattern, errors in jobs:
        path = Path(path_str)
        with open(path, "rb") as f:
            f.seek(start)
            data = f.read(end - start)
        count_pretokens(decode_chunk(data, path, start, errors), special_tokens, pattern, counts)
        done += end - start
    return done, dict(counts)
