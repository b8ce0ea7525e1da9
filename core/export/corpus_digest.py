"""The SHA-256 of the corpus an export reads (a text file, or a corpus of shards), taken alongside the export rather than in a pass of its own.

SHA-256 must see the bytes in file order, but a shared export reads its chunks in whatever order the
processes take them, in several processes. So the digest reads the file itself, in order: in the
exporting process just before each chunk it encodes while the export is sequential (the chunk is then
in the page cache when the encoder reads it), and in a background thread once the worker processes have
started. ``hashlib`` releases the GIL while it hashes and hashes far faster than BPE encodes, so the
thread neither slows the export nor finishes after it. The thread starts only after the workers are
forked: forking while another thread runs can deadlock.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path

from core.corpus.compression import open_raw, reading
from core.corpus.shards import Shard
from core.errors import CorpusError
from core.input_files import os_problem, shown_path
from core.signals import start_deaf_to_signals

_BLOCK = 1 << 20


class _InOrderDigest:
    """What both digests share: the background thread that hashes on, its stop signal and its error."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._error: CorpusError | None = None

    def _in_background(self, read: Callable[[], None]) -> None:
        """Run ``read`` in a thread (started once, after any worker process is forked)."""

        def run() -> None:
            try:
                read()
            except CorpusError as error:
                self._error = error

        thread = threading.Thread(target=run, name="corpus-sha256", daemon=True)
        try:
            # Deaf to Ctrl-C: taken here, it would leave the main thread asleep on its workers (core.signals).
            start_deaf_to_signals(thread)
        except RuntimeError as error:
            # A Ctrl-C that lands while start() waits for the thread can break threading's own lock on the
            # way out (CPython then raises "release unlocked lock" in place of the KeyboardInterrupt): the
            # user pressed Ctrl-C, so that is what goes up, and the command stops as for any Ctrl-C.
            if isinstance(error.__context__, KeyboardInterrupt):
                raise error.__context__ from None
            raise
        # Kept only once started: a Ctrl-C inside start() must leave stop() nothing to join (joining a thread
        # that never started raises). If it had started after all, it sees the stop event and ends.
        self._thread = thread

    def stop(self) -> None:
        """Stop the thread, if any, and wait for it (an export that failed or was closed early)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _joined(self) -> None:
        """Wait for the thread to be done, and raise what it met."""
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error


class CorpusDigest(_InOrderDigest):
    """SHA-256 of ``path`` read in order, as far as :attr:`position`.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "c.txt"; _ = path.write_bytes(b"abc")
    >>> digest = CorpusDigest(path)
    >>> digest.read_to(1); digest.in_background(3); digest.finish(3) == hashlib.sha256(b"abc").hexdigest()
    True
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.position = 0
        self._sha = hashlib.sha256()

    def read_to(self, end: int) -> None:
        """Hash the file from :attr:`position` up to byte ``end``."""
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.position)
                while self.position < end and not self._stop.is_set():
                    block = handle.read(min(_BLOCK, end - self.position))
                    if not block:
                        raise CorpusError(f"{shown_path(self.path)} became shorter while it was exported; "
                                          "export a file nothing else is writing to")
                    self._sha.update(block)
                    self.position += len(block)
        except OSError as problem:
            raise CorpusError(f"{shown_path(self.path)}: {os_problem(problem)}") from None

    def in_background(self, end: int) -> None:
        """Go on hashing up to ``end`` in a thread (called once, after any worker process is forked)."""
        self._in_background(lambda: self.read_to(end))

    def finish(self, size: int) -> str:
        """The hex digest of the first ``size`` bytes (the whole corpus), once the thread is done."""
        self._joined()
        self.read_to(size)
        return self._sha.hexdigest()


class ShardsDigest(_InOrderDigest):
    """SHA-256 of a corpus of shards: of their stored bytes (compressed, where they are) in corpus order,
    and of each shard on its own, for the sidecars of ``--per-shard``.

    One shard's digest is the file's (``sha256sum`` gives the same); several shards' is that of their
    bytes one after another (``cat`` in corpus order, then ``sha256sum``). Like :class:`CorpusDigest` it
    reads the shards itself, in order: in the exporting process just before each shard it encodes while
    the export is sequential, and in a background thread once the worker processes are forked.

    >>> import tempfile, pathlib
    >>> from core.corpus import open_corpus
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.txt").write_bytes(b"ab"); _ = (folder / "b.txt").write_bytes(b"c")
    >>> digest = ShardsDigest(open_corpus(folder).shards)
    >>> whole, each = digest.finish()
    >>> whole == hashlib.sha256(b"abc").hexdigest(), each[1] == hashlib.sha256(b"c").hexdigest()
    (True, True)
    """

    def __init__(self, shards: tuple[Shard, ...]) -> None:
        super().__init__()
        self.shards = shards
        self.done = 0
        """How many shards are hashed."""
        self._whole = hashlib.sha256()
        self._each: list[str] = []

    def read_through(self, count: int) -> None:
        """Hash the shards up to (not including) index ``count``."""
        while self.done < count and not self._stop.is_set():
            shard = self.shards[self.done]
            sha = hashlib.sha256()
            with reading(shard), open_raw(shard) as raw:
                while not self._stop.is_set():
                    block = raw.read(_BLOCK)
                    if not block:
                        break
                    sha.update(block)
                    self._whole.update(block)
            if self._stop.is_set():
                return  # stopped inside the shard: its digest is not whole
            self._each.append(sha.hexdigest())
            self.done += 1

    def in_background(self) -> None:
        """Go on hashing every shard in a thread (called once, after any worker process is forked)."""
        self._in_background(lambda: self.read_through(len(self.shards)))

    def finish(self) -> tuple[str, list[str]]:
        """The hex digest of all the shards in order, and each shard's, once the thread is done."""
        self._joined()
        self.read_through(len(self.shards))
        return self._whole.hexdigest(), list(self._each)
