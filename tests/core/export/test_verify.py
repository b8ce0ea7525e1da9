"""``verify_ids``: an array, its sidecar and a tokenizer that belong together pass; every kind of mismatch is refused."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest
from tests.cli.cli_cases import TEXT, small_model

from core.export.run import export_corpus, npy_header, write_ids
from core.export.sidecar import IdsSidecar, SidecarError, sidecar_path
from core.export.verify import IdsMismatch, verify_ids
from core.formats import load_tokenizer
from core.model import BPEModel

ROOT = Path(__file__).resolve().parents[3]
GPT2 = ROOT / "samples" / "gpt2" / "vocab.json"


@pytest.fixture
def exported(tmp_path: Path) -> tuple[Path, Path]:
    """(ids.npy, corpus.txt): the small tokenizer's export of a short corpus."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT * 3, encoding="utf-8", newline="")
    export_corpus(corpus, small_model(), tmp_path / "ids.npy")
    return tmp_path / "ids.npy", corpus


def without_last_merge(model: BPEModel) -> BPEModel:
    """The same tokenizer with its last merge (and the token it made) removed."""
    left, right = model.merges[-1]
    vocab = {token_id: token for token_id, token in model.vocab.items() if token != left + right}
    assert len(vocab) == len(model.vocab) - 1
    return dataclasses.replace(model, vocab=vocab, merges=model.merges[:-1], merge_counts=None)


def _edit(ids: Path, **changes: object) -> None:
    path = sidecar_path(ids)
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw.update(changes)
    path.write_text(json.dumps(raw), encoding="utf-8")


def test_ids_their_sidecar_their_tokenizer_and_their_corpus_pass(exported: tuple[Path, Path]) -> None:
    ids, corpus = exported
    verified = verify_ids(ids, small_model(), corpus=corpus)
    assert verified.corpus_checked and verified.ids.length == len(np.load(ids)) == verified.sidecar.tokens
    # The same tokenizer from another file format is the same tokenizer.
    from core.formats import save_tokenizer

    hf = save_tokenizer(small_model(), ids.parent / "tokenizer.json", format="hf")[0]
    assert verify_ids(ids, load_tokenizer(hf)).sidecar.fingerprint == verified.sidecar.fingerprint


def test_another_tokenizer_is_refused(exported: tuple[Path, Path]) -> None:
    ids, _ = exported
    gpt2 = load_tokenizer(GPT2)
    with pytest.raises(IdsMismatch, match=r"ids\.npy was made by another tokenizer: its sidecar names 'text-330'"):
        verify_ids(ids, gpt2)


def test_the_same_tokenizer_with_one_merge_removed_is_refused(exported: tuple[Path, Path]) -> None:
    ids, corpus = exported
    with pytest.raises(IdsMismatch, match="was made by another tokenizer"):
        verify_ids(ids, without_last_merge(small_model()), corpus=corpus)


def test_a_truncated_array_is_refused(exported: tuple[Path, Path]) -> None:
    ids, _ = exported
    data = ids.read_bytes()
    length = (len(data) - 128) // 2
    ids.write_bytes(data[:-10])  # the header still says the full length
    with pytest.raises(IdsMismatch, match=re.escape(f"is cut short: its header says {length:,} ids but it holds {length - 5:,}")):
        verify_ids(ids, small_model())
    np.save(ids, np.frombuffer(data[128:], dtype="<u2")[:-5])  # a whole array, five ids short
    with pytest.raises(IdsMismatch, match=re.escape(f"holds {length - 5:,} ids but ") + r".*ids\.npy\.json says " + re.escape(f"{length:,}")):
        verify_ids(ids, small_model())


def test_an_array_of_another_dtype_is_refused(exported: tuple[Path, Path]) -> None:
    ids, _ = exported
    np.save(ids, np.load(ids).astype("<u4"))
    with pytest.raises(IdsMismatch, match=r"holds uint32 ids but .*ids\.npy\.json says uint16"):
        verify_ids(ids, small_model())


@pytest.mark.parametrize(("changes", "message"), [
    ({"fingerprint": "0" * 64}, r"was made by another tokenizer"),
    ({"vocab_size": 331}, r"ids\.npy\.json was edited: it has the fingerprint of text-330 \(fingerprint \w{12}\) but says vocab size 331"),
    ({"special_tokens": []}, r"ids\.npy\.json was edited: it has the fingerprint of text-330 .* lists special tokens \[\]"),
    ({"tokens": 7}, r"ids but .*ids\.npy\.json says 7 "),
    ({"dtype": "uint32"}, r"holds uint16 ids but .*ids\.npy\.json says uint32"),
])
def test_an_edited_sidecar_is_refused(exported: tuple[Path, Path], changes: dict[str, object], message: str) -> None:
    ids, _ = exported
    _edit(ids, **changes)
    with pytest.raises(IdsMismatch, match=message):
        verify_ids(ids, small_model())


