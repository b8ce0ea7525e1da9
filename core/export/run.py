"""Corpus export: encode a whole text file to a ``.npy`` array of token ids, in parallel, in bounded memory.

The file is cut into chunks at places where cutting cannot change the ids (:mod:`core.pretokenize.cuts` says
where), each chunk is encoded on its own (:mod:`core.export.encoding`) and the ids land in the output in
file order, so the result is exactly ``Tokenizer.encode`` of the whole text whatever the worker count.
With ``workers > 1`` child processes share the work, every process taking the next chunk as it is free
(:mod:`core.export.workers` says how and why).

The ``.npy`` (format 1.0) header is written by hand, so the app does not need numpy: a fixed 128-byte
placeholder goes first, the ids stream after it, and the real header (with the final length) is written
over the placeholder. The array and its sidecar (``IDS.npy.json``, :mod:`core.export.sidecar`: which
tokenizer made the ids, from which corpus) are then renamed into place together, both or neither
(:func:`write_ids`, which every writer of id arrays goes through).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from core.train.reading import check_corpus_path
from core.errors import SettingsError
from core.limits import check_utf8_path, check_workers
from core.pretokenize.cuts import chunk_ranges, cut_pattern, first_safe_cut
from core.export.encoding import ITEM_BYTES, encode_into, encode_range, write_flushed
from core.export.workers import WARM_UP_BYTES, SharedExport
from core.atomic import atomic_group
from core.export.corpus_digest import CorpusDigest
from core.export.sidecar import IdsSidecar, sidecar_path
from core.model import BPEModel

if TYPE_CHECKING:
    from core.encode.tokenizer import Tokenizer

# The names callers have always imported from here stay importable from here, wherever they now live.
__all__ = [
    "HEADER_BYTES",
    "ExportFinished",
    "ExportProgress",
    "ExportSaving",
    "WARM_UP_BYTES",
    "chunk_ranges",
    "default_chunk_bytes",
    "encode_range",
    "export_corpus",
    "export_events",
    "first_safe_cut",
    "id_dtype",
    "npy_header",
    "write_ids",
]

HEADER_BYTES = 128
"""Total size of the ``.npy`` preamble we write (magic, version, length, padded header dict)."""


@dataclass(frozen=True, slots=True)
class ExportProgress:
    """Chunks done so far: ``done_bytes`` of ``total_bytes`` of the corpus, giving ``tokens`` ids."""

    done_bytes: int
    total_bytes: int
    tokens: int


@dataclass(frozen=True, slots=True)
class ExportSaving:
    """All ids are written and the corpus hashed: the array and its sidecar are renamed into place next.

    A command that wants Ctrl-C to wait for the renames (so that it can say both files are complete)
    starts holding it here.
    """

    path: Path
    sidecar: Path


@dataclass(frozen=True, slots=True)
class ExportFinished:
    """The last event: ``tokens`` ids of type ``dtype`` (``"uint16"``/``"uint32"``) are in ``path``, and
    ``sidecar`` (the file beside it) says what made them."""

    path: Path
    tokens: int
    dtype: str
    corpus_bytes: int
    sidecar: IdsSidecar
    text_bytes: int | None = None
    """The UTF-8 bytes of the documents encoded, for a corpus of shards, whose files' size (``corpus_bytes``:
    compressed, Parquet, JSON with its escapes) is not their text's; None for a text file, whose size is."""


def id_dtype(model: BPEModel) -> str:
    """``"uint16"`` when every id fits in 16 bits, else ``"uint32"``.

    Raises:
        SettingsError: an id does not fit in 32 bits (possible only for a model built in memory: loaded
            files keep their ids near the number of tokens).

    >>> id_dtype(BPEModel({65535: b"x"}, [])), id_dtype(BPEModel({65536: b"x"}, []))
    ('uint16', 'uint32')
    >>> id_dtype(BPEModel({2**32: b"<|big|>"}, []))
    Traceback (most recent call last):
    core.errors.SettingsError: token id 4,294,967,296 (b'<|big|>') does not fit in the export's 32-bit ids; renumber the tokens from 0
    """
    largest = max(model.vocab, default=0)
    if largest >= 1 << 32:
        raise SettingsError(
            f"token id {largest:,} ({model.vocab[largest]!r:.40}) does not fit in the export's 32-bit ids; "
            "renumber the tokens from 0"
        )
    return "uint16" if largest < 1 << 16 else "uint32"


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


