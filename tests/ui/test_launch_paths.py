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


def test_a_corpus_of_shards_is_a_corpus(tmp_path: Path) -> None:
    """A JSON-lines file starts with '{' as a tokenizer does, and a folder of shards is a folder: both were
    tried as tokenizers ('Could not load tokenizer'), never offered as the corpus."""
    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / "a.jsonl").write_text('{"text": "one"}\n{"text": "two"}\n', encoding="utf-8")
    (shards / "meta.json").write_text('{"rows": 2}', encoding="utf-8")
    (tmp_path / "b.ndjson").write_text('{"text": "three"}\n', encoding="utf-8")
    tokenizer = tmp_path / "tok"
    tokenizer.mkdir()
    (tokenizer / "tokenizer.json").write_text("{}", encoding="utf-8")
    (tokenizer / "notes.txt").write_text("a shard-like file beside a tokenizer\n", encoding="utf-8")
    tokenizers, corpora = sort_paths([shards, tmp_path / "b.ndjson", tokenizer])
    assert tokenizers == [tokenizer.resolve()]
    assert corpora == [shards.resolve(), (tmp_path / "b.ndjson").resolve()]


def test_a_folder_of_shards_that_cannot_be_read_is_still_a_corpus(tmp_path: Path) -> None:
    """A dataset repository cloned without Git LFS (pointers for shards), or a folder with a dangling link,
    was taken for a tokenizer folder, whose load then said it held no tokenizer; as a corpus, the corpus
    pane says what is wrong with the shard."""
    repo = tmp_path / "repo"
    (repo / "data").mkdir(parents=True)
    (repo / "data" / "train-00000.parquet").write_bytes(b"version https://git-lfs.github.com/spec/v1\nsize 9\n")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "a.jsonl").symlink_to("gone.jsonl")
    empty = tmp_path / "other"
    empty.mkdir()
    (empty / "notes.md").write_text("no shards here", encoding="utf-8")
    tokenizers, corpora = sort_paths([repo, linked, empty])
    assert corpora == [repo.resolve(), linked.resolve()] and tokenizers == [empty.resolve()]
