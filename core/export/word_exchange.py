"""New cache entries handed between the processes of a shared export (see :mod:`core.export.workers`)."""

from __future__ import annotations

import os
import pickle
import struct
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from core.encode.bounded_memo import BoundedMemo

WORDS_SHARED_AT_MOST = 1 << 16
"""How many new pre-token encodings one process hands to the others at most (see :class:`WordExchange`):
the useful ones come early, and it bounds the files they pass through (about 2 MB)."""


class WordExchange:
    """This process's side of sharing new pre-token encodings among the processes of an export.

    Each process encodes, once, every distinct word it meets that is not in its cache yet, which costs
    many times a cached lookup. Without sharing, every process did that for nearly every distinct word of
    the corpus (figures in ``benchmarks/README.md``). So after each chunk a process appends the entries
    it added to its cache to a words file of its own, and before each chunk it adopts the entries the
    others have appended since it last looked (as far as its cache has room). Files, not pipes: no process
    ever waits for another to read. Each record is a length and a pickled list of ``(pre-token, ids)``; a
    record still being written is read next time. Sharing only saves time, so a words file that cannot be
    written or read just ends it.
    """

    _LENGTH = struct.Struct("<I")

    def __init__(self, cache: BoundedMemo, own: Path, others: list[Path]) -> None:
        self._cache = cache
        self._own_path = own
        self._others = [[path, 0] for path in others]  # [path, bytes of it already adopted]
        self._own: BinaryIO | None = None
        self._left = WORDS_SHARED_AT_MOST
        cache.journal = []

    def publish(self) -> None:
        """Append the entries this process added to its cache since the last call to its words file."""
        entries = self._cache.journal
        if not entries:
            return
        entries = entries[: self._left]
        self._left -= len(entries)
        self._cache.journal = [] if self._left > 0 else None
        try:
            if self._own is None:
                # Appending without O_CREAT: the exporting process made the file, and a worker that outlived
                # the export's cleanup must not make it again.
                self._own = open(os.open(self._own_path, os.O_WRONLY | os.O_APPEND), "ab")  # noqa: SIM115
            data = pickle.dumps(entries, pickle.HIGHEST_PROTOCOL)
            self._own.write(self._LENGTH.pack(len(data)) + data)
            self._own.flush()
        except OSError:
            self._stop()

    def adopt(self) -> None:
        """Take into this process's cache the entries the other processes published since the last call."""
        try:
            for other in self._others:
                with open(other[0], "rb") as handle:
                    handle.seek(other[1])
                    data = handle.read()
                at = 0
                while at + self._LENGTH.size <= len(data):
                    (length,) = self._LENGTH.unpack_from(data, at)
                    end = at + self._LENGTH.size + length
                    if end > len(data):
                        break  # still being written
                    self._cache.adopt(pickle.loads(data[at + self._LENGTH.size : end]))
                    at = end
                other[1] += at
        except (OSError, pickle.UnpicklingError, EOFError, ValueError):
            self._stop()

    def _stop(self) -> None:
        self._others = []
        self._left = 0
        self._cache.journal = None

    def close(self) -> None:
        """Stop recording; the cache stays as it is (warmer)."""
        self._cache.journal = None
        if self._own is not None:
            self._own.close()
            self._own = None
