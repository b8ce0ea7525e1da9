"""The SHA-256 of the corpus an export reads, taken alongside the export rather than in a pass of its own.

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
from pathlib import Path

from core.errors import CorpusError
from core.input_files import os_problem, shown_path

_BLOCK = 1 << 20


class CorpusDigest:
    """SHA-256 of ``path`` read in order, as far as :attr:`position`.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "c.txt"; _ = path.write_bytes(b"abc")
    >>> digest = CorpusDigest(path)
    >>> digest.read_to(1); digest.in_background(3); digest.finish(3) == hashlib.sha256(b"abc").hexdigest()
    True
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.position = 0
        self._sha = hashlib.sha256()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._error: CorpusError | None = None

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

        def run() -> None:
            try:
                self.read_to(end)
            except CorpusError as error:
                self._error = error

        self._thread = threading.Thread(target=run, name="corpus-sha256", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread, if any, and wait for it (an export that failed or was closed early)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def finish(self, size: int) -> str:
        """The hex digest of the first ``size`` bytes (the whole corpus), once the thread is done."""
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error
        self.read_to(size)
        return self._sha.hexdigest()
