"""Counting on a Dask cluster: the merges of local training, shard progress, a failing shard named,
Ctrl-C cancelling the cluster's tasks, and one line without dask.distributed.

Most tests use a ``LocalCluster`` of two *threaded* workers (``LOCAL_PROCESSES = False``): the same
client, scheduler and futures as with processes, started in about a second instead of several, and a
patched counting function reaches its workers. One test runs the CLI's real path, worker processes
included. No test depends on which worker counts which shard: counts add up in any order.
"""

from __future__ import annotations

import re
import sys
import threading
from pathlib import Path

import pytest

from core import reference
from core.errors import BPEError, CorpusError, SettingsError
from core.limits import max_workers
from core.train import dask_counting
from core.train.events import ShardsRead
from core.train.run import TrainingRun, train_bpe
from core.train.shard_reading import count_job
from tests.cli.cli_cases import run_cli
from tests.core.corpus.corpus_cases import SPECIAL, joined_text, sample_documents, write_shard

DOCUMENTS = sample_documents()
RELEASE = threading.Event()
"""Lets the held job of the Ctrl-C test go on (module-level, so the job pickles by reference)."""


def held_count(job):
    """``count_job``, except that the first shard's job waits for ``RELEASE``."""
    if job.shard.path.endswith("a.jsonl.gz"):
        RELEASE.wait()
    return count_job(job)


@pytest.fixture
def threaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dask_counting, "LOCAL_PROCESSES", False)


def make_corpus(root: Path) -> Path:
    names = ["a.jsonl.gz", "b.parquet", "c.txt.zst", "d.jsonl", "e.txt"]
    for index, name in enumerate(names):
        write_shard(root / "corpus", name, DOCUMENTS[index::len(names)])
    return root / "corpus"


def every_document() -> list[str]:
    return [d for index in range(5) for d in DOCUMENTS[index::5]]


def test_a_local_cluster_trains_to_the_reference_merges(tmp_path: Path, threaded: None) -> None:
    corpus = make_corpus(tmp_path)
    run = TrainingRun(corpus, 330, [SPECIAL], dask="local:2")
    shards = [event for event in run.events() if isinstance(event, ShardsRead)]
    assert (run.result().vocab, run.result().merges) == reference.train(joined_text(every_document()), 330, [SPECIAL])
    assert [event.done for event in shards] == [0, 1, 2, 3, 4, 5]
    assert {event.total for event in shards} == {5} and shards[-1].workers == 2
    # Records, and the text shards' documents as the special token separates them.
    texts = [len(joined_text(DOCUMENTS[index::5]).split(SPECIAL)) for index in (2, 4)]
    assert shards[-1].documents == sum(len(DOCUMENTS[index::5]) for index in (0, 1, 3)) + sum(texts)
    assert run._dask is None  # the cluster was closed with the run


def test_a_bad_record_fails_the_run_with_its_shard(tmp_path: Path, threaded: None) -> None:
    corpus = make_corpus(tmp_path)
    (corpus / "f.jsonl").write_bytes(b'{"text": "fine"}\n{"text": false}\n')
    with pytest.raises(CorpusError, match=r"f\.jsonl: line 2: the 'text' value is a boolean, not a string"):
        train_bpe(corpus, 300, [SPECIAL], dask="local:2")