def test_an_edited_corpus_checksum_is_found_with_the_corpus(exported: tuple[Path, Path]) -> None:
    ids, corpus = exported
    _edit(ids, corpus_sha256="f" * 64)
    verify_ids(ids, small_model())  # nothing without the corpus can tell
    with pytest.raises(IdsMismatch, match=r"was edited: decoding .*ids\.npy gives .*corpus\.txt back, but the sidecar"):
        verify_ids(ids, small_model(), corpus=corpus)


def test_a_missing_or_garbage_sidecar_is_named(exported: tuple[Path, Path]) -> None:
    ids, _ = exported
    sidecar_path(ids).write_text("not json", encoding="utf-8")
    with pytest.raises(SidecarError, match="ids.npy.json is not JSON"):
        verify_ids(ids, small_model())
    sidecar_path(ids).unlink()
    with pytest.raises(SidecarError, match="has no sidecar"):
        verify_ids(ids, small_model())


def test_another_corpus_differs_at_its_first_differing_byte(exported: tuple[Path, Path]) -> None:
    ids, corpus = exported
    text = corpus.read_bytes()
    corpus.write_bytes(text[:1000] + b"#" + text[1001:])
    with pytest.raises(IdsMismatch, match="differ from byte 1,000 on"):
        verify_ids(ids, small_model(), corpus=corpus)
    corpus.write_bytes(text + b"more")
    with pytest.raises(IdsMismatch, match=f"gives only the first {len(text):,} bytes of"):
        verify_ids(ids, small_model(), corpus=corpus)


def test_an_id_outside_the_vocabulary_is_named_with_its_position(tmp_path: Path) -> None:
    model = small_model()
    corpus = tmp_path / "c.txt"
    corpus.write_bytes(b"x")
    side = IdsSidecar.describe(model, dtype="uint16", tokens=3, corpus=corpus, corpus_bytes=1, corpus_sha256="0" * 64)
    with write_ids(tmp_path / "ids.npy") as ids:
        ids.handle.write(npy_header("uint16", 3) + np.array([5, 330, 7], dtype="<u2").tobytes())
        ids.describe(side)
    with pytest.raises(IdsMismatch, match=r"id 330 at position 1 is not in the vocabulary \(vocab size 330\)"):
        verify_ids(tmp_path / "ids.npy", model)


DECOMPOSED = "cafe\u0301 か\u3099っこう<|endoftext|>\u0301re\u0301sume\u0301\n"
"""Text typed decomposed (as macOS writes names), which a normalizing tokenizer (Qwen2's NFC) encodes composed."""


def test_ids_of_a_normalizing_tokenizer_verify_against_their_corpus(tmp_path: Path) -> None:
    """Decoding gives the corpus in NFC back, not byte for byte: verify said it was not the corpus they came from."""
    model = dataclasses.replace(small_model(), normalizer="NFC")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(DECOMPOSED * 50, encoding="utf-8", newline="")
    export_corpus(corpus, model, tmp_path / "ids.npy")
    assert verify_ids(tmp_path / "ids.npy", model, corpus=corpus).corpus_checked
    corpus.write_text(DECOMPOSED * 49 + DECOMPOSED.replace("sume", "sumo"), encoding="utf-8", newline="")
    with pytest.raises(IdsMismatch, match=r"corpus.txt \(in NFC, as encoding reads it\) back: they differ from byte"):
        verify_ids(tmp_path / "ids.npy", model, corpus=corpus)


def test_ids_of_a_normalizing_tokenizer_verify_against_their_shards(tmp_path: Path) -> None:
    from core.corpus import open_corpus
    from core.export.shards import export_shard_events
    from tests.core.corpus.corpus_cases import write_shard

    model = dataclasses.replace(small_model(), normalizer="NFC")
    (tmp_path / "corpus").mkdir()
    write_shard(tmp_path / "corpus", "a.jsonl", [DECOMPOSED, "e\u0301" * 3])
    write_shard(tmp_path / "corpus", "b.txt", [DECOMPOSED * 3])
    list(export_shard_events(open_corpus(tmp_path / "corpus"), model, tmp_path / "ids.npy"))
    assert verify_ids(tmp_path / "ids.npy", model, corpus=tmp_path / "corpus").corpus_of_shards
