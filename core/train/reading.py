"""Reading a corpus for training: validation, chunking at safe boundaries, and per-chunk pre-token counts.

A corpus is never read whole into one process. It is cut into chunks whose boundaries cannot change the
pre-tokenisation: at the start of a special token (documents are split there anyway) or, failing that,
between a non-whitespace character and a following ASCII whitespace byte. The GPT-2 pattern always has a
pre-token boundary there, and no lookahead (``\\s+(?!\\S)``) can see across it, so counting chunk by chunk
gives exactly the counts of the whole text.

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
from core.pretokenize.fast_split import splitter_for
from core.pretokenize.patterns import compile_pattern, split_documents

_ASCII_WHITESPACE = frozenset(" \t\n\x0b\x0c\r")
"""What ``\\s`` matches in ``regex`` among ASCII characters (a test checks it against ``regex``)."""
_SEARCH_BLOCK = 1 << 16
_MAX_SEARCH = 1 << 22  # give up moving a boundary after 4 MiB: the chunk just grows
TARGET_CHUNK_BYTES = 1 << 20
"""Chunk size for reading: a worker's peak grows with its chunk (the chunk's list of pre-tokens), so a fixed
chunk size keeps each worker's memory bounded whatever the corpus size."""


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


def char_before_is_whitespace(data: bytes, p: int) -> bool:
    """Whether the character ending just before byte ``p`` of ``data`` is whitespace (``\\s`` in ``regex``)."""
    start = p - 1
    while start > 0 and p - start < 4 and 0x80 <= data[start] < 0xC0:
        start -= 1
    char = data[start:p].decode("utf-8", errors="replace")
    if not char:
        return False
    if char.isascii():
        return char[-1] in _ASCII_WHITESPACE
    import regex  # here: only corpora with non-ASCII text need it, and it is slow to import

    return regex.match(r"\s", char[-1]) is not None


def _occurrences(data: bytes, specials: list[bytes]) -> list[tuple[int, int]]:
    """Every (start, end) where some special token occurs in ``data``, overlapping ones included."""
    spans = []
    for token in specials:
        at = data.find(token)
        while at != -1:
            spans.append((at, at + len(token)))
            at = data.find(token, at + 1)
    spans.sort()
    return spans


def _safe_cut(data: bytes, specials: list[bytes], start: int, limit: int) -> int | None:
    """The first safe chunk boundary ``p`` with ``start <= p < limit`` in ``data``, or None.

    ``data`` must hold enough bytes around the window (twice the longest special token on each side) to
    see every special-token occurrence that touches it.

    A special token's start is safe only where no other occurrence overlaps it (``\\n\\n`` in
    ``\\n\\n\\n`` or ``text`` inside ``<|endoftext|>`` are not): then the whole text is split there
    too, whatever came before. A whitespace cut must not fall inside any occurrence.
    """
    spans = _occurrences(data, specials) if specials else []
    for i, (s, e) in enumerate(spans):
        if s < start or s >= limit:
            continue
        before = spans[i - 1][1] > s if i > 0 else False
        after = i + 1 < len(spans) and spans[i + 1][0] < e
        if not before and not after and not any(s2 < s < e2 for s2, e2 in spans[:i]):
            return s
    for ws in (b"\n", b" ", b"\t", b"\r"):
        at = data.find(ws, max(start, 1), limit)
        while at != -1:
            if not char_before_is_whitespace(data, at) and not any(s < at < e for s, e in spans):
                return at
            at = data.find(ws, at + 1, limit)
    return None


def chunk_boundaries(path: Path, special_tokens: list[str], n_chunks: int) -> list[int]:
    """Byte offsets ``[0, ..., size]`` cutting ``path`` into about ``n_chunks`` chunks at safe boundaries.

    >>> import tempfile; p = Path(tempfile.mkstemp()[1]); _ = p.write_bytes(b"ab cd ef gh")
    >>> chunk_boundaries(p, [], 4)
    [0, 2, 5, 8, 11]
    """
    size = path.stat().st_size
    specials = [t.encode("utf-8") for t in special_tokens]
    margin = 2 * max((len(t) for t in specials), default=1) + 4
    bounds = [0]
    with open(path, "rb") as f:
        for i in range(1, n_chunks):
            target = max(size * i // n_chunks, bounds[-1] + 1)
            cut = None
            searched = 0
            while target + searched < size and searched < _MAX_SEARCH:
                # Read a margin on both sides of the window: the character before a candidate cut decides
                # if it is safe, and special tokens overlapping the window must all be seen.
                window = target + searched
                base = max(0, window - margin)
                f.seek(base)
                block = f.read(window - base + _SEARCH_BLOCK + margin)
                at_end = base + len(block) >= size
                limit = len(block) if at_end else window - base + _SEARCH_BLOCK
                at = _safe_cut(block, specials, window - base, limit)
                if at is not None:
                    cut = base + at
                    break
                searched += _SEARCH_BLOCK
            if cut is not None and bounds[-1] < cut < size:
                bounds.append(cut)
    bounds.append(size)
    return bounds


def decode_chunk(data: bytes, path: Path, offset: int, errors: str) -> str:
    """Decode one chunk, naming the exact byte offset of a NUL byte or of invalid UTF-8."""
    nul = data.find(b"\x00")
    if nul != -1:
        raise CorpusError(
            f"{path}: NUL byte at byte offset {offset + nul}; this looks like a binary file, give a text corpus"
        )
    try:
        return data.decode("utf-8", errors=errors)
    except UnicodeDecodeError as error:
        bad = data[error.start]
        raise CorpusError(
            f"{path}: invalid UTF-8 at byte offset {offset + error.start} (byte 0x{bad:02x}); "
            "fix the file or train with --errors replace"
        ) from None


def count_pretokens(text: str, special_tokens: list[str], pattern: str, counts: Counter[str] | None = None) -> Counter[str]:
    """Count the pre-tokens of ``text``, documents split at special tokens (adding to ``counts`` if given).

    >>> count_pretokens("low low<|endoftext|>low", ["<|endoftext|>"], compile_pattern().pattern)
    Counter({'low': 2, ' low': 1})
    """
    split = splitter_for(pattern, spell_out_bmp=False)  # ASCII documents: stdlib re, faster than regex
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
