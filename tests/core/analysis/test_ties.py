"""Ties: training records each merge's runner-up count, checked against the plain reference's recount, and
bpe-tui files keep it; files without it (older ones) load with ties unknown."""

from __future__ import annotations

import json
from pathlib import Path

from tests.data_paths import SAMPLES

from core import reference
from core.analysis.ties import tied_merges
from core.formats import load_tokenizer, save_tokenizer
from core.formats.native import to_text
from core.model import BPEModel
from core.train.run import TrainingRun


def trained(text: str, vocab_size: int) -> BPEModel:
    run = TrainingRun.from_text(text, vocab_size, ["<|endoftext|>"], workers=1)
    for _ in run.events():
        pass
    return run.result()


def reference_ties(
    text: str, merges: list[tuple[bytes, bytes]], special_tokens: tuple[str, ...] = ("<|endoftext|>",)
) -> list[bool]:
    """For each merge, whether two or more pairs had the best count when it was made (recounted from scratch)."""
    words = reference.count_words(text, list(special_tokens))
    ties = []
    for pair in merges:
        counts = reference.count_pairs(words)
        best = max(counts.values())
        assert counts[pair] == best
        ties.append(sum(1 for count in counts.values() if count == best) >= 2)
        words = reference.merge_words(words, pair)
    return ties


def test_recorded_ties_equal_the_reference_recount() -> None:
    text = (SAMPLES / "mixed.txt").read_text(encoding="utf-8")
    model = trained(text, 420)
    expected = reference_ties(text, model.merges)
    assert [model.merge_was_tie(rank) for rank in range(len(model.merges))] == expected
    ties = tied_merges(model)
    assert ties.recorded == len(model.merges)
    assert [tie.rank for tie in ties.tied] == [rank for rank, was in enumerate(expected) if was]
    assert any(expected) and not all(expected)


def test_toy_ties_by_hand() -> None:
    # "ab ab cd": (a, b) 2 beats the rest (1); then (" ", "ab"), (" ", "c") and ("c", "d") all count 1,
    # and the tie rule takes the greatest pair of byte strings, ("c", "d").
    model = trained("ab ab cd", 259)  # 256 bytes, the special token, two merges
    assert model.merges == [(b"a", b"b"), (b"c", b"d")]
    assert model.merge_runner_ups == [1, 1] and model.merge_counts == [2, 1]
    assert [t.rank for t in tied_merges(model).tied] == [1]


def test_bpe_tui_files_keep_runner_ups(tmp_path: Path) -> None:
    model = trained((SAMPLES / "english.txt").read_text(encoding="utf-8")[:5000], 300)
    loaded = load_tokenizer(save_tokenizer(model, tmp_path / "t.json", format="bpe-tui")[0])
    assert loaded.merge_runner_ups == model.merge_runner_ups and loaded.fingerprint_verified
    assert tied_merges(loaded) == tied_merges(model)


def test_a_file_from_before_runner_ups_loads_with_ties_unknown(tmp_path: Path) -> None:
    model = trained((SAMPLES / "english.txt").read_text(encoding="utf-8")[:5000], 300)
    data = json.loads(to_text(model))
    data["merges"] = [entry[:3] for entry in data["merges"]]  # the layout every earlier version wrote
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_tokenizer(path)
    assert loaded.fingerprint_verified and loaded.merges == model.merges
    assert loaded.merge_counts == model.merge_counts and loaded.merge_runner_ups is None
    ties = tied_merges(loaded)
    assert not ties.known and ties.tied == () and ties.describe().startswith("unknown")
    assert loaded.merge_was_tie(0) is None


def test_other_formats_leave_ties_unknown(tmp_path: Path) -> None:
    model = trained((SAMPLES / "english.txt").read_text(encoding="utf-8")[:5000], 300)
    for fmt, name in (("hf", "tokenizer.json"), ("gpt2", "gpt2"), ("tiktoken", "t.tiktoken")):
        loaded = load_tokenizer(save_tokenizer(model, tmp_path / name, format=fmt)[0])
        assert not tied_merges(loaded).known
