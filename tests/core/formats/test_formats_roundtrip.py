"""Every format saved, detected, loaded back and re-encoded identically, for a small and the GPT-2 tokenizer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.core.formats.format_cases import SPECIAL, TEXTS, encoder, gpt2_model, small_model, train_small
from tests.data_paths import GPT2_MERGES, GPT2_VOCAB

from core.formats.byte_alphabet import encode_bytes
from core.fingerprint import fingerprint
from core.formats import FORMATS, detect_format, load_tokenizer, save_tokenizer
from core.formats.gpt2 import merges_path_for, vocab_path_for
from core.model import BPEModel

TARGETS = {"bpe-tui": "tok.json", "gpt2": "gpt2-files", "hf": "tokenizer.json", "tiktoken": "tok.tiktoken"}


def round_trip(model: BPEModel, folder: Path, fmt: str) -> BPEModel:
    written = save_tokenizer(model, folder / TARGETS[fmt], format=fmt)
    assert all(path.is_file() for path in written)
    assert detect_format(written[0]) == fmt
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]
    return load_tokenizer(written[0])


def assert_same_encoding(original: BPEModel, loaded: BPEModel, *, ordinary: bool = False) -> None:
    ours, theirs = encoder(original), encoder(loaded)
    for text in TEXTS:
        ids = ours.encode_ordinary(text) if ordinary else ours.encode(text)
        assert (theirs.encode_ordinary(text) if ordinary else theirs.encode(text)) == ids, text
        assert theirs.decode(ids) == text


@pytest.mark.parametrize("fmt", FORMATS)
def test_small_model_round_trip(tmp_path: Path, fmt: str) -> None:
    model = small_model()
    loaded = round_trip(model, tmp_path, fmt)
    assert loaded.merges == model.merges
    if fmt == "tiktoken":  # rank files hold no special tokens; every other id is kept
        special_ids = {i for i, t in model.vocab.items() if t == SPECIAL.encode()}
        assert loaded.vocab == {i: t for i, t in model.vocab.items() if i not in special_ids}
        assert loaded.special_tokens == []
        assert_same_encoding(model, loaded, ordinary=True)
        return
    assert loaded.vocab == model.vocab
    assert loaded.special_tokens == model.special_tokens
    assert loaded.pattern == model.pattern
    assert fingerprint(loaded) == fingerprint(model)
    assert_same_encoding(model, loaded)


def test_native_keeps_counts_training_and_name(tmp_path: Path) -> None:
    model = small_model()
    loaded = round_trip(model, tmp_path, "bpe-tui")
    assert loaded.merge_counts == model.merge_counts and model.merge_counts is not None
    assert loaded.training == model.training and model.training is not None
    assert loaded.name == model.name
    data = json.loads((tmp_path / "tok.json").read_text(encoding="utf-8"))
    assert data["format"] == "bpe-tui" and data["version"] == 1 and data["fingerprint"] == fingerprint(model)
    assert data["tie_rule"] and data["merges"][0][2] == model.merge_counts[0]


@pytest.mark.parametrize("fmt", ["bpe-tui", "hf"])
def test_custom_pattern_round_trip(tmp_path: Path, fmt: str) -> None:
    model = train_small(pattern=r"\p{L}+|\p{N}+|[^\p{L}\p{N}]+", vocab_size=330)
    loaded = round_trip(model, tmp_path, fmt)
    assert loaded.pattern == model.pattern
    assert_same_encoding(model, loaded)


def test_model_without_merges_or_specials(tmp_path: Path) -> None:
    model = BPEModel({i: bytes([i]) for i in range(256)}, [])
    for fmt in FORMATS:
        loaded = round_trip(model, tmp_path, fmt)
        assert loaded.vocab == model.vocab and loaded.merges == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_gpt2_round_trip(tmp_path: Path, fmt: str) -> None:
    model = gpt2_model()
    loaded = round_trip(model, tmp_path, fmt)
    assert loaded.merges == model.merges
    assert_same_encoding(model, loaded, ordinary=fmt == "tiktoken")


def test_gpt2_reference_files_load_with_their_special_token() -> None:
    model = gpt2_model()
    assert (len(model.vocab), len(model.merges), model.special_tokens) == (50257, 50000, [SPECIAL])
    assert model.vocab[50256] == SPECIAL.encode() and model.name == "gpt2"
    assert detect_format(GPT2_MERGES) == detect_format(GPT2_VOCAB) == "gpt2"
    from_merges = load_tokenizer(GPT2_MERGES)  # finds vocab.json beside it
    assert fingerprint(from_merges) == fingerprint(model)


def test_gpt2_loads_like_from_files() -> None:
    """The loader and ``Tokenizer.from_files`` read vocab.json + merges.txt to the same tokenizer."""
    from core.encode.tokenizer import Tokenizer

    theirs = Tokenizer.from_files(GPT2_VOCAB, GPT2_MERGES, [SPECIAL])
    ours = encoder(gpt2_model())
    for text in TEXTS:
        assert ours.encode(text) == theirs.encode(text), text


def test_cs336_reference_vocab_puts_special_first(shared_data: Path, tmp_path: Path) -> None:
    folder = shared_data / "cs336"
    model = load_tokenizer(folder / "train-bpe-reference-vocab.json",
                           merges_path=folder / "train-bpe-reference-merges.txt")
    assert model.special_tokens == [SPECIAL] and model.vocab[0] == SPECIAL.encode()
    assert len(model.merges) == len(model.vocab) - 257
    assert_same_encoding(model, round_trip(model, tmp_path, "hf"))


def test_merges_version_line_and_explicit_merges_path(tmp_path: Path) -> None:
    model = small_model()
    vocab, merges = save_tokenizer(model, tmp_path / "mine-vocab.json", format="gpt2")
    assert merges.name == "mine-merges.txt" == merges_path_for(vocab).name
    assert vocab_path_for(merges) == vocab
    assert merges.read_text(encoding="utf-8").startswith("#version: 0.2\n")
    moved = tmp_path / "elsewhere.txt"
    merges.rename(moved)
    assert load_tokenizer(vocab, merges_path=moved).merges == model.merges
    # Without the version line, and with a blank line at the end, the file means the same.
    moved.write_text(moved.read_text(encoding="utf-8").split("\n", 1)[1] + "\n", encoding="utf-8")
    assert load_tokenizer(vocab, merges_path=moved).merges == model.merges


def test_hf_reads_both_merge_spellings(tmp_path: Path) -> None:
    model = small_model()
    path = save_tokenizer(model, tmp_path / "tokenizer.json", format="hf")[0]
    data = json.loads(path.read_text(encoding="utf-8"))
    assert all(isinstance(m, str) for m in data["model"]["merges"])
    data["model"]["merges"] = [m.split(" ") for m in data["model"]["merges"]]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_tokenizer(path).merges == model.merges


def test_hf_plain_bytelevel_means_gpt2_pattern(tmp_path: Path) -> None:
    model = small_model()
    path = save_tokenizer(model, tmp_path / "tokenizer.json", format="hf")[0]
    data = json.loads(path.read_text(encoding="utf-8"))
    data["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    path.write_text(json.dumps(data), encoding="utf-8")
    assert fingerprint(load_tokenizer(path)) == fingerprint(model)


def test_directory_stands_for_the_file_inside(tmp_path: Path) -> None:
    model = small_model()
    save_tokenizer(model, tmp_path / "gpt2", format="gpt2")
    assert fingerprint(load_tokenizer(tmp_path / "gpt2")) == fingerprint(model)
    (tmp_path / "hf").mkdir()
    assert save_tokenizer(model, tmp_path / "hf", format="hf") == [tmp_path / "hf" / "tokenizer.json"]
    assert load_tokenizer(tmp_path / "hf").name == "hf"


def test_vocab_json_tokens_named_like_format_keys(tmp_path: Path) -> None:
    """GPT-2's vocab has tokens spelled "format" and "model"; detection must not take it for another format."""
    merges = [(word[:length], word[length]) for word in ("format", "model") for length in range(1, len(word))]
    made = ["".join(pair) for pair in merges]
    vocab = {encode_bytes(bytes([b])): b for b in range(256)} | {token: 256 + i for i, token in enumerate(made)}
    (tmp_path / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    lines = ["#version: 0.2", *(f"{left} {right}" for left, right in merges)]
    (tmp_path / "merges.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert detect_format(tmp_path / "vocab.json") == "gpt2"
    model = load_tokenizer(tmp_path / "vocab.json")
    assert {b"format", b"model"} <= set(model.vocab.values()) and model.special_tokens == []