def test_a_job_that_fails_otherwise_is_named_by_its_shard(tmp_path: Path, threaded: None,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = make_corpus(tmp_path)
    real = dask_counting.count_job

    def failing(job):
        if job.shard.path.endswith("c.txt.zst"):
            raise MemoryError("no room")
        return real(job)

    monkeypatch.setattr(dask_counting, "count_job", failing)
    with pytest.raises(BPEError, match=r"c\.txt\.zst: counting failed on the cluster \(MemoryError: no room\)$"):
        train_bpe(corpus, 300, [SPECIAL], dask="local:1")


def test_the_workers_open_the_shards_by_absolute_paths(tmp_path: Path, threaded: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A relative corpus path was sent as it was given: each worker opened it in its own working directory,
    so a worker elsewhere counted another file of that name (a silently different model) or none."""
    make_corpus(tmp_path)
    monkeypatch.chdir(tmp_path)
    opened: list[str] = []
    real = dask_counting.count_job
    monkeypatch.setattr(dask_counting, "count_job", lambda job: (opened.append(job.shard.path), real(job))[1])
    run = TrainingRun("corpus", 330, [SPECIAL], dask="local:2")
    list(run.events())
    assert sorted(opened) == sorted(str(path) for path in (tmp_path / "corpus").iterdir())
    local = TrainingRun("corpus", 330, [SPECIAL], workers=1)
    list(local.events())
    assert (run.result().merges, run._corpus_sha256) == (local.result().merges, local._corpus_sha256)


@pytest.mark.parametrize(("change", "problem"), [
    (lambda path: path.unlink(), r"a Dask worker cannot read it \(No such file or directory\); put the corpus "
                                 r"where every worker reaches it by this same path \(a shared file system\), or give a URL"),
    (lambda path: path.write_bytes(path.read_bytes() + b"more"),
     r"a Dask worker finds another file there \([\d,]+ bytes, not the [\d,]+ seen here\); put the same corpus at "
     r"this path on every worker \(a shared file system\), or give a URL"),
])
def test_a_worker_that_does_not_find_the_shard_seen_here_fails_the_run(tmp_path: Path, threaded: None,
                                                                       change, problem: str) -> None:
    """A worker on another machine may find nothing at the path, or another file: that was counted in its
    place, silently. The shard is changed once the corpus is opened, as a worker elsewhere would see it."""
    corpus = make_corpus(tmp_path)
    run = TrainingRun(corpus, 330, [SPECIAL], dask="local:1")
    change(corpus / "e.txt")
    with pytest.raises(CorpusError, match=rf"^{re.escape(str(corpus / 'e.txt'))}: {problem}$"):
        list(run.events())


def test_ctrl_c_cancels_the_clusters_tasks_and_closes_it(tmp_path: Path, threaded: None,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """One shard's job waits until the test ends; Ctrl-C comes once another has been counted."""
    corpus = make_corpus(tmp_path)
    RELEASE.clear()
    made: list[dask_counting.DaskCounting] = []
    cancelled: list[list[str]] = []

    class Recording(dask_counting.DaskCounting):
        def start(self) -> int:
            made.append(self)
            workers = super().start()
            cancel = self._client.cancel
            self._client.cancel = lambda futures, **kw: (cancelled.append([f.key for f in futures]), cancel(futures, **kw))[1]
            return workers

    monkeypatch.setattr(dask_counting, "count_job", held_count)
    monkeypatch.setattr(dask_counting, "DaskCounting", Recording)
    run = TrainingRun(corpus, 300, [SPECIAL], dask="local:2")
    events = run.events()
    try:
        with pytest.raises(KeyboardInterrupt):
            for event in events:
                if isinstance(event, ShardsRead) and event.done >= 1:
                    RELEASE.set()  # the held job may end now, or be cancelled first: either way it is not counted
                    raise KeyboardInterrupt  # where the CLI's SIGINT handler raises it
    finally:
        events.close()  # as the CLI's drive() does
        RELEASE.set()
    counting = made[0]
    held_key = next(f.key for f, job in zip(counting._futures, counting.jobs) if job.shard.path.endswith("a.jsonl.gz"))
    assert cancelled and held_key in cancelled[0]
    assert counting._client is None and counting._cluster is None
    assert run._dask is None and run.merges == []


@pytest.fixture
def workerless_scheduler():
    """The address of a scheduler (threads of this process) that has no worker."""
    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=0, processes=False, protocol="tcp://", dashboard_address=":0")
    yield cluster.scheduler_address
    cluster.close()


def test_a_cluster_without_workers_fails_the_run_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             workerless_scheduler: str) -> None:
    """A scheduler alone, or one whose workers all quit (a worker without bpe-tui quits as it is given a
    job), waited for ever; workers may join late, so the run waits NO_WORKERS_SECONDS first."""
    monkeypatch.setattr(dask_counting, "NO_WORKERS_SECONDS", 0.0)
    monkeypatch.setattr(dask_counting, "POLL_SECONDS", 0.01)
    address = workerless_scheduler
    with pytest.raises(BPEError, match=rf"^--dask {address}: the cluster has had no workers for 0 s; start some "
                                       rf"with 'dask worker {address}' \(a worker that quits as it is given a job "
                                       r"lacks bpe-tui, or runs another version of it\)$"):
        train_bpe(make_corpus(tmp_path), 300, [], dask=address)


