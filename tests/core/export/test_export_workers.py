"""Shared exports: a warm-up chunk here, then chunks taken one at a time by every process.

The ids must be those of one process whatever the timing, the first error in file order must win, and no
worker or part file may outlive the export, however it ends.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from tests.core.export.export_cases import ADVERSARIAL, export_ids, in_a_worker, patch_encode_range
from tests.core.formats.format_cases import SPECIAL, encoder, small_model

import core.export.chunk_queue
import core.export.encoding
import core.export.workers
from core.errors import BPEError, CorpusError
from core.export.run import WARM_UP_BYTES, ExportFinished, ExportProgress, chunk_ranges, export_corpus, export_events
from core.export.chunk_queue import ChunkQueue, ForkedChunkQueue
from core.pretokenize.patterns import GPT2_PATTERN
from tests.fork_interrupts import ctrl_c_as_children_start, marks
from tests.waiting import wait_until


@pytest.fixture(scope="module")
def small():
    return small_model()


WORDS = b"good text here and there " * 400  # 10,000 bytes of ASCII: a letter can become a bad byte in place


def chunks_of(corpus: Path, chunk_bytes: int) -> list[tuple[int, int]]:
    """The chunks a shared export of ``corpus`` uses: the warm-up chunk first, then the shared ones."""
    return list(chunk_ranges(corpus, [SPECIAL], GPT2_PATTERN, chunk_bytes, min(WARM_UP_BYTES, chunk_bytes)))


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != "corpus.txt")


@pytest.fixture
def signals(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder where processes leave marker files for each other (apart from the export's own folder,
    which must end up empty)."""
    return tmp_path_factory.mktemp("signals")


@pytest.mark.parametrize("kind", ["forked", "multiprocessing"])
def test_the_chunk_queue_hands_out_each_chunk_once_in_order_across_processes(kind: str) -> None:
    import multiprocessing

    context = multiprocessing.get_context(core.export.workers._start_method())
    if kind == "forked" and context.get_start_method() != "fork":
        pytest.skip("this platform cannot fork")
    make = (lambda count: ForkedChunkQueue(count)) if kind == "forked" else (lambda count: ChunkQueue(context, count))
    queue = make(20_000)
    conn_pairs = [context.Pipe(duplex=False) for _ in range(3)]
    processes = [context.Process(target=take_all_into, args=(queue, writer)) for _, writer in conn_pairs]
    for process in processes:
        process.start()
    lists = [reader.recv() for reader, _ in conn_pairs]
    for process in processes:
        process.join()
    assert all(taken == sorted(taken) for taken in lists)  # each process takes in increasing order
    assert sorted(sum(lists, [])) == list(range(20_000))  # every chunk exactly once
    queue = make(10)
    assert [queue.take(), queue.take()] == [0, 1]
    queue.stop_before(5)
    assert [queue.take(), queue.take(), queue.take(), queue.take()] == [2, 3, 4, None]
    queue.stop_before(-1)
    assert queue.take() is None


def test_a_queue_lock_left_by_a_killed_process_is_an_error_not_a_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing

    monkeypatch.setattr(core.export.chunk_queue, "LOCK_SECONDS", 0.2)
    context = multiprocessing.get_context("fork")
    queue = ChunkQueue(context, 10)
    holder = context.Process(target=die_holding_the_lock, args=(queue,))
    holder.start()
    holder.join()
    with pytest.raises(BPEError, match="worker process died"):
        queue.take()


def test_a_forked_queue_lock_dies_with_its_holder() -> None:
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("this platform cannot fork")
    queue = ForkedChunkQueue(10)
    taken, told = os.pipe()
    pid = os.fork()
    if pid == 0:  # take the lock, say so, and die holding it
        core.export.chunk_queue.fcntl.lockf(queue._lock_file, core.export.chunk_queue.fcntl.LOCK_EX)
        os.write(told, b"x")
        os._exit(9)
    assert os.read(taken, 1) == b"x"
    os.waitpid(pid, 0)
    assert queue.take() == 0  # the system released the lock: no wait, no error
    queue.close()


def die_holding_the_lock(queue) -> None:
    queue._state.get_lock().acquire()
    os._exit(9)


