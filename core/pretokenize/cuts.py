"""Where a corpus can be cut for export, so that encoding the pieces one by one gives the ids of the whole.

Safe cuts:

* right after a special token occurrence that overlaps no other occurrence: encoding splits the text
  there anyway, and with no overlap the longest-first matcher is certain to pick that occurrence;
* for GPT-2's pattern, before an ASCII whitespace byte that follows a non-whitespace character and is
  not inside a special token: no GPT-2 pre-token contains "non-space then space", and nothing before
  the cut looks past it. A cut right *after* whitespace is not safe, because ``\\s+(?!\\S)`` leaves the
  last space of a run for the next word.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from core.train.reading import char_before_is_whitespace
from core.pretokenize.patterns import GPT2_PATTERN

_WHITESPACE_BYTES = b" \n\t\r\x0b\x0c"
_FIRST_SEARCH_BYTES = 1 << 12
"""How far past a target offset the search for a cut first reads. A cut nearly always turns up within a
few bytes (the next space), and reading a large block at every cut delayed an export before the work
could be shared out. Each further search reads twice as far, up to :data:`_MAX_SEARCH_BYTES`."""
_MAX_SEARCH_BYTES = 1 << 20


def _occurrences(data: bytes, token: bytes, lo: int, hi: int) -> Iterator[int]:
    """Starts of ``token`` in ``data`` at positions ``lo <= at < hi``."""
    stop = hi + len(token) - 1  # an occurrence starting before ``hi`` ends by here
    at = data.find(token, max(lo, 0), stop)
    while at != -1:
        yield at
        at = data.find(token, at + 1, stop)


def _spanned(data: bytes, p: int, specials: list[bytes]) -> bool:
    """Whether some special token occurrence has ``p`` strictly inside it."""
    return any(at < p for token in specials for at in _occurrences(data, token, p - len(token) + 1, p))


def _isolated(data: bytes, start: int, end: int, specials: list[bytes]) -> bool:
    """Whether the occurrence ``[start, end)`` overlaps no other special token occurrence."""
    for token in specials:
        for at in _occurrences(data, token, start - len(token) + 1, end):
            if (at, at + len(token)) != (start, end):
                return False
    return True


def first_safe_cut(data: bytes, lo: int, hi: int, specials: list[bytes], *, whitespace: bool) -> int | None:
    """The earliest safe cut ``p`` with ``lo <= p < hi`` in ``data`` (see the module docstring), or ``None``.

    ``data`` must extend at least the longest special token's length beyond both ends of ``[lo, hi)``
    (or be the whole file there), so that no occurrence around a candidate is missed.

    >>> first_safe_cut(b"ab  cd ef", 1, 9, [], whitespace=True)
    2
    >>> first_safe_cut(b"x<s>y z", 1, 7, [b"<s>"], whitespace=False)
    4
    """
    best: int | None = None
    if whitespace:
        for space in _WHITESPACE_BYTES:
            at = data.find(space, max(lo, 1), hi if best is None else best)
            while at != -1:
                if not char_before_is_whitespace(data, at) and not _spanned(data, at, specials):
                    best = at
                    break
                at = data.find(space, at + 1, hi if best is None else best)
    for token in specials:
        for at in _occurrences(data, token, lo - len(token), hi - len(token)):
            end = at + len(token)
            if lo <= end and (best is None or end < best) and _isolated(data, at, end, specials):
                best = end
                break
    return best


def chunk_ranges(
    path: Path, special_tokens: list[str], pattern: str, chunk_bytes: int, first_chunk_bytes: int | None = None
) -> Iterator[tuple[int, int]]:
    """Byte ranges ``(start, end)`` covering ``path`` in order, each ending at a safe cut near ``chunk_bytes``
    (the first one near ``first_chunk_bytes``, when given).

    Reads only a window around each target offset. A chunk grows past ``chunk_bytes`` until a safe cut
    turns up, so a file with none (one huge pre-token, or a custom pattern and no special tokens) is one
    chunk.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "c.txt"; _ = path.write_bytes(b"one two  three")
    >>> list(chunk_ranges(path, [], GPT2_PATTERN, 4))
    [(0, 7), (7, 14)]
    >>> list(chunk_ranges(path, [], GPT2_PATTERN, 20, first_chunk_bytes=2))
    [(0, 3), (3, 14)]
    """
    size = path.stat().st_size
    specials = [token.encode("utf-8") for token in special_tokens]
    margin = max((len(token) for token in specials), default=0) + 4
    whitespace = pattern == GPT2_PATTERN
    start = 0
    with open(path, "rb") as handle:
        while start < size:
            lo = start + (first_chunk_bytes if start == 0 and first_chunk_bytes else chunk_bytes)
            cut = None
            block = _FIRST_SEARCH_BYTES
            while cut is None and lo < size:
                base = max(0, lo - margin)
                handle.seek(base)
                data = handle.read(lo - base + block + margin)
                hi = lo + block if base + len(data) < size else base + len(data)
                end = min(hi, base + len(data))
                found = first_safe_cut(data, lo - base, end - base, specials, whitespace=whitespace)
                cut = None if found is None else base + found
                lo = hi
                block = min(2 * block, _MAX_SEARCH_BYTES)
            end = size if cut is None or cut >= size else cut
            yield start, end
            start = end