def test_a_cluster_whose_workers_are_all_paused_fails_the_run_in_one_line(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Dask pauses a worker whose process holds 80% of its --memory-limit; one whose own memory stays
    there (a limit below what a worker needs) never resumes, and the run waited for ever at its shard."""
    from distributed import LocalCluster
    from distributed.core import Status

    monkeypatch.setattr(dask_counting, "NO_WORKERS_SECONDS", 0.0)
    monkeypatch.setattr(dask_counting, "POLL_SECONDS", 0.01)
    cluster = LocalCluster(n_workers=1, processes=False, protocol="tcp://", dashboard_address=":0",
                           memory_limit="100MiB")
    try:
        for worker in cluster.workers.values():
            worker.status = Status.paused
        address = cluster.scheduler_address
        with pytest.raises(BPEError, match=rf"^--dask {address}: every worker of the cluster has been paused at its "
                                           r"memory limit \(the smallest 100 MiB\) for 0 s; give them more memory "
                                           r"\(dask worker --memory-limit\) or fewer workers a machine$"):
            train_bpe(make_corpus(tmp_path), 300, [], dask=address)
    finally:
        cluster.close()


def test_jobs_dropped_by_the_cluster_fail_the_run_in_one_line(tmp_path: Path, threaded: None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A scheduler lost mid-run cancels the client's jobs: a FutureCancelledError traceback (and Dask's
    own, logged). Here the held job is cancelled as another client, or a lost scheduler, would."""
    corpus = make_corpus(tmp_path)
    RELEASE.clear()
    monkeypatch.setattr(dask_counting, "count_job", held_count)
    run = TrainingRun(corpus, 300, [SPECIAL], dask="local:2")
    try:
        with pytest.raises(BPEError, match=r"^--dask local:2: the cluster dropped the run's jobs \(its scheduler "
                                           r"went away, or another client cancelled them\); check the scheduler "
                                           r"and train again$"):
            for event in run.events():
                if isinstance(event, ShardsRead) and event.done == 1:
                    run._dask._client.cancel(run._dask._futures)  # the held job's too: it cannot have ended
                    RELEASE.set()  # its thread may end now (closing the cluster waits for it)
    finally:
        RELEASE.set()


@pytest.mark.parametrize(("error", "line"), [
    (RuntimeError("Error during deserialization of the task graph. This frequently\noccurs if the Scheduler and "
                  "Client have different environments.\n"),
     "e.txt: the cluster could not load bpe-tui's counting job (RuntimeError); install the same bpe-tui as here "
     "on the scheduler and every worker"),
    (ValueError("one\n  two\n"), "e.txt: counting failed on the cluster (ValueError: one two)"),
])
def test_what_dask_says_is_one_line(error: Exception, line: str) -> None:
    """A scheduler with another bpe-tui (or none) could not unpickle the job: Dask's four lines came out
    with their newlines escaped inside the run's one line."""
    from core.corpus.records import ReadOptions
    from core.corpus.shards import Shard
    from core.train.shard_reading import ShardJob

    job = ShardJob(0, Shard("e.txt", "text", None, 3), ReadOptions())
    assert str(dask_counting._job_failed(job, error)) == line


def test_a_job_that_kept_killing_its_workers_says_what_to_do() -> None:
    """Dask's KilledWorker (a job whose workers all died running it: out of memory, as a rule) came out as
    its 350-character explanation with a task key and a link."""
    from types import SimpleNamespace

    from distributed.scheduler import KilledWorker

    from core.corpus.records import ReadOptions
    from core.corpus.shards import Shard
    from core.train.shard_reading import ShardJob

    job = ShardJob(0, Shard("big.parquet", "parquet", None, 3), ReadOptions())
    error = KilledWorker("count_on_worker-1", SimpleNamespace(address="tcp://10.0.0.7:4001"), 3)
    assert str(dask_counting._job_failed(job, error)) == (
        "big.parquet: counting it killed 4 workers in turn (the last tcp://10.0.0.7:4001), out of memory most "
        "likely; give the workers more memory (dask worker --memory-limit), or cut the shard into smaller files")


def test_dask_logs_are_quiet_during_a_run_and_restored_after() -> None:
    """Dask's client logged a lost scheduler as tracebacks above the run's one line; its config gives
    ``distributed.client`` a level of its own, so the parent's alone did not silence it."""
    import logging

    client_log = logging.getLogger("distributed.client")
    before = client_log.level
    levels = dask_counting._quiet_dask_logs()
    try:
        assert not client_log.isEnabledFor(logging.CRITICAL)
    finally:
        for logger, level in levels.items():
            logger.setLevel(level)
    assert client_log.level == before


def test_without_dask_distributed_the_message_says_how_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = make_corpus(tmp_path)
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(SettingsError, match=r"--dask needs the dask\.distributed package; install it with: "
                                            r"pip install 'bpe-tui\[dask\]'"):
        TrainingRun(corpus, 300, dask="local:2")


@pytest.mark.parametrize("address", ["10.0.0.5:8786", "local:0", "local:x", ""])
def test_an_address_not_understood(tmp_path: Path, address: str) -> None:
    with pytest.raises(SettingsError, match="--dask"):
        TrainingRun(make_corpus(tmp_path), 300, dask=address)


@pytest.mark.parametrize("address", ["local:1000", "local:999999999"])
def test_a_local_cluster_has_the_ceiling_of_workers(tmp_path: Path, address: str) -> None:
    """``local:99999999999`` was not refused: the run hung starting worker processes (beyond 9 digits: below)."""
    with pytest.raises(SettingsError, match=rf"^--dask {address}: [\d,]+ processes are more than this machine can "
                                            rf"use .*; give {max_workers()} or fewer$"):
        TrainingRun(make_corpus(tmp_path), 300, dask=address)


def test_a_local_cluster_of_thousands_of_digits_is_one_line(tmp_path: Path) -> None:
    """``local:`` and 5,000 digits ended in int()'s ValueError (``Exceeds the limit (4300 digits)``)."""
    with pytest.raises(SettingsError, match=r"^--dask local:111111111111\.\.\. \(5,000 digits\): more processes "
                                            rf"than this machine can use; give {max_workers()} or fewer$"):
        TrainingRun(make_corpus(tmp_path), 300, dask="local:" + "1" * 5000)


def test_an_unreachable_scheduler_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dask_counting, "CONNECT_TIMEOUT", 1.0)
    with pytest.raises(SettingsError, match=r"^--dask tcp://127\.0\.0\.1:9: cannot reach the scheduler \(.*\); "
                                            r"start one with 'dask scheduler' and check the address$") as caught:
        train_bpe(make_corpus(tmp_path), 300, [], dask="tcp://127.0.0.1:9")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("address", "message"), [
    ("http://10.0.0.5:8787/status", r"a web address, such as the dashboard's; give the scheduler's address, "
                                    r"tcp://HOST:8786 by default"),
    ("https://host:8787", r"a web address, such as the dashboard's"),
    ("ftp://host:8786", r"Dask has no ftp:// addresses; give the scheduler's, such as tcp://HOST:8786 "
                        r"\(tcp://, tls://, ws://, wss://, ucx://\)"),
])
def test_an_address_dask_cannot_use_is_refused_before_any_work(tmp_path: Path, address: str, message: str) -> None:
    """The dashboard's URL, which Dask prints beside the scheduler's, went to Dask: a ValueError traceback
    (``unknown address scheme 'http'``)."""
    with pytest.raises(SettingsError, match=rf"^--dask {re.escape(address)}: {message}"):
        TrainingRun(make_corpus(tmp_path), 300, dask=address)


