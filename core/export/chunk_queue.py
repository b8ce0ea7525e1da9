"""The chunk queue of a shared export: chunk indices handed out once each, in order, across processes.

:class:`ChunkQueue` works for forked and spawned workers alike; :class:`ForkedChunkQueue` is the cheaper
one that forked workers use (see :mod:`core.export.workers`).
"""

from __future__ import annotations

import contextlib
import mmap
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows, which cannot fork either: ForkedChunkQueue is never used there
    fcntl = None  # type: ignore[assignment]

from core.errors import BPEError

LOCK_SECONDS = 30.0
"""How long to wait for the chunk queue's lock before deciding its holder died (see ``ChunkQueue``)."""

WORKER_DIED = "an export worker process died (killed, or out of memory?); try fewer --workers"


class ChunkQueue:
    """Chunk indices ``0 .. count - 1``, handed out once each, in order, to whichever process asks first.

    The counter lives in shared memory, so forked and spawned children take from the same one.
    :meth:`stop_before` shortens the queue after a failure: chunks before the failed one are still handed
    out (one of them may hold an earlier error, which must win), later ones are not.

    >>> import multiprocessing
    >>> queue = ChunkQueue(multiprocessing.get_context(), 3)
    >>> queue.take(), queue.take(), queue.stop_before(2), queue.take()
    (0, 1, None, None)
    """

    def __init__(self, context: Any, count: int) -> None:
        self._state = context.Array("q", [0, count], lock=True)  # next index, end

    def take(self) -> int | None:
        with self._locked():
            index, end = self._state[0], self._state[1]
            if index >= end:
                return None
            self._state[0] = index + 1
            return index

    def stop_before(self, index: int) -> None:
        with self._locked():
            self._state[1] = max(0, min(self._state[1], index))

    def close(self) -> None:
        """Nothing to release here: ``multiprocessing`` frees its shared array itself."""

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        # The lock is held for a microsecond; still held after this long, it belonged to a process that
        # was killed holding it (by the system, say), and waiting on would hang the export forever.
        lock = self._state.get_lock()
        if not lock.acquire(timeout=LOCK_SECONDS):
            raise BPEError(WORKER_DIED)
        try:
            yield
        finally:
            lock.release()


class ForkedChunkQueue(ChunkQueue):
    """A :class:`ChunkQueue` for forked children only, cheaper to make.

    ``multiprocessing``'s shared array is slow to make the first time (it imports ``ctypes`` and sets
    up a shared-memory arena), and that delays a small export before the work can be shared.
    Forked children inherit an anonymous shared mapping instead, and the lock is a POSIX record lock on an
    unnamed temporary file. Such a lock belongs to a process, so the system releases it if its holder dies:
    no timeout is needed.

    >>> queue = ForkedChunkQueue(3)
    >>> queue.take(), queue.take(), queue.stop_before(2), queue.take()
    (0, 1, None, None)
    >>> queue.close()
    """

    def __init__(self, count: int, folder: Path | None = None) -> None:
        # Other storage than ChunkQueue's, so no call to its __init__. The lock file has no name (made in
        # ``folder``, or the system's temporary folder): nothing to clean up.
        self._lock_file = tempfile.TemporaryFile(dir=folder)  # noqa: SIM115 - closed in close()
        self._memory = mmap.mmap(-1, 16)  # anonymous and shared: forked children see the same bytes
        self._state: Any = memoryview(self._memory).cast("q")  # next index, end
        self._state[1] = count

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        fcntl.lockf(self._lock_file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.lockf(self._lock_file, fcntl.LOCK_UN)

    def close(self) -> None:
        """Release the lock file and the shared mapping (in this process)."""
        self._lock_file.close()
        self._state.release()
        self._memory.close()
