"""Corpus export: encode a whole text file to a ``.npy`` array of token ids, in parallel, in bounded memory.

The file is cut into chunks at places where cutting cannot change the ids, each chunk is encoded on its
own (by worker processes when ``workers > 1``) and the ids are appended to the output in file order, so
the result is exactly ``Tokenizer.encode`` of the whole text whatever the worker count. Safe cuts:

* right after a special token occurrence that overlaps no other occurrence: encoding splits the text
  there anyway, and with no overlap the longest-first matcher is certain to pick that occurrence;
* for GPT-2's pattern, before an ASCII whitespace byte that follows a non-whitespace character and is
  not inside a special token: no GPT-2 pre-token contains "non-space then space", and nothing before
  the cut looks past it. A cut right *after* whitespace is not safe, because ``\\s+(?!\\S)`` leaves the
  last space of a run for the next word.

The ``.npy`` (format 1.0) header is written by hand, so the app does not need numpy: a fixed 128-byte
placeholder goes first, the ids stream after it, and the real header (with the final length) is written
over the placeholder before the file is atomically renamed into place.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from array import array
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import regex

from core.corpus import check_corpus_path
from core.errors import BPEError, CorpusError, SettingsError
from core.formats.atomic import atomic_open
from core.model import BPEModel
from core.patterns import GPT2_PATTERN

if TYPE_CHECKING:
    from core.tokenizer import Tokenizer

HEADER_BYTES = 128
"""Total size of the ``.npy`` preamble we write (magic, version, length, padded header dict)."""

_WHITESPACE_BYTES = b" \n\t\r\x0b\x0c"
_WHITESPACE = regex.compile(r"\s")
_SEARCH_BLOCK = 1 << 16
_MIN_TAPERED = 1 << 14


@dataclass(frozen=True, slots=True)
class ExportProgress:
    """Chunks done so far: ``done_bytes`` of ``total_bytes`` of the corpus, giving ``tokens`` ids."""

    done_bytes: int
    total_bytes: int
    tokens: int


@dataclass(frozen=True, slots=True)
class ExportFinished:
    """The last event: ``tokens`` ids of type ``dtype`` (``"uint16"``/``"uint32"``) are in ``path``."""

    path: Path
    tokens: int
    dtype: str
    corpus_bytes: int


def id_dtype(model: BPEModel) -> str:
    """``"uint16"`` when every id fits in 16 bits, else ``"uint32"``.

    >>> id_dtype(BPEModel({65535: b"x"}, [])), id_dtype(BPEModel({65536: b"x"}, []))
    ('uint16', 'uint32')
    """
    return "uint16" if max(model.vocab, default=0) < 1 << 16 else "uint32"


def npy_header(dtype: str, length: int) -> bytes:
    """A ``.npy`` format 1.0 preamble for a 1-D little-endian array, padded to :data:`HEADER_BYTES`.

    >>> header = npy_header("uint16", 3)
    >>> len(header), header[:8], b"'shape': (3,)" in header
    (128, b'\\x93NUMPY\\x01\\x00', True)
    """
    descr = {"uint16": "<u2", "uint32": "<u4"}[dtype]
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({length},), }}"
    body = text.ljust(HEADER_BYTES - 10 - 1) + "\n"
    return b"\x93NUMPY\x01\x00" + len(body).to_bytes(2, "little") + body.encode("latin-1")


def _char_before_is_whitespace(data: bytes, p: int) -> bool:
    start = p - 1
    while start > 0 and p - start < 4 and 0x80 <= data[start] < 0xC0:
        start -= 1
    char = data[start:p].decode("utf-8", errors="replace")
    return _WHITESPACE.match(char[-1]) is not None


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
                if not _char_before_is_whitespace(data, at) and not _spanned(data, at, specials):
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
    path: Path, special_tokens: list[str], pattern: str, chunk_bytes: int, *, taper: int = 0
) -> Iterator[tuple[int, int]]:
    """Byte ranges ``(start, end)`` covering ``path`` in order, each ending at a safe cut near ``chunk_bytes``.

    Reads only a window around each target offset. A chunk grows past ``chunk_bytes`` until a safe cut
    turns up, so a file with none (one huge pre-token, or a custom pattern and no special tokens) is one
    chunk. With ``taper = k``, chunks shrink to ``remaining // k`` towards the end (down to 16 KiB), so
    parallel workers finish together instead of one waiting for another's last big chunk.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "c.txt"; _ = path.write_bytes(b"one two  three")
    >>> list(chunk_ranges(path, [], GPT2_PATTERN, 4))
    [(0, 7), (7, 14)]
    """
    size = path.stat().st_size
    specials = [token.encode("utf-8") for token in special_tokens]
    margin = max((len(token) for token in specials), default=0) + 4
    whitespace = pattern == GPT2_PATTERN
    start = 0
    with open(path, "rb") as handle:
        while start < size:
            target = chunk_bytes if not taper else min(chunk_bytes, max((size - start) // taper, _MIN_TAPERED))
            lo = start + target
            cut = None
            while cut is None and lo < size:
                base = max(0, lo - margin)
                handle.seek(base)
                data = handle.read(lo - base + _SEARCH_BLOCK + margin)
                hi = lo + _SEARCH_BLOCK if base + len(data) < size else base + len(data)
                end = min(hi, base + len(data))
                found = first_safe_cut(data, lo - base, end - base, specials, whitespace=whitespace)
                cut = None if found is None else base + found
                lo = hi
            end = size if cut is None or cut >= size else cut
            yield start, end
            start = end


def _decode(data: bytes, path: Path, offset: int) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CorpusError(
            f"{path}: invalid UTF-8 at byte offset {offset + error.start} (byte 0x{data[error.start]:02x}); "
            "export needs a UTF-8 text corpus"
        ) from None


_TYPECODES = {"uint16": "H", "uint32": "I" if array("I").itemsize == 4 else "L"}


def encode_range(tokenizer: Tokenizer, path: Path, start: int, end: int, dtype: str) -> bytes:
    """The little-endian id bytes of ``path[start:end]``: one chunk of an export."""
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read(end - start)
    ids = array(_TYPECODES[dtype], tokenizer.encode(_decode(data, path, start)))
    if sys.byteorder == "big":
        ids.byteswap()
    return ids.tobytes()


_worker_tokenizer: Tokenizer | None = None


def _init_worker(source: BPEModel | Tokenizer) -> None:
    """Give the worker its tokenizer: a forked worker inherits the parent's (cache included), a spawned one
    builds it from the model, which pickles small and fast."""
    from core.tokenizer import Tokenizer

    # Ctrl-C reaches the whole process group; the parent alone handles it (cancels and cleans up), so a
    # worker must not die mid-chunk and turn an interrupt into a broken pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    global _worker_tokenizer
    _worker_tokenizer = source if isinstance(source, Tokenizer) else Tokenizer.from_model(source)


def _encode_job(job: tuple[str, int, int, str]) -> bytes:
    path, start, end, dtype = job
    assert _worker_tokenizer is not None, "worker not initialised"
    return encode_range(_worker_tokenizer, Path(path), start, end, dtype)


def default_chunk_bytes(size: int, workers: int) -> int:
    """Chunks small enough for ~8 per worker (load balance, frequent progress), large enough to be cheap.

    >>> default_chunk_bytes(2 << 20, 2), default_chunk_bytes(10 << 30, 2)
    (131072, 4194304)
    """
    return min(max(size // (8 * max(workers, 1)), 64 << 10), 4 << 20)


def export_events(
    corpus: str | os.PathLike[str],
    tokenizer: BPEModel | Tokenizer,
    out: str | os.PathLike[str],
    *,
    workers: int = 1,
    chunk_bytes: int | None = None,
) -> Iterator[ExportProgress | ExportFinished]:
    """Encode ``corpus`` into the ``.npy`` file ``out``, yielding progress after each chunk and a final event.

    ``workers > 1`` encodes chunks in that many processes (forked where the platform allows, since the
    model is then shared without pickling); the output is identical for every worker count. At most
    ``2 * workers`` chunks are in flight, so memory stays bounded whatever the corpus size. Closing the
    generator early stops the export and leaves no file behind.

    Raises:
        CorpusError: missing or unreadable corpus, invalid UTF-8 (with the byte offset).
        SettingsError: ``workers`` or ``chunk_bytes`` below 1.
        OutputError: ``out`` cannot be written.

    >>> import tempfile, pathlib
    >>> from core.model import BPEModel
    >>> folder = pathlib.Path(tempfile.mkdtemp()); _ = (folder / "c.txt").write_text("ab ab")
    >>> model = BPEModel({i: bytes([i]) for i in range(256)} | {256: b"ab"}, [(b"a", b"b")])
    >>> list(export_events(folder / "c.txt", model, folder / "ids.npy"))[-1].tokens
    3
    """
    if workers < 1 or (chunk_bytes is not None and chunk_bytes < 1):
        raise SettingsError(f"workers ({workers}) and chunk size ({chunk_bytes}) must be at least 1")
    path = check_corpus_path(corpus)
    model: BPEModel = getattr(tokenizer, "model", tokenizer)
    size = path.stat().st_size
    dtype = id_dtype(model)
    taper = 0 if chunk_bytes or workers == 1 else 2 * workers
    chunk_bytes = chunk_bytes or default_chunk_bytes(size, workers)
    ranges = chunk_ranges(path, list(model.special_tokens), model.pattern, chunk_bytes, taper=taper)
    chunks = _encoded_chunks(path, ranges, tokenizer, model, dtype, workers)
    tokens = done = 0
    try:
        with atomic_open(out) as handle:
            handle.write(bytes(HEADER_BYTES))
            for start, end, chunk in chunks:
                handle.write(chunk)
                tokens += len(chunk) // (2 if dtype == "uint16" else 4)
                done += end - start
                yield ExportProgress(done_bytes=done, total_bytes=size, tokens=tokens)
            handle.seek(0)
            handle.write(npy_header(dtype, tokens))
    finally:
        # Explicitly, so that a caller abandoning the export stops the workers now rather than at garbage collection.
        chunks.close()
        ranges.close()
    yield ExportFinished(path=Path(out), tokens=tokens, dtype=dtype, corpus_bytes=size)


def _encoded_chunks(
    path: Path,
    ranges: Iterator[tuple[int, int]],
    tokenizer: BPEModel | Tokenizer,
    model: BPEModel,
    dtype: str,
    workers: int,
) -> Iterator[tuple[int, int, bytes]]:
    """Encoded chunks in file order: ``workers - 1`` child processes plus this one, which encodes chunks
    itself whenever the oldest outstanding chunk is not back yet (so it is never idle, and ``workers=2``
    on two cores uses both)."""
    from core.tokenizer import Tokenizer

    local = tokenizer if isinstance(tokenizer, Tokenizer) else Tokenizer.from_model(model)
    if workers == 1:
        for start, end in ranges:
            yield start, end, encode_range(local, path, start, end, dtype)
        return
    forking = "fork" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if forking else "spawn")
    pool = ProcessPoolExecutor(workers - 1, mp_context=context, initializer=_init_worker,
                               initargs=(local if forking else model,))
    pending: deque[tuple[int, int, Future[bytes] | bytes]] = deque()
    limit = 4 * workers  # chunks held at once, whoever encodes them: bounds memory
    exhausted = False
    try:
        while True:
            while pending and _ready(pending[0][2]):
                yield _result(pending.popleft())
            if exhausted and not pending:
                return
            # Refill before anything else, so a worker never idles while this process encodes a chunk.
            unfinished = sum(1 for *_, outcome in pending if not _ready(outcome))
            while not exhausted and unfinished < 2 * (workers - 1) and len(pending) < limit:
                item = next(ranges, None)
                if item is None:
                    exhausted = True
                else:
                    pending.append((*item, pool.submit(_encode_job, (str(path), *item, dtype))))
                    unfinished += 1
            if exhausted or len(pending) >= limit:
                if pending:
                    yield _result(pending.popleft())  # nothing else to do: wait for the oldest chunk
                continue
            item = next(ranges, None)
            if item is None:
                exhausted = True
            else:
                pending.append((*item, encode_range(local, path, *item, dtype)))
    except BrokenProcessPool:
        raise BPEError("an export worker process died (killed, or out of memory?); try fewer --workers") from None
    finally:
        # On error or early close, do not wait for chunks nobody will read.
        pool.shutdown(wait=not pending, cancel_futures=True)


def _ready(outcome: Future[bytes] | bytes) -> bool:
    return not isinstance(outcome, Future) or outcome.done()


def _result(item: tuple[int, int, Future[bytes] | bytes]) -> tuple[int, int, bytes]:
    start, end, outcome = item
    return start, end, outcome.result() if isinstance(outcome, Future) else outcome


def export_corpus(
    corpus: str | os.PathLike[str],
    tokenizer: BPEModel | Tokenizer,
    out: str | os.PathLike[str],
    *,
    workers: int = 1,
    chunk_bytes: int | None = None,
    on_progress: Callable[[ExportProgress], None] | None = None,
) -> ExportFinished:
    """Run :func:`export_events` to the end, passing each progress event to ``on_progress``.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp()); _ = (folder / "c.txt").write_text("hi hi")
    >>> model = BPEModel({i: bytes([i]) for i in range(256)} | {256: b"hi"}, [(b"h", b"i")])
    >>> export_corpus(folder / "c.txt", model, folder / "ids.npy", on_progress=print).dtype
    ExportProgress(done_bytes=5, total_bytes=5, tokens=3)
    'uint16'
    """
    finished: ExportFinished | None = None
    for event in export_events(corpus, tokenizer, out, workers=workers, chunk_bytes=chunk_bytes):
        if isinstance(event, ExportFinished):
            finished = event
        elif on_progress is not None:
            on_progress(event)
    assert finished is not None
    return finished
