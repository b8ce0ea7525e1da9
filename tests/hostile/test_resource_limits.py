"""Limits a shell or a batch system sets (``ulimit -v``): one line naming the limit, nothing left.

Out of memory, a command printed a MemoryError traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile.hostile_cases import (
    ENGLISH,
    error_after_progress,
    everything,
    export_corpus_file,
    run_here,
    small_tokenizer,
)


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
