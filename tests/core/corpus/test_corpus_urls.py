"""Corpora named by URL, read through fsspec: the same shards and merges as their local paths, on a Dask
cluster too, and one-line errors for a URL that names nothing."""

from __future__ import annotations

import sys
from pathlib import Path

import fsspec
import pytest

from core.corpus import open_corpus
from core.errors import CorpusError
from core.train import dask_counting
from core.train.run import TrainingRun, train_bpe
from tests.core.corpus.corpus_cases import SPECIAL, jsonl_bytes, parquet_bytes, sample_documents, write_shard

DOCUMENTS = sample_documents()[:200]


def local_corpus(root: Path) -> Path:
    write_shard(root / "corpus", "a.jsonl.gz", DOCUMENTS[:70])
    write_shard(root / "corpus", "sub/b.parquet", DOCUMENTS[70:140])
    write_shard(root / "corpus", "c.txt", DOCUMENTS[140:])
    (root / "corpus" / "README.md").write_text("not a shard", encoding="utf-8")
    return root / "corpus"


def test_a_file_url_reads_as_its_path(tmp_path: Path) -> None:
    corpus = local_corpus(tmp_path)
    by_url = open_corpus(f"file://{corpus}")
    assert [shard.path for shard in by_url.shards] == [f"file://{corpus}/a.jsonl.gz", f"file://{corpus}/c.txt",
                                                      f"file://{corpus}/sub/b.parquet"]
    assert by_url.ignored == 1
    expected = train_bpe(corpus, 320, [SPECIAL], workers=1)
    assert train_bpe(f"file://{corpus}", 320, [SPECIAL], workers=1) == expected
    assert train_bpe(f"file://{corpus}/**/*.*", 320, [SPECIAL], workers=2) == train_bpe(
        f"{corpus}/**/*.*", 320, [SPECIAL], workers=1)
    run = TrainingRun(f"file://{corpus}", 300, [SPECIAL], workers=1)
    list(run.events())
    assert run.result().training.corpus_path == f"file://{corpus}"  # the URL as given, not a mangled path


def test_a_memory_url_on_a_dask_cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shards only fsspec can reach (an in-memory file system, shared by the threaded workers)."""
    monkeypatch.setattr(dask_counting, "LOCAL_PROCESSES", False)
    memory = fsspec.filesystem("memory")
    memory.pipe("/bpe-tui-test/web/a.jsonl", jsonl_bytes(DOCUMENTS[:100]))
    memory.pipe("/bpe-tui-test/web/b.parquet", parquet_bytes(DOCUMENTS[100:]))
    try:
        local = tmp_path / "local"
        write_shard(local, "a.jsonl", DOCUMENTS[:100])
        write_shard(local, "b.parquet", DOCUMENTS[100:])
        expected = train_bpe(local, 320, [SPECIAL], workers=1)
        assert train_bpe("memory://bpe-tui-test/web", 320, [SPECIAL], dask="local:2") == expected
    finally:
        memory.rm("/bpe-tui-test", recursive=True)


@pytest.mark.parametrize(("url", "problem"), [
    ("file:///no/such/place/c.jsonl", "no such file; check the URL"),
    ("file:///no/such/place/*.jsonl", "the pattern matches no file"),
    ("nosuchprotocol://x/y.jsonl", "cannot be listed"),
])
def test_a_url_that_names_nothing(url: str, problem: str) -> None:
    with pytest.raises(CorpusError, match=problem) as caught:
        open_corpus(url)
    assert str(caught.value).startswith(url.split("*")[0]) and "\n" not in str(caught.value)


def test_a_missing_protocol_plug_in_is_named_as_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    # s3:// without s3fs said "cannot be listed (ImportError: Install s3fs to access S3); check the URL":
    # no check of the URL helps; installing the plug-in does.
    import fsspec.core

    def no_plug_in(url: str, **options: object) -> None:
        raise ImportError("Install s3fs to access S3")

    monkeypatch.setattr(fsspec.core, "url_to_fs", no_plug_in)
    with pytest.raises(CorpusError) as caught:
        open_corpus("s3://bucket/web/")
    assert str(caught.value) == ("s3://bucket/web/: its protocol needs an fsspec plug-in that is not installed "
                                 "(Install s3fs to access S3); install it here (and on every Dask worker)")


def test_without_fsspec_a_url_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    local_corpus(tmp_path)
    monkeypatch.setitem(sys.modules, "fsspec", None)
    with pytest.raises(CorpusError, match=r"a corpus URL needs the fsspec package; .*pip install 'bpe-tui\[formats\]'"):
        open_corpus(f"file://{tmp_path}/corpus")


def test_a_url_folder_leaves_out_a_tokenizers_files(tmp_path: Path) -> None:
    """As a local folder search does: GPT-2's one-line ``vocab.json`` read as JSON lines stopped the run."""
    import json

    corpus = local_corpus(tmp_path)
    (corpus / "sub" / "vocab.json").write_text(json.dumps({"text": 5239}), encoding="utf-8")
    (corpus / "sub" / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    (corpus / "tokenizer.json").write_text(json.dumps({"text": "one line"}), encoding="utf-8")
    by_url = open_corpus(f"file://{corpus}")
    assert [shard.path for shard in by_url.shards] == [f"file://{corpus}/a.jsonl.gz", f"file://{corpus}/c.txt",
                                                      f"file://{corpus}/sub/b.parquet"]
    assert by_url.ignored == 4
