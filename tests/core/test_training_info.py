"""TrainingInfo in bpe-tui JSON: a stopped run is recorded as such; files of complete runs are unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from core.formats import load_tokenizer, save_tokenizer
from core.model import BPEModel, TrainingInfo


def model(training: TrainingInfo | None) -> BPEModel:
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab"}
    return BPEModel(vocab, [(b"a", b"b")], merge_counts=[3], training=training)


def test_a_stopped_run_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    save_tokenizer(model(TrainingInfo(1000, corpus_path="c.txt", stopped_after=1)), path, format="bpe-tui")
    assert json.loads(path.read_text(encoding="utf-8"))["training"]["stopped_after"] == 1
    loaded = load_tokenizer(path)
    assert loaded.training is not None and loaded.training.stopped_after == 1


def test_a_complete_run_writes_no_stop_and_old_files_load(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    save_tokenizer(model(TrainingInfo(1000)), path, format="bpe-tui")
    assert "stopped_after" not in json.loads(path.read_text(encoding="utf-8"))["training"]
    loaded = load_tokenizer(path)
    assert loaded.training == TrainingInfo(1000)
    assert TrainingInfo.from_json({"vocab_size": 5, "stopped_after": None}).stopped_after is None
