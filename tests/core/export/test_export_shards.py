"""Export of a corpus of shards: the ids of its documents joined by the special token, as tiktoken encodes
the same documents joined in one text, for every worker count; one array a shard with ``per_shard``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tiktoken

from core.atomic import OutputError
from core.corpus import open_corpus
from core.errors import CorpusError
from core.export.shards import ShardExported, export_shard_events
from core.formats import load_tokenizer
from tests.core.corpus.corpus_cases import SPECIAL, joined_text, sample_documents, write_shard
from tests.data_paths import GPT2_DIR


@pytest.fixture(scope="module")
def gpt2():
    return load_tokenizer(GPT2_DIR / "vocab.json", merges_path=GPT2_DIR / "merges.txt")


@pytest.fixture(scope="module")
def reference_encoding(gpt2) -> tiktoken.Encoding:
    """GPT-2 as tiktoken builds it offline: ranks from the bundled vocab, <|endoftext|> = 50256."""
    ranks = {token: i for i, token in gpt2.vocab.items() if token != SPECIAL.encode()}
    return tiktoken.Encoding("gpt2-local", pat_str=gpt2.pattern, mergeable_ranks=ranks,
                             special_tokens={SPECIAL: 50256})


def shares() -> list[list[str]]:
    documents = sample_documents()
    return [documents[:200], [], documents[200:450], documents[450:]]


def make_corpus(folder: Path) -> Path:
    for name, share in zip(["a.jsonl.gz", "b.jsonl", "c/d.parquet", "e.txt.zst"], shares()):
        write_shard(folder / "corpus", name, share)
    return folder / "corpus"


@pytest.mark.parametrize("workers", [1, 2])
def test_one_array_equals_tiktoken_on_the_joined_documents(tmp_path: Path, gpt2, reference_encoding, workers: int) -> None:
    corpus = make_corpus(tmp_path)
    events = list(export_shard_events(open_corpus(corpus), gpt2, tmp_path / "ids.npy", workers=workers))
    every = [d for share in shares() for d in share]
    expected = reference_encoding.encode(joined_text(every), allowed_special="all")
    ids = np.load(tmp_path / "ids.npy")
    assert ids.dtype == np.uint16 and ids.tolist() == expected
    assert events[-1].tokens == len(expected)
    done = sorted((Path(e.shard).name, e.documents) for e in events if isinstance(e, ShardExported))
    assert done == [("a.jsonl.gz", 200), ("b.jsonl", 0), ("d.parquet", 250), ("e.txt.zst", 1)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus", "ids.npy"]  # no part file left


def test_per_shard_arrays(tmp_path: Path, gpt2, reference_encoding) -> None:
    corpus = make_corpus(tmp_path)
    list(export_shard_events(open_corpus(corpus), gpt2, tmp_path / "out", workers=2, per_shard=True))
    names = sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*.npy"))
    assert names == ["a.jsonl.npy", "b.jsonl.npy", "c/d.parquet.npy", "e.txt.npy"]
    for name, share in zip(["a.jsonl.npy", "b.jsonl.npy", "c/d.parquet.npy", "e.txt.npy"], shares()):
        expected = reference_encoding.encode(joined_text(share), allowed_special="all")
        assert np.load(tmp_path / "out" / name).tolist() == expected, name


def test_per_shard_never_writes_into_an_existing_folder(tmp_path: Path, gpt2) -> None:
    corpus = make_corpus(tmp_path)
    with pytest.raises(OutputError, match="already exists"):
        list(export_shard_events(open_corpus(corpus), gpt2, corpus, per_shard=True))


@pytest.mark.parametrize("workers", [1, 2])
def test_a_bad_record_leaves_no_file(tmp_path: Path, gpt2, workers: int) -> None:
    corpus = make_corpus(tmp_path)
    (corpus / "f.jsonl").write_bytes(b'{"text": "ok"}\n{"body": "x"}\n')
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(CorpusError, match="f.jsonl: line 2: no 'text' field"):
        list(export_shard_events(open_corpus(corpus), gpt2, tmp_path / "ids.npy", workers=workers))
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    events = list(export_shard_events(open_corpus(corpus), gpt2, tmp_path / "ids.npy", workers=workers,
                                      skip_bad_records=True))
    assert sum(e.skipped.count for e in events if isinstance(e, ShardExported)) == 1
