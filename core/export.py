"""Corpus export: encode a whole text file to a ``.npy`` array of token ids, in parallel, in bounded memory.

The file is cut into chunks at places where cutting cannot change the ids, each chunk is encoded on its
own and the ids land in the output in file order, so the result is exactly ``Tokenizer.encode`` of the
whole text whatever the worker count. Safe cuts:

* right after a special token occurrence that overlaps no other occurrence: encoding splits the text
  there anyway, and with no overlap the longest-first matcher is certain to pick that occurrence;
* for GPT-2's pattern, before an ASCII whitespace byte that follows a non-whitespace character and is
  not inside a special token: no GPT-2 pre-token contains "non-space then space", and nothing before
  the cut looks past it. A cut right *after* whitespace is not safe, because ``\\s+(?!\\S)`` leaves the
  last space of a run for the next word.

With ``workers > 1`` the work is shared out in a few large pieces rather than many small ones. Handing
small chunks to a process pool and sending their ids back through pipes gained only 1.1-1.2x on two
cores: each worker started with a cold pre-token cache (the tokenizer's speed comes from that cache),
and pickling ids, pipe traffic and per-chunk bookkeeping ate most of the rest. So this process first
encodes a small prefix of the file itself (:data:`PREFIX_SHARE`), which warms its cache; the rest is
split into ``workers`` contiguous groups of about equal size; ``workers - 1`` forked children inherit
the warm tokenizer and each streams its own group into a part file beside the output, while this
process encodes the first group straight into the output; finally the parts are appended in order.
Only small progress reports (and, on failure, an error's type and message) cross the pipes. Where fork
is unavailable the children are spawned and build the tokenizer from the model (cold, but correct).
The part files need disk space for the children's share of the ids until they are appended.

The ``.npy`` (format 1.0) header is written by hand, so the app does not need numpy: a fixed 128-byte
placeholder goes first, the ids stream after it, and the real header (with the final length) is written
over the placeholder before the file is atomically renamed into place.
"""

from __future__ import annotations

import bisect
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import regex

from core.corpus import check_corpus_path
from core.errors import BPEError, CorpusError, SettingsError
from core.formats.atomic import OutputError, atomic_open
from core.model import BPEModel
from core.patterns import GPT2_PATTERN

if TYPE_CHECKING:
    from core.tokenizer import Tokenizer

HEADER_BYTES = 128
"""Total size of the ``.npy`` preamble we write (magic, version, length, padded header dict)."""

_WHITESPACE_BYTES = b" \n\t\r\x0b\x0c"
_WHITESPACE = regex.compile(r"\s")
_SEARCH_BLOCK = 1 << 16

PREFIX_SHARE = 0.03
"""Share of the corpus this process encodes before starting workers, so that they inherit a warm cache."""


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


