"""Mid-sized corpora (from ``SHARED_READING_MIN_BYTES``): this process reads one chunk, forked workers the rest.

The results must be those of one process, the split must really happen (a spy on the pool proves it),
and an error in either process's chunk must name the file's own byte offset.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.train import reading_stage
from core.train import worker_pool
from core.errors import CorpusError
from core import reference
from core.train.events import PhaseProgress, TrainingFinished
from core.train.reading_stage import PARALLEL_MIN_BYTES, SHARED_READING_MIN_BYTES
from core.train.run import TrainingRun, train_bpe

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
SPECIAL = "<|endoftext|>"


class PoolSpy(worker_pool.WorkerPool):
    """A real pool that remembers its size and how many jobs it was given."""

    made: list[PoolSpy] = []

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.workers = workers
        self.jobs: list[tuple[str, int]] = []  # (function, number of jobs) per call
        PoolSpy.made.append(self)

    def map_unordered(self, function, jobs):
        jobs = list(jobs)
        self.jobs.append((function.__name__, len(jobs)))
        return super().map_unordered(function, jobs)


@pytest.fixture
def pool_spy(monkeypatch: pytest.MonkeyPatch) -> type[PoolSpy]:
    PoolSpy.made = []
    monkeypatch.setattr(worker_pool, "WorkerPool", PoolSpy)
    return PoolSpy


@pytest.fixture(scope="module")
def mid_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """English, Japanese and mixed samples repeated to about 800 KB: between the two thresholds."""
    one = SPECIAL.join((SAMPLES / f"{name}.txt").read_text(encoding="utf-8") for name in ("english", "japanese", "mixed"))
    target = (SHARED_READING_MIN_BYTES + PARALLEL_MIN_BYTES) // 2
    copies = -(-target // len(one.encode("utf-8")))
    path = tmp_path_factory.mktemp("mid") / "mid.txt"
    path.write_text(SPECIAL.join([one] * copies), encoding="utf-8", newline="")
    assert SHARED_READING_MIN_BYTES <= path.stat().st_size < PARALLEL_MIN_BYTES
    return path


@pytest.mark.parametrize("workers", [2, 3])
def test_reading_is_shared_and_trains_as_one_process_does(mid_corpus: Path, workers: int, pool_spy) -> None:
    one = TrainingRun(mid_corpus, 256 + 1 + 150, [SPECIAL], workers=1)
    assert isinstance(list(one.events())[-1], TrainingFinished)
    assert pool_spy.made == []  # one worker: no pool at all
    run = TrainingRun(mid_corpus, 256 + 1 + 150, [SPECIAL], workers=workers)
    events = list(run.events())
    assert isinstance(events[-1], TrainingFinished)
    [pool] = pool_spy.made
    assert pool.workers == workers - 1  # this process is the other reader
    assert pool.jobs[0] == ("count_chunks", workers - 1)  # one share of the chunks for each worker
    size = mid_corpus.stat().st_size
    reading = [e.done for e in events if isinstance(e, PhaseProgress) and e.phase == "reading"]
    assert reading == sorted(reading) and reading[-1] == size
    assert len([done for done in reading if 0 < done < size]) >= 2  # this process's own chunks, one by one
    ours, theirs = run.result(), one.result()
    assert ours.merges == theirs.merges
    assert ours.merge_counts == theirs.merge_counts
    assert ours.vocab == theirs.vocab
    assert ours.training.corpus_sha256 == theirs.training.corpus_sha256
    assert ours.training.corpus_bytes == size


def test_shared_reading_counts_every_pre_token(mid_corpus: Path) -> None:
    # Counts straight from the reading phase, against the reference counter on the whole text.
    run = TrainingRun(mid_corpus, 300, [SPECIAL], workers=2)
    counts: dict[str, int] = {}
    list(run._read(counts, worker_pool.WorkerPool(1)))
    assert counts == reference.count_pretokens(mid_corpus.read_text(encoding="utf-8"), [SPECIAL])


@pytest.mark.parametrize("where", ["first half", "second half"])
def test_an_error_in_either_process_names_the_files_offset(tmp_path: Path, where: str) -> None:
    line = "a perfectly ordinary line of text\n"
    bulk = (line * (SHARED_READING_MIN_BYTES // len(line) + 1000)).encode()
    little = (line * 100).encode()
    bad = b"tail\xffend\n"
    before, after = (little, bulk) if where == "first half" else (bulk, little)
    path = tmp_path / "mid.txt"
    path.write_bytes(before + bad + after)
    assert SHARED_READING_MIN_BYTES <= path.stat().st_size < PARALLEL_MIN_BYTES
    with pytest.raises(CorpusError, match=f"offset {len(before) + 4}"):
        train_bpe(path, 300, [], workers=2)


def test_small_corpora_start_no_workers(tmp_path: Path, pool_spy) -> None:
    path = tmp_path / "small.txt"
    path.write_text("low lower newest " * 1000, encoding="utf-8")
    assert path.stat().st_size < SHARED_READING_MIN_BYTES
    train_bpe(path, 300, [], workers=2)
    assert pool_spy.made == []


def test_without_fork_everything_is_read_here(mid_corpus: Path, monkeypatch: pytest.MonkeyPatch, pool_spy) -> None:
    monkeypatch.delattr(reading_stage.os, "fork")
    two = train_bpe(mid_corpus, 300, [SPECIAL], workers=2)
    assert pool_spy.made == []
    monkeypatch.undo()
    assert two == train_bpe(mid_corpus, 300, [SPECIAL], workers=1)


def test_a_failing_chunk_in_the_workers_is_reported_before_the_file_is_hashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every chunk in the workers, this process hashed the whole corpus before looking at their
    results: a 10 GiB sparse file was read through before a NUL near its start was reported."""
    hashed: list[Path] = []
    monkeypatch.setattr(reading_stage, "file_sha256", lambda path: hashed.append(path) or "0" * 64)
    corpus = tmp_path / "nul.txt"
    corpus.write_bytes(b"word " * 1000 + b"\x00" + b"word " * (PARALLEL_MIN_BYTES // 5))
    run = TrainingRun(corpus, 300, [], workers=2)
    with pytest.raises(CorpusError, match="NUL byte at byte offset 5000"):
        list(run.events())
    assert hashed == []