@pytest.fixture
def foreign_server():
    """A TCP server on a free local port that accepts connections and sends ``reply`` (or nothing) and
    then holds them open: a port that is not a Dask scheduler. Yields a function that starts it."""
    import socket

    listeners: list[socket.socket] = []
    held: list[socket.socket] = []

    def start(reply: bytes) -> str:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listeners.append(listener)

        def serve() -> None:
            while True:
                try:
                    connection, _ = listener.accept()
                except OSError:
                    return
                held.append(connection)
                if reply:
                    connection.sendall(reply)

        threading.Thread(target=serve, daemon=True).start()
        return f"tcp://127.0.0.1:{listener.getsockname()[1]}"

    yield start
    for item in listeners + held:
        item.close()


@pytest.mark.parametrize(("reply", "problem"), [
    (b"", r"no Dask scheduler answered within 1\.5 s"),  # a web server waits for a request
    (b"\xff" * 64, r"what answers is not a Dask scheduler \(\w+\)"),  # a length of exabytes
])
def test_an_address_that_is_not_a_scheduler_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         foreign_server, reply: bytes, problem: str) -> None:
    """A port that accepts but does not speak Dask (the dashboard's 8787) hung ``Client()`` for ever, its
    handshake having no deadline; one that sends other bytes gave a MemoryError traceback."""
    monkeypatch.setattr(dask_counting, "CONNECT_TIMEOUT", 1.0)
    monkeypatch.setattr(dask_counting, "HANDSHAKE_SECONDS", 0.5)
    address = foreign_server(reply)
    with pytest.raises(SettingsError, match=rf"^--dask {address}: {problem}; give the scheduler's address, "
                                            r"tcp://HOST:8786 by default \(8787 is its dashboard\)$"):
        train_bpe(make_corpus(tmp_path), 300, [], dask=address)


