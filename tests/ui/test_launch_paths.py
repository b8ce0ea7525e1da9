"""How ``bpe-tui PATH...`` sorts its arguments into tokenizers and corpora."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_tui.launch import UsageError, sort_paths


def test_gpt2_vocab_and_merges_named_together_are_one_tokenizer(tmp_path: Path) -> None:
    (tmp_path / "gpt2_vocab.json").write_text("{}", encoding="utf-8")
    (tmp_path / "gpt2_merges.txt").write_text("", encoding="utf-8")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("some text\n", encoding="utf-8")
    tokenizers, corpora = sort_paths([tmp_path / "gpt2_vocab.json", tmp_path / "gpt2_merges.txt", corpus])
    assert tokenizers == [(tmp_path / "gpt2_vocab.json").resolve()]
    assert corpora == [corpus.resolve()]


def test_gpt2_files_in_different_folders_stay_separate(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "vocab.json").write_text("{}", encoding="utf-8")
    tokenizers, _ = sort_paths([tmp_path / "a" / "vocab.json", tmp_path / "b" / "vocab.json"])
    assert len(tokenizers) == 2


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such file"):
        sort_paths([tmp_path / "absent.json"])
