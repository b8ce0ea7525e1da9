"""A small pool of forked worker processes that can be stopped at any moment without hanging.

``multiprocessing.Pool`` moves results through a shared queue read by a handler thread. Terminating it
while a worker is in the middle of sending a large result (a chunk's pre-token counts are hundreds of KB,
more than a pipe holds) leaves half a message in the queue, and ``terminate()`` then waits forever for
the handler thread: Ctrl-C during reading hung the CLI about one time in fifty. Here each worker has its
own pipe, which only this process reads, there are no handler threads or shared locks, and closing the
pool kills the workers outright.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from typing import Any


def ignore_interrupts() -> None:
    """In a worker process: leave Ctrl-C to the parent, which cancels the run and stops its workers.

    A terminal sends SIGINT to the whole process group; without this every worker would print a traceback.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _serve(conn: Connection) -> None:
    """Worker loop: run each ``(function, args)`` received and send back ``(ok, result or exception)``."""
    ignore_interrupts()
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        function, args = job
        try:
            outcome = (True, function(*args))
        except Exception as error:  # sent back and raised in the parent, as Pool does
            outcome = (False, error)
        conn.send(outcome)


class WorkerPool:
    """``workers`` forked processes running module-level functions; use as a context manager.

    >>> with WorkerPool(2) as pool:
    ...     sorted(pool.map_unordered(pow, [(2, 3), (3, 2), (2, 10)]))
    [8, 9, 1024]
    """

    def __init__(self, workers: int) -> None:
        context = multiprocessing.get_context("fork")
        self._connections: list[Connection] = []
        self._processes: list[Any] = []
        try:
            for number in range(workers):
                parent_end, child_end = context.Pipe()
                process = context.Process(target=_serve, args=(child_end,), name=f"bpe-worker-{number}", daemon=True)
                process.start()
                child_end.close()
                self._connections.append(parent_end)
                self._processes.append(process)
        except BaseException:
            self.close()
            raise

    @property
    def size(self) -> int:
        return len(self._processes)

    def map_unordered(self, function: Callable[..., Any], jobs: Iterable[tuple[Any, ...]]) -> Iterator[Any]:
        """``function(*job)`` for every job, one job per worker at a time, results in the order they finish.

        The first jobs are sent at once (so this process can work meanwhile); the rest as workers free up
        while the results are iterated. An exception raised by a job is raised here. Stopping the iteration
        early leaves jobs running: close the pool.
        """
        pending = iter(jobs)
        busy: set[Connection] = set()
        for conn in self._connections:
            job = next(pending, None)
            if job is None:
                break
            conn.send((function, job))
            busy.add(conn)
        return self._results(function, pending, busy)

    @staticmethod
    def _results(function: Callable[..., Any], pending: Iterator[tuple[Any, ...]], busy: set[Connection]) -> Iterator[Any]:
        while busy:
            for conn in wait(list(busy)):
                ok, result = conn.recv()
                busy.discard(conn)
                if not ok:
                    raise result
                job = next(pending, None)
                if job is not None:
                    conn.send((function, job))
                    busy.add(conn)
                yield result

    def close(self) -> None:
        """Kill the workers at once (whatever they are doing) and release the pipes."""
        for process in self._processes:
            if process.is_alive():
                process.kill()
        for process in self._processes:
            process.join()
        for conn in self._connections:
            conn.close()
        self._processes, self._connections = [], []

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