def chunk_ranges(path: Path, special_tokens: list[str], pattern: str, chunk_bytes: int) -> Iterator[tuple[int, int]]:
    """Byte ranges ``(start, end)`` covering ``path`` in order, each ending at a safe cut near ``chunk_bytes``.

    Reads only a window around each target offset. A chunk grows past ``chunk_bytes`` until a safe cut
    turns up, so a file with none (one huge pre-token, or a custom pattern and no special tokens) is one
    chunk.

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
            lo = start + chunk_bytes
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
_ITEM_BYTES = {"uint16": 2, "uint32": 4}


def encode_range(tokenizer: Tokenizer, path: Path, start: int, end: int, dtype: str) -> bytes:
    """The little-endian id bytes of ``path[start:end]``: one chunk of an export."""
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read(end - start)
    ids = array(_TYPECODES[dtype], tokenizer.encode(_decode(data, path, start)))
    if sys.byteorder == "big":
        ids.byteswap()
    return ids.tobytes()


def default_chunk_bytes(size: int, workers: int) -> int:
    """About 32 chunks per process (an even split, frequent progress), 64 KiB to 1 MiB each (cheap, small).

    >>> default_chunk_bytes(2 << 20, 2), default_chunk_bytes(16 << 20, 2), default_chunk_bytes(10 << 30, 2)
    (65536, 262144, 1048576)
    """
    return min(max(size // (32 * max(workers, 1)), 64 << 10), 1 << 20)


def split_work(
    ranges: list[tuple[int, int]], workers: int, *, prefix_share: float = PREFIX_SHARE
) -> tuple[list[tuple[int, int]], list[list[tuple[int, int]]]]:
    """Chunks this process encodes first, then up to ``workers`` contiguous groups of about equal bytes.

    The prefix (the first chunks up to ``prefix_share`` of the bytes, at least one) warms this process's
    cache before the workers start. With fewer than two chunks left after it there is nothing to share
    out: every chunk is in the prefix and there are no groups.

    >>> ranges = [(0, 10), (10, 20), (20, 30), (30, 40), (40, 50)]
    >>> split_work(ranges, 2, prefix_share=0.1)
    ([(0, 10)], [[(10, 20), (20, 30)], [(30, 40), (40, 50)]])
    >>> split_work(ranges[:2], 4)
    ([(0, 10), (10, 20)], [])
    """
    if not ranges:
        return [], []
    first = ranges[0][0]
    target = first + prefix_share * (ranges[-1][1] - first)
    count = 1
    while count < len(ranges) and ranges[count - 1][1] < target:
        count += 1
    prefix, rest = ranges[:count], ranges[count:]
    groups = min(workers, len(rest))
    if groups < 2:
        return ranges, []
    ends = [end for _, end in rest]
    base = rest[0][0]
    share = (ends[-1] - base) / groups
    cuts = [0]
    for k in range(1, groups):
        target = base + k * share
        at = bisect.bisect_left(ends, target)  # the chunk in which the ideal cut falls
        before = ends[at - 1] if at else base
        nearest = at + 1 if ends[at] - target < target - before else at
        cuts.append(min(max(nearest, cuts[-1] + 1), len(rest) - (groups - k)))  # no group left empty
    cuts.append(len(rest))
    return prefix, [rest[a:b] for a, b in zip(cuts, cuts[1:])]


def _write(handle: BinaryIO, data: bytes, out: Path) -> None:
    # Flushed at once, so that a full disk is reported here, as an OutputError, and not at some later close.
    try:
        handle.write(data)
        handle.flush()
    except OSError as error:
        raise OutputError(f"cannot write {out}: {error.strerror or error}") from None


def _encode_into(handle: BinaryIO, tokenizer: Tokenizer, corpus: Path, chunk: tuple[int, int], dtype: str,
                 out: Path) -> int:
    """Append the ids of one chunk to ``handle``; returns how many there were."""
    ids = encode_range(tokenizer, corpus, *chunk, dtype)
    _write(handle, ids, out)
    return len(ids) // _ITEM_BYTES[dtype]


_DIED = "an export worker process died (killed, or out of memory?); try fewer --workers"


def _encode_part(source: BPEModel | Tokenizer, corpus: Path, ranges: list[tuple[int, int]], part: Path,
                 out: Path, dtype: str, conn: Connection) -> None:
    """A worker process: encode ``ranges`` of ``corpus`` into the file ``part``, reporting on ``conn``.

    Sends ``("progress", bytes, tokens)`` after each chunk, then ``("done",)`` once ``part`` is complete,
    or ``("failed", type, message)``. A forked worker gets the parent's tokenizer (warm cache included),
    a spawned one the model, which pickles small and fast.
    """
    # Ctrl-C reaches the whole process group; the parent alone handles it (stops the workers and cleans
    # up), so a worker must not die mid-chunk and look like a crash. SIGTERM is how the parent stops it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        from core.tokenizer import Tokenizer

        tokenizer = source if isinstance(source, Tokenizer) else Tokenizer.from_model(source)
        with open(part, "wb") as handle:
            for chunk in ranges:
                tokens = _encode_into(handle, tokenizer, corpus, chunk, dtype, out)
                conn.send(("progress", chunk[1] - chunk[0], tokens))
        conn.send(("done",))
    except BaseException as error:  # noqa: BLE001 - whatever it is, the parent must hear of it
        _send_failure(conn, error)
    finally:
        conn.close()


def _send_failure(conn: Connection, error: BaseException) -> None:
    kind, message = type(error), str(error)
    try:
        try:
            conn.send(("failed", kind, message))
        except Exception:  # a type that does not pickle (defined in a function, say): keep its name
            conn.send(("failed", BPEError, f"an export worker failed: {kind.__name__}: {message}"))
    except OSError:
        pass  # the parent has gone; nobody is left to tell


def _rebuild(kind: type, message: str) -> Exception:
    """A worker's error as this process raises it: the same type and message when the type allows."""
    try:
        error = kind(message)
    except Exception:  # noqa: BLE001 - a constructor that wants other arguments
        error = None
    if not isinstance(error, Exception) or str(error) != message:
        return BPEError(f"an export worker failed: {kind.__name__}: {message}")
    return error


