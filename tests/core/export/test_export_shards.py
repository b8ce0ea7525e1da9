"""Export of a corpus of shards: the ids of its documents joined by the special token, as tiktoken encodes
the same documents joined in one text, for every worker count; one array a shard with ``per_shard``; every
array with a sidecar whose corpus fields are the shards' as ``hashlib`` and ``os`` see them, and that
``verify_ids`` accepts with the corpus."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest
import tiktoken

from core.output_errors import OutputError
from core.corpus import open_corpus
from core.errors import CorpusError
from core.export.run import ExportFinished, ExportSaving
from core.export.shards import ShardExported, export_shard_events
from core.export.sidecar import sidecar_path
from core.export.verify import IdsMismatch, verify_ids
from core.fingerprint import fingerprint
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


SHARD_NAMES = ["a.jsonl.gz", "b.jsonl", "c/d.parquet", "e.txt.zst"]
"""The shards, in corpus order (paths sorted)."""


def make_corpus(folder: Path) -> Path:
    for name, share in zip(SHARD_NAMES, shares()):
        write_shard(folder / "corpus", name, share)
    return folder / "corpus"


def check_sidecar(ids: Path, model, corpus_path: str, files: list[Path], tokens: int) -> None:
    """The sidecar beside ``ids`` names ``model`` and ``tokens``, and ``files``' total size and the SHA-256
    of their bytes one after another (what ``cat FILES | sha256sum`` prints)."""
    side = json.loads(sidecar_path(ids).read_text(encoding="utf-8"))
    data = b"".join(path.read_bytes() for path in files)
    assert side["fingerprint"] == fingerprint(model) and side["tokens"] == tokens
    assert side["corpus_path"] == corpus_path
    assert side["corpus_bytes"] == sum(os.path.getsize(path) for path in files) == len(data)
    assert side["corpus_sha256"] == hashlib.sha256(data).hexdigest()


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
    # no part file left; the sidecar beside the array
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus", "ids.npy", "ids.npy.json"]
    check_sidecar(tmp_path / "ids.npy", gpt2, str(corpus), [corpus / name for name in SHARD_NAMES], len(expected))
    kinds = [type(e) for e in events[-2:]]
    assert kinds == [ExportSaving, ExportFinished] and events[-2].sidecar == tmp_path / "ids.npy.json"
    assert events[-1].sidecar.corpus_sha256 == json.loads((tmp_path / "ids.npy.json").read_text())["corpus_sha256"]
    verified = verify_ids(tmp_path / "ids.npy", gpt2, corpus=corpus)
    assert verified.corpus_of_shards and verified.ids.length == len(expected)


def test_a_glob_corpus_records_its_pattern_and_verifies(tmp_path: Path, gpt2) -> None:
    corpus = make_corpus(tmp_path)
    pattern = str(corpus / "*.jsonl*")
    list(export_shard_events(open_corpus(pattern), gpt2, tmp_path / "ids.npy"))
    check_sidecar(tmp_path / "ids.npy", gpt2, pattern, [corpus / "a.jsonl.gz", corpus / "b.jsonl"],
                  len(np.load(tmp_path / "ids.npy")))
    assert verify_ids(tmp_path / "ids.npy", gpt2, corpus=pattern).corpus_of_shards
    with pytest.raises(IdsMismatch, match=r"gives only the first .* bytes of .*corpus's documents joined by"):
        verify_ids(tmp_path / "ids.npy", gpt2, corpus=corpus)  # the whole folder has more documents


def test_verify_finds_an_edited_document_and_edited_shards(tmp_path: Path, gpt2) -> None:
    corpus = make_corpus(tmp_path)
    list(export_shard_events(open_corpus(corpus), gpt2, tmp_path / "ids.npy"))
    documents = shares()[0]
    edited = [documents[0].replace("e", "E", 1)] + documents[1:]
    write_shard(corpus, "a.jsonl.gz", edited)
    at = len(documents[0].encode()) - len(documents[0].split("e", 1)[1].encode()) - 1
    with pytest.raises(IdsMismatch, match=rf"does not give .*corpus's documents joined by '<\|endoftext\|>' back: "
                                          rf"they differ from byte {at:,} on"):
        verify_ids(tmp_path / "ids.npy", gpt2, corpus=corpus)
    # The same documents, compressed otherwise: decoding matches, the shards' digest does not.
    (corpus / "a.jsonl.gz").unlink()
    write_shard(corpus, "a.jsonl.bz2", documents)
    with pytest.raises(IdsMismatch, match=r"sidecar records another size or SHA-256 for the shards"):
        verify_ids(tmp_path / "ids.npy", gpt2, corpus=corpus)


@pytest.mark.parametrize("workers", [1, 2])
def test_per_shard_arrays(tmp_path: Path, gpt2, reference_encoding, workers: int) -> None:
    corpus = make_corpus(tmp_path)
    events = list(export_shard_events(open_corpus(corpus), gpt2, tmp_path / "out", workers=workers, per_shard=True))
    names = sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*") if p.is_file())
    arrays = ["a.jsonl.npy", "b.jsonl.npy", "c/d.parquet.npy", "e.txt.npy"]
    assert names == sorted(arrays + [name + ".json" for name in arrays])
    for name, shard, share in zip(arrays, SHARD_NAMES, shares()):
        expected = reference_encoding.encode(joined_text(share), allowed_special="all")
        assert np.load(tmp_path / "out" / name).tolist() == expected, name
        check_sidecar(tmp_path / "out" / name, gpt2, str(corpus / shard), [corpus / shard], len(expected))
        assert verify_ids(tmp_path / "out" / name, gpt2, corpus=corpus / shard).ids.length == len(expected)
    assert not any(isinstance(e, ExportSaving) for e in events)  # the folder's one rename saves them all
    total = events[-1].sidecar
    assert total.tokens == events[-1].tokens and total.corpus_path == str(corpus)
    assert total.corpus_sha256 == hashlib.sha256(b"".join((corpus / n).read_bytes() for n in SHARD_NAMES)).hexdigest()
    with pytest.raises(IdsMismatch, match="does not give .*d.parquet's documents joined by .* back"):
        verify_ids(tmp_path / "out" / "a.jsonl.npy", gpt2, corpus=corpus / "c" / "d.parquet")


def test_per_shard_never_writes_into_an_existing_folder(tmp_path: Path, gpt2) -> None:
    corpus = make_corpus(tmp_path)
    with pytest.raises(OutputError, match="already exists"):
        list(export_shard_events(open_corpus(corpus), gpt2, corpus, per_shard=True))


def test_per_shard_refuses_two_shards_that_would_share_an_array(tmp_path: Path, gpt2) -> None:
    """``a.jsonl`` and ``a.jsonl.gz`` both became ``a.jsonl.npy``: one array (and sidecar) replaced the other,
    and the command exited 0."""
    corpus = tmp_path / "corpus"
    write_shard(corpus, "a.jsonl", ["one document"])
    write_shard(corpus, "a.jsonl.gz", ["another document"])
    with pytest.raises(OutputError, match=r"--per-shard: shards .*a\.jsonl and .*a\.jsonl\.gz would both be saved "
                                          r"as a\.jsonl\.npy; rename or move one of them"):
        list(export_shard_events(open_corpus(corpus), gpt2, tmp_path / "out", per_shard=True))
    assert sorted(os.listdir(tmp_path)) == ["corpus"]


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


def test_a_url_corpus_keeps_its_url_and_verifies_by_url(tmp_path: Path, gpt2) -> None:
    pytest.importorskip("fsspec", reason="a corpus URL is read through fsspec (the formats extra)")
    corpus = make_corpus(tmp_path)
    url = f"file://{corpus}"
    list(export_shard_events(open_corpus(url), gpt2, tmp_path / "ids.npy", workers=2))
    check_sidecar(tmp_path / "ids.npy", gpt2, url, [corpus / name for name in SHARD_NAMES],
                  len(np.load(tmp_path / "ids.npy")))
    assert verify_ids(tmp_path / "ids.npy", gpt2, corpus=url).corpus_of_shards
    list(export_shard_events(open_corpus(url), gpt2, tmp_path / "per", per_shard=True))
    side = json.loads((tmp_path / "per" / "c" / "d.parquet.npy.json").read_text(encoding="utf-8"))
    assert side["corpus_path"] == f"{url}/c/d.parquet"
    assert verify_ids(tmp_path / "per" / "c" / "d.parquet.npy", gpt2, corpus=f"{url}/c/d.parquet").ids.length > 0


@pytest.mark.parametrize("per_shard", [False, True])
def test_closing_early_leaves_neither_array_nor_sidecar(tmp_path: Path, gpt2, per_shard: bool) -> None:
    import threading

    corpus = make_corpus(tmp_path)
    events = export_shard_events(open_corpus(corpus), gpt2, tmp_path / "out", workers=2, per_shard=per_shard)
    assert isinstance(next(e for e in events if isinstance(e, ShardExported)), ShardExported)
    events.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus"]
    assert not any(thread.name == "corpus-sha256" for thread in threading.enumerate())  # the digest stopped
