"""A shard's bytes, decompressed as they are read, and one-line errors for a corrupt or truncated archive.

``.gz``, ``.bz2`` and ``.xz`` use the standard library; ``.zst`` needs ``zstandard`` (the ``formats``
extra). zstandard's own stream reader returns nothing, without an error, for a truncated frame, so
``.zst`` is read here frame by frame with a decompression object, and input that ends inside a frame is
an error like a truncated ``.gz``; ``.xz`` too, so that the stream padding its format allows (NUL bytes
between and after streams, which ``xz -d`` skips) is skipped rather than called a stream cut short. Files
of several concatenated frames or members (``cat a.gz b.gz``, ``pzstd``) are read whole, as the
command-line tools read them.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import hashlib
import io
import lzma
import zlib
from collections.abc import Iterator
from typing import BinaryIO

from core.corpus.extras import require
from core.corpus.shards import Shard, is_url
from core.errors import CorpusError

READ_BYTES = 1 << 20
"""How much compressed input is read at a time."""

FEED_BYTES = 1 << 16
"""How much ``.zst`` input is decompressed at a time: its output, all of it at once, is what memory holds."""

NAMES = {"gz": "gzip", "bz2": "bzip2", "xz": "xz", "zst": "zstd"}


class TruncatedArchive(EOFError):
    """The compressed input ended inside a frame."""


class FramedStream(io.RawIOBase):
    """A readable stream of the decompressed frames of a ``.zst`` file, one after another; a truncated last
    frame raises.

    With ``xz``, the streams of an ``.xz`` file, the NUL bytes of stream padding between and after them
    skipped as ``xz -d`` skips them (Python's ``LZMAFile`` read padding as a stream cut short)."""

    def __init__(self, raw: BinaryIO, shown: str, *, xz: bool = False) -> None:
        if xz:
            self._new = lzma.LZMADecompressor
        else:
            zstandard = require("zstandard", f"{shown}: a .zst shard")
            # Up to zstd's largest window (2 GiB), as 'zstd -d --long=31' reads: files compressed with --long
            # for their size are valid, and the default limit (128 MiB) called them corrupt.
            self._new = zstandard.ZstdDecompressor(max_window_size=1 << 31).decompressobj
        self._padding = b"\0" if xz else b""
        self._format = "an xz stream" if xz else "a zstd frame"
        self._raw = raw
        self._frame = self._new()
        self._pending = b""
        self._start = 0  # of the bytes of _pending not yet returned
        self._in_frame = False  # bytes of the current frame have been fed
        self._frames = 0  # frames read whole

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        # The decompression object has no output limit: what a read of input gives comes out at once. So
        # input is fed FEED_BYTES at a time, and the output handed on from an offset, never re-sliced:
        # cutting the rest off after each read copied it again each time, quadratic in a read's output.
        while self._start == len(self._pending):
            data = self._raw.read(FEED_BYTES)
            if not data:
                if self._in_frame:
                    raise TruncatedArchive(f"the file ends inside {self._format}")
                return 0
            out: list[bytes] = []
            while data:
                if not self._in_frame and self._padding and self._frames:  # padding follows a stream only
                    data = data.lstrip(self._padding)
                    if not data:
                        break
                self._in_frame = True
                out.append(self._frame.decompress(data))
                if not self._frame.eof:
                    break
                data = self._frame.unused_data  # the next frame's first bytes, if any
                self._frame, self._in_frame = self._new(), False
                self._frames += 1
            self._pending, self._start = b"".join(out), 0
        n = min(len(buffer), len(self._pending) - self._start)
        buffer[:n] = memoryview(self._pending)[self._start:self._start + n]
        self._start += n
        return n


def open_raw(shard: Shard) -> BinaryIO:
    """The shard's file as it is stored, opened for reading: a local file, or a URL through fsspec."""
    if is_url(shard.path):
        fsspec = require("fsspec", f"{shard.shown}: a corpus URL")
        return fsspec.open(shard.path, "rb").open()
    return open(shard.path, "rb")


def shard_sha256(shard: Shard) -> str:
    """Hex SHA-256 of the shard's stored bytes (compressed, where it is), read in blocks."""
    digest = hashlib.sha256()
    with reading(shard), open_raw(shard) as raw:
        for block in iter(lambda: raw.read(READ_BYTES), b""):
            digest.update(block)
    return digest.hexdigest()


@contextlib.contextmanager
def shard_bytes(shard: Shard) -> Iterator[BinaryIO]:
    """The shard's decompressed bytes as a buffered binary stream, errors translated by :func:`reading`."""
    with reading(shard), open_raw(shard) as raw:
        if shard.compression is None:
            yield raw
        elif shard.size == 0:  # an empty file is an empty shard, whatever its name (xz would call it cut short)
            yield io.BytesIO(b"")
        elif shard.compression == "gz":
            with gzip.GzipFile(fileobj=raw) as stream:
                yield stream  # type: ignore[misc]
        elif shard.compression == "bz2":
            with bz2.BZ2File(raw) as stream:
                yield stream  # type: ignore[misc]
        elif shard.compression == "xz":
            with io.BufferedReader(FramedStream(raw, shard.shown, xz=True), READ_BYTES) as stream:
                yield stream  # type: ignore[misc]
        else:
            with io.BufferedReader(FramedStream(raw, shard.shown), READ_BYTES) as stream:
                yield stream  # type: ignore[misc]


def _archive_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [EOFError, zlib.error, lzma.LZMAError, OSError]
    try:
        import zstandard

        errors.append(zstandard.ZstdError)
    except ImportError:
        pass
    return tuple(errors)


@contextlib.contextmanager
def reading(shard: Shard) -> Iterator[None]:
    """Turn what a corrupt, truncated or unreadable shard raises while it is read into a one-line CorpusError."""
    try:
        yield
    except CorpusError:
        raise
    except _archive_errors() as error:
        detail = str(error) or type(error).__name__
        if shard.compression is not None and not (isinstance(error, OSError) and error.errno is not None):
            raise CorpusError(
                f"{shard.shown}: corrupt or truncated {NAMES[shard.compression]} data ({detail}); "
                "download or compress the shard again, or leave it out"
            ) from None
        raise CorpusError(f"{shard.shown}: cannot be read ({detail}); check the file") from None