def _start_method() -> str:
    # Forked workers share the parent's tokenizer, warm cache included, without pickling anything.
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


@dataclass(slots=True)
class _Part:
    """One worker and the part file it writes; ``state`` is running, done, failed, stopped or appended."""

    path: Path
    conn: Connection | None = None
    process: BaseProcess | None = None
    state: str = "running"
    error: Exception | None = None


class _Workers:
    """The worker processes of one export, one per group after the first, in file order."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.parts: list[_Part] = []

    def start(self, tokenizer: Tokenizer, groups: list[list[tuple[int, int]]], corpus: Path, dtype: str) -> None:
        method = _start_method()
        context = multiprocessing.get_context(method)
        source = tokenizer if method == "fork" else tokenizer.model
        for group in groups:
            try:
                # Beside the output: same file system, and the same place to look for leftovers.
                fd, name = tempfile.mkstemp(prefix=f".{self.out.name}.", suffix=".part", dir=self.out.parent)
            except OSError as error:
                raise OutputError(f"cannot write {self.out}: {error.strerror or error}") from None
            os.close(fd)
            part = _Part(Path(name))
            self.parts.append(part)  # from here on, close() removes the file whatever happens
            part.conn, writer = context.Pipe(duplex=False)
            try:
                part.process = context.Process(
                    target=_encode_part, args=(source, corpus, group, part.path, self.out, dtype, writer), daemon=True
                )
                part.process.start()
            finally:
                # Only the worker may hold the sending end, or its death would never show up here as EOF.
                writer.close()

    def pending(self) -> bool:
        """Whether a worker whose outcome matters is still running (those after a failure are stopped)."""
        return any(part.state == "running" for part in self.parts)

    def receive(self, *, block: bool) -> tuple[int, int]:
        """Progress reported since the last call, as ``(bytes, tokens)``; with ``block``, waits for news first."""
        running = {part.conn: part for part in self.parts if part.state == "running"}
        ready = wait(list(running)) if block and running else [conn for conn in running if conn.poll()]
        done = tokens = 0
        for conn in ready:
            part = running[conn]
            while part.state == "running" and conn.poll():
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    message = ("failed", BPEError, _DIED)
                if message[0] == "progress":
                    done += message[1]
                    tokens += message[2]
                elif message[0] == "done":
                    part.state = "done"
                else:
                    self._fail(part, _rebuild(*message[1:]))
        return done, tokens

    def _fail(self, part: _Part, error: Exception) -> None:
        part.state, part.error = "failed", error
        # Later parts cannot matter any more: stop them. Earlier ones go on, one may hold an earlier error.
        for later in self.parts[self.parts.index(part) + 1:]:
            if later.state == "running":
                assert later.process is not None
                later.process.terminate()
                later.state = "stopped"

    def first_error(self) -> Exception | None:
        """The error of the earliest failed part in file order, if any."""
        return next((part.error for part in self.parts if part.error is not None), None)

    def append_finished(self, handle: BinaryIO) -> None:
        """Append the finished parts to ``handle`` in order, up to the first unfinished one, deleting them."""
        for part in self.parts:
            if part.state == "appended":
                continue
            if part.state != "done":
                return
            with open(part.path, "rb") as source:
                try:
                    shutil.copyfileobj(source, handle, 1 << 20)
                    handle.flush()
                except OSError as error:
                    raise OutputError(f"cannot write {self.out}: {error.strerror or error}") from None
            part.path.unlink()
            part.state = "appended"

    def close(self) -> None:
        """Stop the workers that still run and delete every part file."""
        for part in self.parts:
            if part.process is not None and part.process.is_alive():
                part.process.terminate()
        for part in self.parts:
            if part.process is not None:
                part.process.join(5)
                if part.process.is_alive():
                    part.process.kill()
                    part.process.join()
                part.process.close()
            if part.conn is not None:
                part.conn.close()
            part.path.unlink(missing_ok=True)


def export_events(
    corpus: str | os.PathLike[str],
    tokenizer: BPEModel | Tokenizer,
    out: str | os.PathLike[str],
    *,
    workers: int = 1,
    chunk_bytes: int | None = None,
) -> Iterator[ExportProgress | ExportFinished]:
    """Encode ``corpus`` into the ``.npy`` file ``out``, yielding progress after each chunk and a final event.

    ``workers > 1`` shares the work with ``workers - 1`` child processes (forked where the platform
    allows: they then inherit this process's warm tokenizer), each writing its share to a temporary part
    file beside ``out`` (see the module docstring); the output is identical for every worker count. Every
    process streams its share chunk by chunk, so memory stays bounded whatever the corpus size. Progress
    counts all processes. Closing the generator early stops the export and leaves no file behind.

    Raises:
        CorpusError: missing or unreadable corpus, invalid UTF-8 (with the byte offset; the first one in
            the file, whichever process met it).
        SettingsError: ``workers`` or ``chunk_bytes`` below 1.
        OutputError: ``out`` cannot be written.
        BPEError: a worker process died.

    >>> import tempfile, pathlib
    >>> from core.model import BPEModel
    >>> folder = pathlib.Path(tempfile.mkdtemp()); _ = (folder / "c.txt").write_text("ab ab")
    >>> model = BPEModel({i: bytes([i]) for i in range(256)} | {256: b"ab"}, [(b"a", b"b")])
    >>> list(export_events(folder / "c.txt", model, folder / "ids.npy"))[-1].tokens
    3
    """
    from core.tokenizer import Tokenizer

    if workers < 1 or (chunk_bytes is not None and chunk_bytes < 1):
        raise SettingsError(f"workers ({workers}) and chunk size ({chunk_bytes}) must be at least 1")
    path = check_corpus_path(corpus)
    target = Path(out)
    model: BPEModel = getattr(tokenizer, "model", tokenizer)
    local = tokenizer if isinstance(tokenizer, Tokenizer) else Tokenizer.from_model(model)
    size = path.stat().st_size
    dtype = id_dtype(model)
    chunk_bytes = chunk_bytes or default_chunk_bytes(size, workers)
    tokens = done = 0
    with atomic_open(target) as handle:
        _write(handle, bytes(HEADER_BYTES), target)
        ranges = list(chunk_ranges(path, list(model.special_tokens), model.pattern, chunk_bytes))
        prefix, groups = split_work(ranges, workers)
        for chunk in prefix:
            tokens += _encode_into(handle, local, path, chunk, dtype, target)
            done += chunk[1] - chunk[0]
            yield ExportProgress(done_bytes=done, total_bytes=size, tokens=tokens)
        if groups:
            pool = _Workers(target)
            try:
                pool.start(local, groups[1:], path, dtype)
                for chunk in groups[0]:
                    tokens += _encode_into(handle, local, path, chunk, dtype, target)
                    done += chunk[1] - chunk[0]
                    more_bytes, more_tokens = pool.receive(block=False)
                    done, tokens = done + more_bytes, tokens + more_tokens
                    yield ExportProgress(done_bytes=done, total_bytes=size, tokens=tokens)
                while pool.pending():
                    more_bytes, more_tokens = pool.receive(block=True)
                    if more_bytes:
                        done, tokens = done + more_bytes, tokens + more_tokens
                        yield ExportProgress(done_bytes=done, total_bytes=size, tokens=tokens)
                    if pool.first_error() is None:
                        pool.append_finished(handle)  # while later workers still run
                error = pool.first_error()
                if error is not None:
                    raise error
                pool.append_finished(handle)
            finally:
                # Also on an error, an early close or Ctrl-C: no worker outlives the export, no part file stays.
                pool.close()
        assert done == size and handle.tell() == HEADER_BYTES + tokens * _ITEM_BYTES[dtype], "lost a chunk"
        handle.seek(0)
        _write(handle, npy_header(dtype, tokens), target)
    yield ExportFinished(path=target, tokens=tokens, dtype=dtype, corpus_bytes=size)


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