def default_chunk_bytes(size: int, workers: int) -> int:
    """About 32 chunks per process (an even split, frequent progress), 64 KiB to 1 MiB each (cheap, small).

    >>> default_chunk_bytes(2 << 20, 2), default_chunk_bytes(16 << 20, 2), default_chunk_bytes(10 << 30, 2)
    (65536, 262144, 1048576)
    """
    return min(max(size // (32 * max(workers, 1)), 64 << 10), 1 << 20)


def export_events(
    corpus: str | os.PathLike[str],
    tokenizer: BPEModel | Tokenizer,
    out: str | os.PathLike[str],
    *,
    workers: int = 1,
    chunk_bytes: int | None = None,
) -> Iterator[ExportProgress | ExportSaving | ExportFinished]:
    """Encode ``corpus`` into the ``.npy`` file ``out``, yielding progress after each chunk and a final event.

    ``workers > 1`` shares the work with ``workers - 1`` child processes (forked where the platform
    allows: they then inherit this process's warm tokenizer). Each process, this one included, takes
    chunks one at a time and writes their ids to a temporary part file beside ``out``; the parts are then
    copied into ``out`` in file order (see :mod:`core.export.workers`). The output is identical for
    every worker count.
    Every process streams its share chunk by chunk, so memory stays bounded whatever the corpus size.
    Progress counts all processes. Closing the generator early stops the export and leaves no file behind.
    The corpus's SHA-256 is taken along the way (:mod:`core.export.corpus_digest`) for the sidecar,
    which is saved with the array (:func:`write_ids`) after :class:`ExportSaving`.

    Raises:
        CorpusError: missing or unreadable corpus, invalid UTF-8 (with the byte offset; the first one in
            the file, whichever process met it).
        SettingsError: ``workers`` below 1 or more than the machine can use (:func:`core.limits.max_workers`),
            ``chunk_bytes`` below 1, or a path whose name is not valid UTF-8.
        OutputError: ``out`` cannot be written.
        BPEError: a worker process died.

    >>> import tempfile, pathlib
    >>> from core.model import BPEModel
    >>> folder = pathlib.Path(tempfile.mkdtemp()); _ = (folder / "c.txt").write_text("ab ab")
    >>> model = BPEModel({i: bytes([i]) for i in range(256)} | {256: b"ab"}, [(b"a", b"b")])
    >>> list(export_events(folder / "c.txt", model, folder / "ids.npy"))[-1].tokens
    3
    """
    from core.encode.tokenizer import Tokenizer

    check_workers(workers)
    if chunk_bytes is not None and chunk_bytes < 1:
        raise SettingsError(f"chunk_bytes={chunk_bytes}: give at least 1")
    check_utf8_path(corpus, "corpus")
    check_utf8_path(out, "out")
    path = check_corpus_path(corpus)
    target = Path(out)
    model: BPEModel = getattr(tokenizer, "model", tokenizer)
    local = tokenizer if isinstance(tokenizer, Tokenizer) else Tokenizer.from_model(model)
    size = path.stat().st_size
    dtype = id_dtype(model)
    chunk_bytes = chunk_bytes or default_chunk_bytes(size, workers)
    tokens = done = 0
    digest = CorpusDigest(path)
    try:
        with write_ids(target) as ids:
            handle = ids.handle
            write_flushed(handle, bytes(HEADER_BYTES), target)
            first = min(WARM_UP_BYTES, chunk_bytes) if workers > 1 else None  # the warm-up chunk
            pattern = cut_pattern(model.pattern, model.normalizer)  # NFKC's ¨ is a space and U+0308
            ranges = list(chunk_ranges(path, list(model.special_tokens), pattern, chunk_bytes, first))
            # The warm-up chunk, and everything when there is nothing to share.
            shared = ranges[1:] if workers > 1 and len(ranges) > 2 else []
            for chunk in ranges[: len(ranges) - len(shared)]:
                digest.read_to(chunk[1])
                tokens += encode_into(handle, local, path, chunk, dtype, target)
                done += chunk[1] - chunk[0]
                yield ExportProgress(done_bytes=done, total_bytes=size, tokens=tokens)
            if shared:
                export = SharedExport(target, shared, min(workers, len(shared)))
                try:
                    export.start(local, path, dtype)
                    digest.in_background(size)  # only now: no fork may follow a thread's start
                    for more_bytes, more_tokens in export.run(local, path, dtype):
                        if more_bytes:
                            done, tokens = done + more_bytes, tokens + more_tokens
                            yield ExportProgress(done_bytes=done, total_bytes=size, tokens=tokens)
                    error = export.first_error()
                    if error is not None:
                        raise error
                    export.copy_into(handle)
                finally:
                    # Also on an error, an early close or Ctrl-C: no worker outlives the export, no part file stays.
                    export.close()
            assert done == size and handle.tell() == HEADER_BYTES + tokens * ITEM_BYTES[dtype], "lost a chunk"
            handle.seek(0)
            write_flushed(handle, npy_header(dtype, tokens), target)
            sidecar = IdsSidecar.describe(model, dtype=dtype, tokens=tokens, corpus=path, corpus_bytes=size,
                                          corpus_sha256=digest.finish(size))
            ids.describe(sidecar)
            yield ExportSaving(path=target, sidecar=sidecar_path(target))
    finally:
        digest.stop()
    yield ExportFinished(path=target, tokens=tokens, dtype=dtype, corpus_bytes=size, sidecar=sidecar)


class IdsWriter:
    """An id array being written (:attr:`handle`) and, once :meth:`describe` is called, its sidecar."""

    def __init__(self, path: Path, handle: BinaryIO, sidecar_handle: BinaryIO) -> None:
        self.path = path
        self.handle = handle
        self._sidecar_handle = sidecar_handle
        self.described = False

    def describe(self, sidecar: IdsSidecar) -> None:
        """Write the sidecar that is saved with the array."""
        write_flushed(self._sidecar_handle, sidecar.to_bytes(), sidecar_path(self.path))
        self.described = True


@contextlib.contextmanager
def write_ids(path: str | os.PathLike[str]) -> Iterator[IdsWriter]:
    """Write an id array and its sidecar, saved together when the block ends: both or neither.

    Every writer of id arrays goes through here, so that no array ever exists without the sidecar that
    says what made it. Write the ``.npy`` to ``writer.handle`` and call ``writer.describe(sidecar)``
    before the block ends. An error or Ctrl-C anywhere, the renames included, leaves neither file
    (:func:`core.atomic.atomic_group`).

    Raises:
        OutputError: either file cannot be written.

    >>> import tempfile, pathlib
    >>> from core.model import BPEModel
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> side = IdsSidecar.describe(BPEModel({0: b"a"}, []), dtype="uint16", tokens=0, corpus=folder / "c.txt",
    ...                            corpus_bytes=0, corpus_sha256="0" * 64)
    >>> with write_ids(folder / "ids.npy") as ids:
    ...     _ = ids.handle.write(npy_header("uint16", 0))
    ...     ids.describe(side)
    >>> sorted(p.name for p in folder.iterdir())
    ['ids.npy', 'ids.npy.json']
    """
    target = Path(path)
    with atomic_group() as group:
        writer = IdsWriter(target, group.open(target), group.open(sidecar_path(target)))
        yield writer
        if not writer.described:
            raise AssertionError("write_ids: describe() was not called; an array is never saved without its sidecar")


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
        elif isinstance(event, ExportProgress) and on_progress is not None:
            on_progress(event)
    assert finished is not None
    return finished
