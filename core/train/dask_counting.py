"""Counting the pre-tokens of a corpus of shards on a Dask cluster (``dask.distributed``), merging here.

Counting is an associative map-reduce: each job (:mod:`core.train.shard_reading`) is counted on some
worker of the cluster and its counts are added up here as they arrive, in whatever order; the merge loop
then runs in this process on the merged counts, so the merges are those of local training whatever the
cluster. Dask itself reschedules the jobs of a worker that is lost mid-run; a job that raises (a bad
record, a corrupt archive), or that keeps killing workers, fails the run with its shard's name.

The address is a scheduler's (``tcp://HOST:8786``, any scheme Dask takes) or ``local[:N]``: a
``LocalCluster`` of N single-threaded worker processes on this machine, started and closed with the run.
The workers read the shards by their absolute paths on this machine (a relative path means nothing in a
worker's own working directory), so on a real cluster the shards must sit on storage every worker sees at
the same path (a shared file system), and the workers need bpe-tui installed. A worker checks that it
finds each shard there at the size seen here before it counts: one that cannot read it, or finds
another file of that name, fails the run in one line instead of counting something else.

``dask[distributed]`` is the ``dask`` extra (``pip install 'bpe-tui[dask]'``); it is imported only here,
and only when a run asks for a cluster.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import importlib.util
import logging
import os
import re
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from core.corpus.shards import is_url
from core.errors import BPEError, CorpusError, SettingsError
from core.input_files import shown_path
from core.limits import max_workers, workers_problem
from core.train.shard_reading import ShardCount, ShardJob, count_job

WORKER_SETUP = "core.train.dask_worker_setup"
"""The module each worker process of a local cluster runs as it starts (see there)."""

LOCAL_PROCESSES = True
"""Whether a ``local`` cluster's workers are processes (as they must be to count in parallel). Tests of
the message flow may set it false: the same code path, with threads, starts in a fraction of the time."""

CONNECT_TIMEOUT = 10.0
"""Seconds to try to reach a scheduler before saying it cannot be reached."""

HANDSHAKE_SECONDS = 5.0
"""Seconds beyond :data:`CONNECT_TIMEOUT` an address has to answer as a Dask scheduler. Dask's own handshake waits for ever, so a
port that accepts and never speaks Dask (the dashboard's 8787, any other server) hung the run."""

POLL_SECONDS = 0.5
"""Longest wait for a job's result before the run looks at its cancellation and the cluster's workers."""

NO_WORKERS_SECONDS = 300.0
"""Seconds a cluster may have no worker free to count (none, or all paused at their memory limit) before
the run gives up: a scheduler alone, or one whose workers all quit, waited for ever. Five minutes, as
workers may join late (a batch queue starting them, an adaptive cluster growing)."""

SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
"""The address schemes Dask's scheduler listens on (``inproc`` reaches only this process)."""

MISSING = "--dask needs the dask.distributed package; install it with: pip install 'bpe-tui[dask]'"
"""The one line for a machine without the ``dask`` extra (``bpe-tui train --dask`` and the corpus form)."""

_LOCAL = re.compile(r"local(?::(\d+))?")
_REMOTE = re.compile(r"[a-z][a-z0-9+.-]*://\S+")


def parse_address(address: str, default_workers: int) -> tuple[str | None, int]:
    """``(scheduler address, 0)`` for a cluster, ``(None, N)`` for a local one of N workers.

    >>> parse_address("tcp://10.0.0.5:8786", 2), parse_address("local", 2), parse_address("local:3", 2)
    (('tcp://10.0.0.5:8786', 0), (None, 2), (None, 3))
    >>> parse_address("10.0.0.5", 2)
    Traceback (most recent call last):
    core.errors.SettingsError: --dask '10.0.0.5' is not understood; give a scheduler address such as tcp://HOST:8786, or local[:N] for N workers here
    """
    local = _LOCAL.fullmatch(address)
    if local is not None:
        digits = local.group(1)
        if digits is not None and len(digits) > 9:  # int() refuses 4,301 digits; no machine has a billion cores
            shown = digits if len(digits) <= 12 else f"{digits[:12]}... ({len(digits):,} digits)"
            raise SettingsError(
                f"--dask local:{shown}: more processes than this machine can use; give {max_workers()} or fewer"
            )
        workers = int(digits) if digits else default_workers
        if workers < 1:
            raise SettingsError(f"--dask {address}: a local cluster needs at least 1 worker")
        too_many = workers_problem(workers)  # local:99999999999 tried to start that many processes
        if too_many is not None:
            raise SettingsError(f"--dask {address}: {too_many}")
        return None, workers
    if _REMOTE.fullmatch(address) is not None:
        scheme = address.split("://", 1)[0].lower()
        if scheme in ("http", "https"):
            raise SettingsError(
                f"--dask {address}: a web address, such as the dashboard's; give the scheduler's address, "
                "tcp://HOST:8786 by default"
            )
        if scheme not in SCHEMES:
            raise SettingsError(
                f"--dask {address}: Dask has no {scheme}:// addresses; give the scheduler's, such as "
                f"tcp://HOST:8786 ({', '.join(f'{name}://' for name in SCHEMES)})"
            )
        return address, 0
    raise SettingsError(
        f"--dask {address!r} is not understood; give a scheduler address such as tcp://HOST:8786, "
        "or local[:N] for N workers here"
    )


def check_dask(address: str, default_workers: int) -> None:
    """Refuse, before any work, an address that is not understood or a machine without dask.distributed.

    The one check of an address, for ``bpe-tui train --dask`` and the corpus form alike. It finds the
    package without importing it (an import takes a second or more), so the form can check as the user types.

    >>> check_dask("local:x", 2)
    Traceback (most recent call last):
    core.errors.SettingsError: --dask 'local:x' is not understood; give a scheduler address such as tcp://HOST:8786, or local[:N] for N workers here
    """
    parse_address(address, default_workers)
    try:
        found = importlib.util.find_spec("distributed") is not None
    except ValueError:  # a module already imported, but without a spec
        found = False
    if not found:
        raise SettingsError(MISSING)


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise SettingsError(MISSING) from None
    return distributed


class DaskCounting:
    """One run's counting on a cluster: :meth:`start`, iterate :meth:`results`, and always :meth:`close`."""

    def __init__(self, address: str, jobs: list[ShardJob], default_workers: int = 2) -> None:
        self.address, self.local_workers = parse_address(address, default_workers)
        self.given = address
        """The address as given (``local:2``, say), for messages."""
        self.jobs = jobs
        self.workers = 0
        """Workers the cluster had at the last look (shown with the progress)."""
        self._distributed = _distributed()
        self._cluster: Any = None
        self._client: Any = None
        self._futures: list[Any] = []
        self._quieted: dict[logging.Logger, int] = {}
        """Dask's loggers silenced for the run, with the levels to put back."""

    def start(self) -> int:
        """Start the local cluster or connect to the scheduler; returns the number of workers.

        Raises:
            SettingsError: the scheduler cannot be reached (one line naming it).
        """
        distributed = self._distributed
        if self.address is None:
            # dashboard_address ":0": a free port of its own (None still took 8787, which another cluster
            # on this machine may hold, and warned about it).
            self._cluster = distributed.LocalCluster(
                n_workers=self.local_workers, threads_per_worker=1, processes=LOCAL_PROCESSES,
                dashboard_address=":0", silence_logs=logging.ERROR,
                # Its workers leave Ctrl-C to this process (which closes the cluster): no tracebacks.
                preload=[WORKER_SETUP],
            )
            self._client = distributed.Client(self._cluster)
        else:
            _check_scheduler(distributed, self.address)
            self._quieted = _quiet_dask_logs()
            try:
                self._client = distributed.Client(self.address, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError) as error:
                raise _unreachable(self.address, error) from None
        self.workers = len(self._client.nthreads())
        return self.workers

    def results(self, cancelled: Callable[[], bool]) -> Iterator[ShardCount]:
        """Each job's counts as it finishes. Stops early (leaving :meth:`close` to cancel the rest) when
        ``cancelled()`` turns true.

        Raises:
            BPEError: a job failed: its own one-line error (it names the shard), or one that names the
                shard and what Dask said (a job that kept killing its workers, say).
        """
        distributed = self._distributed
        client = self._client
        assert client is not None, "start() first"
        # pure=False: two runs over the same shard must both count it, not share a cached result.
        self._futures = client.map(count_on_worker, [for_workers(job) for job in self.jobs], pure=False)
        job_of = {future.key: job for future, job in zip(self._futures, self.jobs)}
        completed = distributed.as_completed(self._futures)
        stalled_since: float | None = None
        """Since when no worker of the cluster can run a job (there are none, or all are paused)."""
        while not completed.is_empty():
            if not completed.has_ready():
                # Wait a little at a time: a Ctrl-C in the app, a cluster left without workers, are seen.
                with completed.thread_condition:
                    completed.thread_condition.wait(timeout=POLL_SECONDS)
                if cancelled():
                    return
                self.workers, running, limit = self._cluster_state()
                if running:
                    stalled_since = None
                elif stalled_since is None:
                    stalled_since = time.monotonic()
                if stalled_since is not None and time.monotonic() - stalled_since >= NO_WORKERS_SECONDS:
                    raise self._stalled(limit)
                continue
            future = next(completed)
            if cancelled():
                return
            if future.status == "cancelled":  # not by this run: close() cancels only after the last look
                raise BPEError(
                    f"--dask {self.given}: the cluster dropped the run's jobs (its scheduler went away, or "
                    "another client cancelled them); check the scheduler and train again"
                )
            if future.status == "error":
                raise _job_failed(job_of[future.key], future.exception())
            result = future.result()
            future.release()
            result.shard = job_of[future.key].shard.path  # the path as given: the corpus digest is local training's
            self.workers = self._worker_count()
            yield result

    def _worker_count(self) -> int:
        """The cluster's workers now, or as last seen if the scheduler does not answer."""
        try:
            return len(self._client.nthreads())
        except Exception:  # noqa: BLE001 - a scheduler gone away: the jobs' cancellation says so
            return self.workers

    def _cluster_state(self) -> tuple[int, int, int]:
        """``(workers, workers running or finishing a job, the smallest memory limit in bytes (0: none))``; a scheduler that
        does not answer is taken to have the workers last seen, all running."""
        try:
            workers = list(self._client.scheduler_info()["workers"].values())
        except Exception:  # noqa: BLE001 - a scheduler gone away: the jobs' cancellation says so
            return self.workers, self.workers, 0
        # A paused worker finishes the job it holds (a large shard's counts may be what fills it).
        running = sum(1 for worker in workers if worker.get("status", "running") == "running"
                      or worker.get("metrics", {}).get("task_counts", {}).get("executing", 0))
        limits = [worker.get("memory_limit") or 0 for worker in workers]
        return len(workers), running, min((limit for limit in limits if limit), default=0)

    def _stalled(self, limit: int) -> BPEError:
        """The one line for a cluster none of whose workers could run a job for :data:`NO_WORKERS_SECONDS`."""
        waited = f"{NO_WORKERS_SECONDS:g} s"
        if self.workers:  # Dask pauses a worker whose process holds 80% of its memory limit
            shown = f" (the smallest {limit / (1 << 20):,.0f} MiB)" if limit else ""
            return BPEError(
                f"--dask {self.given}: every worker of the cluster has been paused at its memory limit{shown} "
                f"for {waited}; give them more memory (dask worker --memory-limit) or fewer workers a machine"
            )
        if self.address is None:
            return BPEError(f"--dask {self.given}: the cluster has had no workers for {waited}; its worker "
                            "processes all quit; train again, with fewer workers or more memory")
        return BPEError(
            f"--dask {self.given}: the cluster has had no workers for {waited}; start some with 'dask worker "
            f"{self.address}' (a worker that quits as it is given a job lacks bpe-tui, or runs another version of it)"
        )

    def close(self) -> None:
        """Cancel the jobs still queued or running on the cluster, disconnect, and stop a local cluster."""
        if self._client is not None:
            if self._futures:
                self._client.cancel(self._futures, force=True)
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
        for logger, level in self._quieted.items():
            logger.setLevel(level)
        self._quieted = {}


def _quiet_dask_logs() -> dict[logging.Logger, int]:
    """Silence Dask's loggers (``distributed`` and those under it that its config gives levels of their
    own); returns their levels as they were. A scheduler lost mid-run was logged as tracebacks on stderr
    above the run's own one line."""
    names = ["distributed"] + [name for name in logging.root.manager.loggerDict if name.startswith("distributed.")]
    levels = {logging.getLogger(name): logging.getLogger(name).level for name in names}
    for logger in levels:
        logger.setLevel(logging.CRITICAL + 1)
    return levels


def _job_failed(job: ShardJob, error: BaseException) -> BPEError:
    """The one line for a job that raised on the cluster: its own error, or one naming its shard."""
    if isinstance(error, BPEError):
        return error
    said = " ".join(str(error).split())  # Dask's own messages run over several lines
    if "deserializ" in said:  # the scheduler or a worker could not unpickle the job
        return BPEError(
            f"{job.shard.shown}: the cluster could not load bpe-tui's counting job ({type(error).__name__}); "
            "install the same bpe-tui as here on the scheduler and every worker"
        )
    if type(error).__name__ == "KilledWorker":  # Dask gives up on a job whose workers all died running it
        tries = getattr(error, "allowed_failures", None)
        last = getattr(getattr(error, "last_worker", None), "address", None)
        return BPEError(
            f"{job.shard.shown}: counting it killed {'' if tries is None else f'{tries + 1} '}workers in turn"
            f"{'' if last is None else f' (the last {last})'}, out of memory most likely; give the workers more "
            "memory (dask worker --memory-limit), or cut the shard into smaller files"
        )
    return BPEError(f"{job.shard.shown}: counting failed on the cluster ({type(error).__name__}: {said})")


def for_workers(job: ShardJob) -> ShardJob:
    """``job`` with its shard named by an absolute path: a worker's working directory is its own.

    ``corpus/a.txt`` given here was opened relative to each worker's directory: on a cluster, a missing
    file, or another file of that name counted in its place.

    >>> from core.corpus.records import ReadOptions; from core.corpus.shards import Shard
    >>> for_workers(ShardJob(0, Shard("a.txt", "text", None, 3), ReadOptions())).shard.path == os.path.abspath("a.txt")
    True
    """
    if is_url(job.shard.path) or os.path.isabs(job.shard.path):
        return job
    return dataclasses.replace(job, shard=dataclasses.replace(job.shard, path=os.path.abspath(job.shard.path)))


def count_on_worker(job: ShardJob) -> ShardCount:
    """:func:`count_job` on a cluster's worker, once it has checked that it reads the shard this machine found.

    Raises:
        CorpusError: (one line) this worker cannot open the shard's path, or finds a file of another size
            there (another machine's file of the same name would be counted silently in its place).
    """
    path = job.shard.path
    if not is_url(path):
        try:
            with open(path, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
        except OSError as error:
            raise CorpusError(
                f"{shown_path(path)}: a Dask worker cannot read it ({error.strerror or error}); put the corpus "
                "where every worker reaches it by this same path (a shared file system), or give a URL"
            ) from None
        if size != job.shard.size:
            raise CorpusError(
                f"{shown_path(path)}: a Dask worker finds another file there ({size:,} bytes, not the {job.shard.size:,} "
                "seen here); put the same corpus at this path on every worker (a shared file system), or give a URL"
            )
    return count_job(job)


def _unreachable(address: str, error: BaseException) -> SettingsError:
    return SettingsError(
        f"--dask {address}: cannot reach the scheduler ({error}); start one with 'dask scheduler' and check "
        "the address"
    )


def _check_scheduler(distributed: Any, address: str) -> None:
    """Connect once under a deadline of our own, to tell an address with no scheduler from a slow one.

    Dask's handshake reads with no deadline, so an address that accepts and never answers (the dashboard's
    port, any other server) hung ``Client()`` for ever, and one that answers in another protocol made it
    read a frame length of exabytes (a ``MemoryError`` traceback). The connection is made in an event loop
    of its own, asynchronously, and dropped; the run's own client connects after it.

    Raises:
        SettingsError: (one line) nothing answers there, or not as a Dask scheduler.
    """

    async def handshake() -> None:
        client = await distributed.Client(address, asynchronous=True, timeout=CONNECT_TIMEOUT)
        await client.close()

    with warnings.catch_warnings():
        # A client abandoned mid-handshake warns, when collected, that its close was never awaited.
        warnings.simplefilter("ignore")
        try:
            asyncio.run(asyncio.wait_for(handshake(), CONNECT_TIMEOUT + HANDSHAKE_SECONDS))
        except TimeoutError:  # before OSError, of which it is a kind: reached, but no answer in time
            problem = f"no Dask scheduler answered within {CONNECT_TIMEOUT + HANDSHAKE_SECONDS:g} s"
        except OSError as error:
            raise _unreachable(address, error) from None
        except Exception as error:  # noqa: BLE001 - whatever a foreign protocol makes Dask's reader raise
            problem = f"what answers is not a Dask scheduler ({type(error).__name__})"
        else:
            return
        finally:
            gc.collect()
    raise SettingsError(
        f"--dask {address}: {problem}; give the scheduler's address, tcp://HOST:8786 by default (8787 is its "
        "dashboard)"
    )
