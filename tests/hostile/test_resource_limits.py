"""Limits a shell or a batch system sets (``ulimit -n``, ``-f``, ``-v``): one line naming the limit, nothing left.

Out of file descriptors, a command printed "Too many open files" after whatever file it met last (a file
of Python's own multiprocessing, or ``[Errno 24] ... 'corpus.txt'`` from an export worker); past a file-size
limit, "File too large"; out of memory, a MemoryError traceback. None said which limit, or what to do.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile.hostile_cases import (
    ENGLISH,
    digests,
    error_after_progress,
    everything,
    export_corpus_file,
    run_here,
    small_tokenizer,
)


def _limited(limit: int, value: int, *argv: str | os.PathLike[str], cwd: Path) -> tuple[int, str, str]:
    """``python -m bpe_tui ARGV`` with resource ``limit`` set to ``value``; (status, stdout, stderr)."""

    def set_limit() -> None:
        resource.setrlimit(limit, (value, value))

    result = subprocess.run(
        [sys.executable, "-m", "bpe_tui", *map(str, argv)], cwd=cwd, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=60, preexec_fn=set_limit,
    )
    return result.returncode, result.stdout, result.stderr


@pytest.mark.parametrize("descriptors", [7, 9])
def test_too_few_file_descriptors_for_an_export_with_two_workers(descriptors: int, tmp_path: Path) -> None:
    corpus = export_corpus_file(tmp_path / "corpus.txt")
    tok = small_tokenizer(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    code, stdout, err = _limited(resource.RLIMIT_NOFILE, descriptors, "export", corpus, tok, "-o", out / "ids.npy",
                                 "--workers", "2", cwd=tmp_path)
    line = error_after_progress(code, stdout, err, "export", "too many open files",
                                f"at most {descriptors} here", "ulimit -n", "fewer --workers")
    assert "multiprocessing" not in line and "Errno" not in line
    assert everything(out) == []


@pytest.mark.parametrize("command", ["train", "export"])
def test_a_file_size_limit_leaves_the_old_output(command: str, tmp_path: Path) -> None:
    tok = small_tokenizer(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    if command == "train":
        (out / "tok.json").write_text("old")
        argv = ["train", ENGLISH, "--vocab-size", "600", "--workers", "1", "-o", out / "tok.json", "--force"]
    else:
        (out / "ids.npy").write_text("old")
        (out / "ids.npy.json").write_text("old")
        argv = ["export", export_corpus_file(tmp_path / "corpus.txt"), tok, "-o", out / "ids.npy", "--workers", "2",
                "--force"]
    before = digests(tmp_path)
    code, stdout, err = _limited(resource.RLIMIT_FSIZE, 4096, *argv, cwd=tmp_path)
    error_after_progress(code, stdout, err, command, "cannot write", "larger than allowed", "ulimit -f")
    assert digests(tmp_path) == before


def test_running_out_of_memory_while_training_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a memory limit (``ulimit -v``) does to a big run, without depending on this machine's sizes."""
    from core.train.run import TrainingRun

    def no_room(self: TrainingRun):
        raise MemoryError
        yield

    monkeypatch.setattr(TrainingRun, "events", no_room)
    out = tmp_path / "tok.json"
    code, stdout, err = run_here(capsys, "train", ENGLISH, "--vocab-size", "300", "--workers", "1", "-o", out,
                                 "--events", tmp_path / "e.jsonl")
    error_after_progress(code, stdout, err, "train", "out of memory; try --min-count 2", "fewer --workers")
    assert everything(tmp_path) == []


def test_an_export_worker_out_of_memory_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import core.export.encoding

    encode_range = core.export.encoding.encode_range

    def no_room_after_the_first_chunk(tokenizer, path, start, end, dtype):  # type: ignore[no-untyped-def]
        if start > 0:
            raise MemoryError
        return encode_range(tokenizer, path, start, end, dtype)

    monkeypatch.setattr(core.export.encoding, "encode_range", no_room_after_the_first_chunk)
    corpus = export_corpus_file(tmp_path / "corpus.txt")
    tok = small_tokenizer(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    code, stdout, err = run_here(capsys, "export", corpus, tok, "-o", out / "ids.npy", "--workers", "2")
    error_after_progress(code, stdout, err, "export", "out of memory; try fewer --workers")
    assert everything(out) == []


def _killed(*args: object) -> None:
    os._exit(137)  # as the out-of-memory killer or kill -9 ends a reading worker


def test_a_training_worker_killed_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """It was a WorkerDied traceback (a RuntimeError), status 1."""
    from core.train.worker_pool import WorkerPool

    map_unordered = WorkerPool.map_unordered
    monkeypatch.setattr(WorkerPool, "map_unordered", lambda self, function, jobs: map_unordered(self, _killed, jobs))
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest newer newest widest\n" * 20_000)  # 740 KB: read by workers too
    out = tmp_path / "out"
    out.mkdir()
    code, stdout, err = run_here(capsys, "train", corpus, "--vocab-size", "300", "--workers", "2",
                                 "-o", out / "tok.json")
    error_after_progress(code, stdout, err, "train", "ended without sending its result (killed, or out of memory?)")
    assert everything(out) == []
