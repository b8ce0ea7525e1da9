"""A character-base tokenizer in files: bpe-tui JSON records the base, Hugging Face ``tokenizer.json`` holds it
as character-level BPE with byte fallback (checked against ``tokenizers`` itself), and the formats that
describe byte-level BPE only refuse it."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from core.encode.tokenizer import Tokenizer
from core.errors import SettingsError, TokenizerFileError
from core.fingerprint import fingerprint
from core.formats import load_tokenizer, save_tokenizer
from core.model import BPEModel
from core.train.events import TrainingFinished
from core.train.run import TrainingRun
from tests.core.formats.format_cases import SPECIAL, TRAINING_TEXT

HELD_OUT = "未知の文字: 鬱 🦜, ünïcödé, tabs\tand  spaces" + SPECIAL + "猫が好きです。" + "x" * 70
"""Text with characters the training text never had (so byte fallback), a special token and a long piece."""


@functools.cache
def char_model(min_char_count: int = 1) -> BPEModel:
    run = TrainingRun.from_text(TRAINING_TEXT, 256 + 1 + 300, [SPECIAL], base="chars", min_char_count=min_char_count, workers=1)
    return [e for e in run.events() if isinstance(e, TrainingFinished)][-1].model


@pytest.mark.parametrize("min_char_count", [1, 3])
def test_bpe_tui_json_records_the_base(tmp_path: Path, min_char_count: int) -> None:
    model = char_model(min_char_count)
    [path] = save_tokenizer(model, tmp_path / "chars.json", format="bpe-tui")
    assert json.loads(path.read_text(encoding="utf-8"))["base"] == "chars"
    loaded = load_tokenizer(path)
    assert loaded.base == "chars" and loaded.fingerprint_verified
    assert (loaded.vocab, loaded.merges, loaded.merge_counts) == (model.vocab, model.merges, model.merge_counts)
    assert Tokenizer.from_model(loaded).encode(HELD_OUT, allowed_special="all") == Tokenizer.from_model(model).encode(
        HELD_OUT, allowed_special="all"
    )


def test_byte_base_files_stay_as_they_were(tmp_path: Path) -> None:
    run = TrainingRun.from_text(TRAINING_TEXT, 300, [SPECIAL], workers=1)
    model = [e for e in run.events() if isinstance(e, TrainingFinished)][-1].model
    [path] = save_tokenizer(model, tmp_path / "bytes.json", format="bpe-tui")
    assert "base" not in json.loads(path.read_text(encoding="utf-8"))
    assert load_tokenizer(path).base == "bytes"


def test_the_base_is_part_of_the_fingerprint(tmp_path: Path) -> None:
    model = char_model()
    [path] = save_tokenizer(model, tmp_path / "chars.json", format="bpe-tui")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["base"] = "bytes"  # the alphabet's characters are then tokens no merge makes
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="neither bytes, merges nor special tokens"):
        load_tokenizer(path)
    del data["base"], data["fingerprint"]
    data["vocab"] = {k: v for k, v in data["vocab"].items() if int(k) < 257}
    data["merges"] = []
    path.write_text(json.dumps(data), encoding="utf-8")
    as_bytes = load_tokenizer(path)
    assert fingerprint(as_bytes) != fingerprint(BPEModel(as_bytes.vocab, [], as_bytes.special_tokens, base="chars"))


def test_unknown_base_is_refused(tmp_path: Path) -> None:
    [path] = save_tokenizer(char_model(), tmp_path / "chars.json", format="bpe-tui")
    path.write_text(path.read_text(encoding="utf-8").replace('"base": "chars"', '"base": "words"'), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="'base' must be one of 'bytes', 'chars', got 'words'"):
        load_tokenizer(path)


@pytest.mark.parametrize("min_char_count", [1, 3])
def test_hugging_face_round_trip_and_hugging_face_encodes_the_same_ids(tmp_path: Path, min_char_count: int) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    model = char_model(min_char_count)
    [path] = save_tokenizer(model, tmp_path / "tokenizer.json", format="hf")
    back = load_tokenizer(path)
    assert (back.base, back.vocab, back.merges, back.special_tokens) == ("chars", model.vocab, model.merges, [SPECIAL])
    assert fingerprint(back) == fingerprint(model)
    ours = Tokenizer.from_model(model)
    theirs = tokenizers.Tokenizer.from_file(str(path))
    for text in (HELD_OUT, TRAINING_TEXT):
        ids = ours.encode(text, allowed_special="all")
        assert theirs.encode(text).ids == ids
        assert theirs.decode(ids, skip_special_tokens=False) == text
    # Rare and unseen characters really went through byte fallback on both sides.
    assert any(i < 256 and i >= 0x80 for i in ours.encode(HELD_OUT))


def test_hugging_face_character_level_without_byte_fallback_is_refused(tmp_path: Path) -> None:
    [path] = save_tokenizer(char_model(), tmp_path / "tokenizer.json", format="hf")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["model"]["byte_fallback"] = False
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="without byte_fallback"):
        load_tokenizer(path)


@pytest.mark.parametrize(("fmt", "target", "needle"), [
    ("gpt2", "gpt2", "cannot save .* as GPT-2 files: they describe byte-level BPE"),
    ("tiktoken", "tok.tiktoken", "cannot save .* as a tiktoken rank file: tiktoken merges from bytes"),
])
def test_byte_level_formats_refuse_a_character_base(tmp_path: Path, fmt: str, target: str, needle: str) -> None:
    with pytest.raises(SettingsError, match=needle):
        save_tokenizer(char_model(), tmp_path / target, format=fmt)
    assert list(tmp_path.iterdir()) == []
