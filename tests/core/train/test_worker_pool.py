"""The reading pool: every job's result once, a job's error raised in the caller, and a close that never hangs."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from core.errors import CorpusError
from core.train.worker_pool import WorkerDied, WorkerPool
from tests.fork_interrupts import ctrl_c_as_children_start, marks
from tests.waiting import wait_until


def big_result(n: int) -> dict[str, int]:
    """Several MB once pickled: far more than a pipe holds, so sending it takes many writes."""
    return {f"pre-token {i}": i for i in range(n)}


PIPE_BUF_FULL = 65536
"""A Linux pipe holds 64 KiB by default: a pipe holding that much has a writer that is blocked."""


def unread_bytes(fd: int) -> int:
    """How many bytes wait in the pipe whose read end is ``fd``."""
    import array
    import fcntl
    import termios

    count = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, count)
    return count[0]


def make_lock() -> threading.Lock:
    return threading.Lock()


def fail_on(value: int) -> int:
    if value == 3:
        raise CorpusError("corpus.txt: invalid UTF-8 at byte offset 3")
    return value


def test_every_job_once_whatever_the_worker_count() -> None:
    with WorkerPool(2) as pool:
        results = list(pool.map_unordered(pow, [(n, 2) for n in range(25)]))
    assert sorted(results) == [n * n for n in range(25)]


def test_a_jobs_error_is_raised_in_the_caller_as_it_was() -> None:
    with WorkerPool(2) as pool, pytest.raises(CorpusError, match="byte offset 3"):
        list(pool.map_unordered(fail_on, [(n,) for n in range(6)]))


def test_closing_while_workers_send_large_results_returns_at_once() -> None:
    # multiprocessing.Pool.terminate() could wait forever here: a worker killed mid-send left half a
    # message for its result thread. Each worker here is made to be mid-send when the pool closes.
    for _ in range(5):
        pool = WorkerPool(2)
        results = pool.map_unordered(big_result, [(400_000,), (400_000,)])
        for worker in pool._workers:  # wait until each result pipe is full: its worker is blocked mid-send
            wait_until(lambda: unread_bytes(worker.results_fd) >= PIPE_BUF_FULL, "a worker to fill its pipe")
        started = time.monotonic()
        pool.close()
        # A hang would last forever; killing takes milliseconds. The bound only tells the two apart.
        assert time.monotonic() - started < 30
        del results


def test_processes_are_gone_after_close() -> None:
    pool = WorkerPool(2)
    pids = [worker.pid for worker in pool._workers]
    assert all(os.kill(pid, 0) is None for pid in pids)  # running
    pool.close()
    for pid in pids:  # killed and reaped: no such process any more
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_a_worker_that_dies_is_reported_not_waited_for() -> None:
    with WorkerPool(1) as pool, pytest.raises(WorkerDied, match="ended without sending its result"):
        list(pool.map_unordered(os._exit, [(3,)]))


def test_a_result_that_cannot_be_pickled_is_an_error_and_the_worker_goes_on() -> None:
    with WorkerPool(1) as pool:
        with pytest.raises(RuntimeError, match="could not be sent"):
            list(pool.map_unordered(make_lock, [()]))
        assert list(pool.map_unordered(pow, [(3, 2)])) == [9]


def test_ctrl_c_in_the_terminal_does_not_reach_the_workers() -> None:
    with WorkerPool(1) as pool:
        assert list(pool.map_unordered(signal.getsignal, [(signal.SIGINT,)])) == [signal.SIG_IGN]


def test_workers_leave_inherited_objects_out_of_gc_and_this_process_does_not() -> None:
    # A worker's collections would otherwise write to every inherited object and copy its page.
    import gc

    before = gc.get_freeze_count()
    with WorkerPool(1) as pool:
        assert gc.get_freeze_count() == before
        [frozen] = pool.map_unordered(gc.get_freeze_count, [()])
    assert frozen > before


def test_a_worker_gone_before_its_job_is_sent_is_worker_died() -> None:
    """Sending to it was a BrokenPipeError, which the CLI took for its stdout's reader gone: status 0, no file."""
    with WorkerPool(1) as pool:
        pid = pool._workers[0].pid
        os.kill(pid, signal.SIGKILL)
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # dead (its pipes closed), and left for the pool to reap
        with pytest.raises(WorkerDied, match=f"worker process {pid} ended without sending its result"):
            list(pool.map_unordered(pow, [(3, 2)]))


def test_a_ctrl_c_as_a_worker_starts_is_left_to_the_parent(tmp_path: Path) -> None:
    """Raised in the child's after-fork hooks, it printed "Exception ignored in: ..." over the command's
    one-line message (a flaky CLI test caught it): held across the fork, the worker drops it, as it would a
    Ctrl-C that came a moment later."""
    with ctrl_c_as_children_start(tmp_path):
        with WorkerPool(2) as pool:
            assert sorted(pool.map_unordered(pow, [(2, 3), (3, 2), (2, 10)])) == [8, 9, 1024]
    assert marks(tmp_path) == ["ran", "ran"]
