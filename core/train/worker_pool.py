"""A small pool of forked worker processes that starts in a moment and can be stopped at any moment.

Two things from ``multiprocessing`` did not fit. ``Pool`` moves results through a shared queue read by a
handler thread: terminating it while a worker was in the middle of sending a large result (a chunk's
pre-token counts are hundreds of KB, more than a pipe holds) left half a message in the queue, and
``terminate()`` then waited forever: Ctrl-C during reading hung the CLI about one time in fifty. And
importing ``multiprocessing`` at all costs as much time as a worker saves on a small corpus.

So each worker here is a plain ``os.fork()`` with two pipes of its own, which only this process uses;
messages are length-prefixed pickles; there are no handler threads or shared locks; and closing the pool
kills the workers outright. Forking needs a POSIX system: without ``os.fork`` a pool refuses to start,
and the trainer reads in-process instead (it checks for ``os.fork`` before importing this module).
"""

from __future__ import annotations

import gc
import os
import pickle
import select
import signal
import struct
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from core.errors import BPEError
from core.signals import WAKE_SECONDS, signals_held, worker_ready

CAN_FORK = hasattr(os, "fork")
"""Whether this platform can start workers (no ``fork`` on Windows: work runs in-process there)."""

_HEADER = struct.Struct("<Q")  # the length of the pickle that follows


class WorkerDied(BPEError, RuntimeError):
    """A worker process ended without sending its result (killed by the system, for example).

    A BPEError, so that a command says it in one line: as a bare RuntimeError it was a traceback (``kill -9``
    of a reading worker, or the out-of-memory killer, during ``bpe-tui train``).
    """


def _died(worker_pid: int) -> WorkerDied:
    return WorkerDied(f"worker process {worker_pid} ended without sending its result (killed, or out of memory?); "
                      "run with one worker to see why")


def _send_job(worker: _Worker, message: Any) -> None:
    """Send a job; a worker gone already is WorkerDied (its pipe broken), not a BrokenPipeError, which a
    command would take for its reader gone (``| head``) and end with status 0 and nothing written."""
    try:
        _send(worker.jobs_fd, message)
    except BrokenPipeError:
        raise _died(worker.pid) from None


def ignore_interrupts() -> None:
    """In a worker process: leave Ctrl-C to the parent, which cancels the run and stops its workers.

    A terminal sends SIGINT to the whole process group; without this every worker would print a traceback.
    SIGTERM gets its default action back (the parent may have made it raise, as Ctrl-C does): a worker
    has nothing to clean up, so it just ends, and the parent, told too, stops the rest.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _send(fd: int, message: Any) -> None:
    data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _receive(fd: int) -> Any:
    """The next message on ``fd``; ``EOFError`` if the other end closed before a whole message came."""
    header = _read_exactly(fd, _HEADER.size)
    return pickle.loads(_read_exactly(fd, _HEADER.unpack(header)[0]))


def _read_exactly(fd: int, size: int) -> bytearray:
    buffer = bytearray(size)
    view = memoryview(buffer)
    got = 0
    while got < size:
        n = os.readv(fd, [view[got:]])
        if n == 0:
            raise EOFError
        got += n
    return buffer


def _serve(jobs_fd: int, results_fd: int) -> None:
    """Worker loop: run each ``(function, args)`` received and send back ``(ok, result or exception)``."""
    while True:
        try:
            job = _receive(jobs_fd)
        except EOFError:
            return
        if job is None:
            return
        function, args = job
        try:
            outcome = (True, function(*args))
        except Exception as error:  # sent back and raised in the parent, as Pool does
            outcome = (False, error)
        try:
            _send(results_fd, outcome)
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            _send(results_fd, (False, RuntimeError(f"{function.__name__}'s result could not be sent: {error}")))


class _Worker:
    """One forked process and this process's ends of its two pipes."""

    def __init__(self, pid: int, jobs_fd: int, results_fd: int) -> None:
        self.pid = pid
        self.jobs_fd = jobs_fd
        self.results_fd = results_fd

    def is_alive(self) -> bool:
        try:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            return False
        return pid == 0


class WorkerPool:
    """``workers`` forked processes running module-level functions; use as a context manager.

    >>> with WorkerPool(2) as pool:
    ...     sorted(pool.map_unordered(pow, [(2, 3), (3, 2), (2, 10)]))
    [8, 9, 1024]
    """

    def __init__(self, workers: int) -> None:
        if not CAN_FORK:
            raise OSError("worker processes need os.fork(), which this platform does not have")
        self._workers: list[_Worker] = []
        # Objects made so far are left out of garbage collection while forking: a collection in a worker
        # would write to every one of them and so copy every page they are on.
        gc.freeze()
        try:
            for _ in range(workers):
                self._workers.append(self._start())
        except BaseException:
            self.close()
            raise
        finally:
            gc.unfreeze()

    def _start(self) -> _Worker:
        jobs_read, jobs_write = os.pipe()
        results_read, results_write = os.pipe()
        with signals_held():  # a Ctrl-C waits until the child has set its handlers
            pid = os.fork()
            if pid == 0:  # the worker: it must never return into the caller's code (os._exit below)
                status = 1
                try:
                    ignore_interrupts()
                    worker_ready()
                    for worker in self._workers:  # the other workers' pipes, so that their ends see EOF
                        os.close(worker.jobs_fd)
                        os.close(worker.results_fd)
                    os.close(jobs_write)
                    os.close(results_read)
                    _serve(jobs_read, results_write)
                    status = 0
                finally:
                    os._exit(status)
        os.close(jobs_read)
        os.close(results_write)
        return _Worker(pid, jobs_write, results_read)

    @property
    def size(self) -> int:
        return len(self._workers)

    def map_unordered(self, function: Callable[..., Any], jobs: Iterable[tuple[Any, ...]]) -> Iterator[Any]:
        """``function(*job)`` for every job, one job per worker at a time, results in the order they finish.

        The first jobs are sent at once (so this process can work meanwhile); the rest as workers free up
        while the results are iterated. An exception raised by a job is raised here. Stopping the iteration
        early leaves jobs running: close the pool.
        """
        pending = iter(jobs)
        busy: dict[int, _Worker] = {}
        for worker in self._workers:
            job = next(pending, None)
            if job is None:
                break
            _send_job(worker, (function, job))
            busy[worker.results_fd] = worker
        return self._results(function, pending, busy)

    @staticmethod
    def _results(function: Callable[..., Any], pending: Iterator[tuple[Any, ...]], busy: dict[int, _Worker]) -> Iterator[Any]:
        while busy:
            ready: list[int] = []
            while not ready:  # woken now and then, to raise a Ctrl-C another thread took (core.signals)
                ready, _, _ = select.select(list(busy), [], [], WAKE_SECONDS)
            for fd in ready:
                worker = busy.pop(fd)
                try:
                    ok, result = _receive(fd)
                except EOFError:
                    raise _died(worker.pid) from None
                if not ok:
                    raise result
                job = next(pending, None)
                if job is not None:
                    _send_job(worker, (function, job))
                    busy[fd] = worker
                yield result

    def close(self) -> None:
        """Kill the workers at once (whatever they are doing), reap them and release the pipes."""
        for worker in self._workers:
            try:
                os.kill(worker.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for worker in self._workers:
            try:
                os.waitpid(worker.pid, 0)
            except ChildProcessError:  # already reaped by someone else
                pass
            os.close(worker.jobs_fd)
            os.close(worker.results_fd)
        self._workers = []

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