def test_the_cli_with_worker_processes(tmp_path: Path) -> None:
    """The README's path: ``--dask local:2`` starts real worker processes."""
    corpus = make_corpus(tmp_path)
    result = run_cli("train", corpus, "--vocab-size", "330", "--special-token", SPECIAL, "--dask", "local:2",
                     "-o", tmp_path / "tok.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "5/5 shards" in result.stderr and "2 workers" in result.stderr
    from core.formats import load_tokenizer

    model = load_tokenizer(tmp_path / "tok.json")
    assert (model.vocab, model.merges) == reference.train(joined_text(every_document()), 330, [SPECIAL])


def _sigint_handler() -> str:
    import signal

    return repr(signal.getsignal(signal.SIGINT))


def test_a_local_clusters_worker_processes_leave_ctrl_c_to_this_process(tmp_path: Path) -> None:
    """A terminal's Ctrl-C reaches them too: each printed a KeyboardInterrupt traceback (and its nanny an
    error) above the run's one line. This process cancels the jobs and closes the cluster instead."""
    counting = dask_counting.DaskCounting("local:1", [])
    try:
        counting.start()
        handlers = counting._client.run(_sigint_handler)
    finally:
        counting.close()
    assert list(handlers.values()) == ["<Handlers.SIG_IGN: 1>"]