def take_all_into(queue, conn) -> None:
    taken = []
    while (index := queue.take()) is not None:
        taken.append(index)
    conn.send(taken)


@pytest.mark.parametrize("bad_chunks", [[-1], [3, 9], [2, 3], [1, -2]], ids=["last", "apart", "adjacent", "first-and-late"])
def test_errors_come_back_first_in_file_order(
    tmp_path: Path, small, bad_chunks: list[int], monkeypatch: pytest.MonkeyPatch, signals: Path
) -> None:
    """Invalid UTF-8 in a chunk: its error and offset, or an earlier chunk's even when that comes in later."""
    corpus = tmp_path / "corpus.txt"
    data = bytearray(WORDS)
    corpus.write_bytes(data)
    chunks = chunks_of(corpus, 64)
    offsets = []
    for index in bad_chunks:
        start, end = chunks[index]
        offsets.append(next(at for at in range((start + end) // 2, end) if data[at : at + 1].isalpha()))
        data[offsets[-1]] = 0xFF
    corpus.write_bytes(data)
    assert chunks_of(corpus, 64) == chunks  # the bad bytes are where the test says
    if len(bad_chunks) > 1:
        # The process that takes the chunk with the first bad byte waits until another process has started
        # on the later bad chunk (the others take every chunk in between), so the later error surely
        # comes in first.
        early, later = chunks[bad_chunks[0]][0], chunks[bad_chunks[1]][0]
        later_started = signals / "later-started"

        def before(start: int) -> None:
            if start == later:
                later_started.touch()
            elif start == early:
                wait_until(later_started.exists, "another process to start on the later bad chunk")

        patch_encode_range(monkeypatch, before)
    with pytest.raises(CorpusError) as caught:
        export_corpus(corpus, small, tmp_path / "ids.npy", workers=3, chunk_bytes=64)
    assert f"byte offset {offsets[0]} (byte 0xff)" in str(caught.value) and "\n" not in str(caught.value)
    assert leftovers(tmp_path) == []


def test_a_slow_process_takes_fewer_chunks(tmp_path: Path, small, monkeypatch: pytest.MonkeyPatch,
                                          signals: Path) -> None:
    """Chunks go to whichever process is free: a worker held back leaves most of them to this process.

    The order is fixed, not timed: this process waits on its first shared chunk until the worker has
    taken one, and the worker holds each chunk it takes until this process has started on the fourth
    chunk after it (or on the last), so it takes at most one chunk in five.
    """
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(WORDS)
    chunks = chunks_of(corpus, 64)
    index_of = {start: index for index, (start, _) in enumerate(chunks)}
    last = len(chunks) - 1
    worker_started, started_here = signals / "worker-started", signals / "started-here"
    started_here.write_text("0\n")  # the warm-up chunk, encoded before the worker exists
    taken_here: list[int] = []

    def furthest_here() -> int:
        return max(int(line) for line in started_here.read_text().split())

    def before(start: int) -> None:
        index = index_of[start]
        if in_a_worker():
            worker_started.touch()
            target = min(index + 4, last)
            if index != last:
                wait_until(lambda: furthest_here() >= target, f"this process to reach chunk {target}")
        else:
            if index > 0:
                wait_until(worker_started.exists, "the worker to take a chunk")
            taken_here.append(index)
            with started_here.open("a") as handle:
                handle.write(f"{index}\n")

    patch_encode_range(monkeypatch, before)
    ids = export_ids(small, corpus, tmp_path / "ids.npy", workers=2, chunk_bytes=64)
    assert ids.tolist() == encoder(small).encode(WORDS.decode())
    assert len(chunks) > 100
    assert len(taken_here) > len(chunks) * 3 // 4  # the held-back worker took only a few
    assert len(taken_here) < len(chunks)  # but it did take some
    assert leftovers(tmp_path) == ["ids.npy", "ids.npy.json"]


def test_closing_while_workers_run_leaves_nothing(tmp_path: Path, small, monkeypatch: pytest.MonkeyPatch) -> None:
    """Closing the generator stops the workers at once (these would take an hour) and deletes the part files."""
    import multiprocessing
    import time

    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(WORDS)
    patch_encode_range(monkeypatch, lambda start: time.sleep(3600) if in_a_worker() else None)
    events = export_events(corpus, small, tmp_path / "ids.npy", workers=3, chunk_bytes=64)
    for event in events:
        assert isinstance(event, ExportProgress)
        if len([p for p in tmp_path.iterdir() if p.name.endswith(".part")]) == 3:
            break
    else:
        pytest.fail("no part files seen")
    started = time.monotonic()
    events.close()
    # Waiting would take an hour; stopping them takes milliseconds. The bound only needs to tell the two apart.
    assert time.monotonic() - started < 60, "waited for the workers instead of stopping them"
    assert leftovers(tmp_path) == [] and multiprocessing.active_children() == []


@pytest.mark.parametrize("workers", [2, 3])
def test_progress_counts_every_process(tmp_path: Path, small, workers: int) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(ADVERSARIAL.encode("utf-8") * 4)
    chunks = chunks_of(corpus, 100)
    assert len(chunks) > 3 * workers
    events = list(export_events(corpus, small, tmp_path / "ids.npy", workers=workers, chunk_bytes=100))
    progress = [e for e in events if isinstance(e, ExportProgress)]
    assert isinstance(events[-1], ExportFinished)
    assert np.load(tmp_path / "ids.npy").tolist() == encoder(small).encode(corpus.read_bytes().decode())
    assert len(progress) >= 2  # the warm-up chunk, then as chunks are done here and in the workers
    assert all(a.done_bytes < b.done_bytes and a.tokens <= b.tokens for a, b in zip(progress, progress[1:]))
    assert all(e.total_bytes == corpus.stat().st_size for e in progress)
    assert progress[-1].done_bytes == corpus.stat().st_size and progress[-1].tokens == events[-1].tokens


@pytest.mark.parametrize(("text", "shared"), [("", False), ("hi", False), ("hi there", False),
                                              ("one two three", False), ("one two three four", True)])
def test_too_small_to_share(tmp_path: Path, small, text: str, shared: bool) -> None:
    """Four workers on up to three chunks: all done here without workers, or shared. Same ids either way."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8")
    assert (len(chunks_of(corpus, 4)) > 2) == shared
    ids = export_ids(small, corpus, tmp_path / "ids.npy", workers=4, chunk_bytes=4)
    assert ids.tolist() == encoder(small).encode(text)
    assert leftovers(tmp_path) == ["ids.npy", "ids.npy.json"]


def test_a_worker_that_dies_silently(tmp_path: Path, small, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core.export.workers, "_encode_share", lambda *args: os._exit(3))
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(WORDS)
    with pytest.raises(BPEError, match="export worker process died .* try fewer --workers"):
        export_corpus(corpus, small, tmp_path / "ids.npy", workers=2, chunk_bytes=64)
    assert leftovers(tmp_path) == []


def test_other_worker_failures_keep_their_type(tmp_path: Path, small, monkeypatch: pytest.MonkeyPatch,
                                                signals: Path) -> None:
    class Odd(Exception):  # defined here, so it cannot be pickled: the worker sends its name instead
        pass

    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(WORDS)

    def fail_in_worker(error: Exception, worker_failed: Path):
        # This process holds its first shared chunk until the worker has taken one and is failing on it;
        # otherwise this process could take every chunk first, and nothing would fail.
        def before(start: int) -> None:
            if in_a_worker():
                worker_failed.touch()
                raise error
            if start > 0:  # not the warm-up chunk, which is encoded before the worker exists
                wait_until(worker_failed.exists, "the worker to take a chunk")
        return before

    patch_encode_range(monkeypatch, fail_in_worker(RuntimeError("boom at 12"), signals / "first"))
    with pytest.raises(RuntimeError, match="^boom at 12$"):
        export_corpus(corpus, small, tmp_path / "ids.npy", workers=2, chunk_bytes=64)
    monkeypatch.undo()
    patch_encode_range(monkeypatch, fail_in_worker(Odd("strange"), signals / "second"))
    with pytest.raises(BPEError, match="^an export worker failed: Odd: strange$"):
        export_corpus(corpus, small, tmp_path / "ids.npy", workers=2, chunk_bytes=64)
    assert leftovers(tmp_path) == []


def test_spawned_workers(tmp_path: Path, small, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where fork is missing, workers are spawned and build the tokenizer from the model: same ids, same errors."""
    monkeypatch.setattr(core.export.workers, "_start_method", lambda: "spawn")
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(ADVERSARIAL.encode("utf-8"))
    ids = export_ids(small, corpus, tmp_path / "ids.npy", workers=3, chunk_bytes=200)
    assert ids.tolist() == encoder(small).encode(ADVERSARIAL)
    corpus.write_bytes(ADVERSARIAL.encode("utf-8") + b"tail \xff")
    with pytest.raises(CorpusError, match=f"byte offset {len(ADVERSARIAL.encode()) + 5} "):
        export_corpus(corpus, small, tmp_path / "bad.npy", workers=3, chunk_bytes=200)
    assert leftovers(tmp_path) == ["ids.npy", "ids.npy.json"]


def test_a_shared_exports_first_chunk_is_the_small_warm_up_chunk(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(WORDS * 40)  # 400,000 bytes
    ranges = list(chunk_ranges(corpus, [SPECIAL], GPT2_PATTERN, 100_000, first_chunk_bytes=WARM_UP_BYTES))
    assert WARM_UP_BYTES <= ranges[0][1] < WARM_UP_BYTES + 100  # cut at the first safe place after it
    assert all(b - a >= 100_000 for a, b in ranges[1:-1]) and ranges[-1][1] == 400_000
    assert all(a == b for (_, a), (b, _) in zip(ranges, ranges[1:]))


def test_a_queue_lock_file_that_cannot_be_made_is_an_output_error(
    tmp_path: Path, small, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from core.output_errors import OutputError

    if core.export.workers._start_method() != "fork":
        pytest.skip("only forked workers use a lock file")

    def refuse(**_: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(core.export.chunk_queue.tempfile, "TemporaryFile", refuse)
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(WORDS)
    with pytest.raises(OutputError, match=r"cannot write .*ids\.npy: permission denied"):
        export_corpus(corpus, small, tmp_path / "ids.npy", workers=2, chunk_bytes=1000)
    assert leftovers(tmp_path) == []


def test_a_worker_started_after_the_cleanup_makes_no_file(tmp_path: Path, small) -> None:
    """A worker forked while Ctrl-C cut its start short is unknown to the export, so nothing stops it before
    the cleanup. Its part and words files are gone by then: it must fail, not make them again."""
    import multiprocessing

    from core.encode.tokenizer import Tokenizer

    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(WORDS)
    ranges = chunks_of(corpus, 64)[1:]
    context = multiprocessing.get_context("fork")
    queue = ChunkQueue(context, len(ranges))
    reader, writer = context.Pipe(duplex=False)
    part, words = tmp_path / "gone.part", [tmp_path / "mine.words", tmp_path / "other.words"]
    worker = context.Process(target=core.export.workers._encode_share, args=(
        Tokenizer.from_model(small), corpus, ranges, queue, part, tmp_path / "ids.npy", "uint16", writer, words, 0))
    worker.start()
    writer.close()
    message = reader.recv()
    worker.join()
    assert message[0] == "failed" and message[2] is FileNotFoundError
    assert leftovers(tmp_path) == []


def test_a_ctrl_c_as_an_export_worker_starts_is_left_to_the_parent(tmp_path: Path, small) -> None:
    """As for the reading workers (tests/core/train/test_worker_pool.py): a Ctrl-C in a forked export worker's
    first moment waits until it has set its handlers, which ignore it; the export goes on to the same ids."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(WORDS * 4)
    folder = tmp_path / "marks"
    folder.mkdir()
    expected = export_ids(small, corpus, tmp_path / "one.npy", workers=1)
    with ctrl_c_as_children_start(folder):
        ids = export_ids(small, corpus, tmp_path / "two.npy", workers=2, chunk_bytes=4096)
    assert np.array_equal(ids, expected)
    assert marks(folder) == ["ran"]
