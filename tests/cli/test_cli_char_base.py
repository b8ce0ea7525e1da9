"""``train --base chars``, ``study --base chars`` and ``convert`` of a character-base tokenizer, headless."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bpe_tui.__main__ import main
from core import reference
from core.formats import load_tokenizer
from tests.cli.cli_cases import assert_one_line_error


def cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([*map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_train_base_chars_equals_the_reference_and_records_the_base(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = samples_dir / "japanese.txt"
    out = tmp_path / "ja.json"
    events = tmp_path / "ja.jsonl"
    code, _, err = cli(capsys, "train", corpus, "--vocab-size", "1200", "--base", "chars", "--min-char-count", "2",
                       "--workers", "1", "-o", out, "--events", events)
    assert code == 0, err
    assert json.loads(out.read_text(encoding="utf-8"))["base"] == "chars"
    # The events file's start record holds the settings (the README's word), those the merges depend on among them.
    start = json.loads(events.read_text(encoding="utf-8").splitlines()[0])
    assert (start["base"], start["min_char_count"], start["min_count"]) == ("chars", 2, 1)
    model = load_tokenizer(out)
    vocab, merges = reference.train(corpus.read_text(encoding="utf-8"), 1200, base="chars", min_char_count=2)
    assert (model.vocab, model.merges) == (vocab, merges)
    code, out_text, _ = cli(capsys, "inspect", out)
    assert code == 0 and "base:           characters (byte fallback for the rest)" in out_text
    assert "vocab_size=1200, min_frequency=0, min_char_count=2" in out_text
    assert model.training is not None and model.training.min_char_count == 2


@pytest.mark.parametrize(("args", "needles"), [
    (["--min-char-count", "2"], ["--min-char-count applies to the character base only", "--base chars"]),
    (["--base", "chars", "--min-char-count", "0"], ["min char count 0 must be a whole number >= 1"]),
    (["--base", "words"], ["invalid choice: 'words'"]),
    (["--base", "chars", "--min-char-count", "two"], ["--min-char-count: invalid int value: 'two'"]),
])
def test_train_flag_errors(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], needles: list[str]
) -> None:
    out = tmp_path / "out.json"
    result = cli(capsys, "train", samples_dir / "toy.txt", "--vocab-size", "300", *args, "-o", out)
    assert_one_line_error(result, *needles)
    assert not out.exists()


def test_convert_refuses_byte_level_formats_and_writes_hf(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "ja.json"
    assert cli(capsys, "train", samples_dir / "japanese.txt", "--vocab-size", "1200", "--base", "chars",
               "--workers", "1", "-o", model)[0] == 0
    assert_one_line_error(cli(capsys, "convert", model, tmp_path / "g", "--to", "gpt2"), "character base", "hf")
    assert_one_line_error(cli(capsys, "convert", model, tmp_path / "t.tiktoken", "--to", "tiktoken"), "character base")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ja.json"]
    code, _, err = cli(capsys, "convert", model, tmp_path / "tokenizer.json", "--to", "hf")
    assert code == 0, err
    assert load_tokenizer(tmp_path / "tokenizer.json").base == "chars"


def test_study_compares_bytes_and_characters_on_japanese(
    samples_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = samples_dir / "japanese.txt"
    results = {}
    for base in ("bytes", "chars"):
        code, out, err = cli(capsys, "study", corpus, "--sizes", "300,1500", "--base", base, "--workers", "1", "--json")
        assert code == 0, err
        results[base] = json.loads(out)
    # Every character of the corpus is in the character base's alphabet, so no Japanese token is a bare byte;
    # byte-level BPE at 1,500 still leaves some characters in pieces.
    chars_1500 = [s for s in results["chars"]["sizes"] if s["vocab"] == 1500][0]
    bytes_1500 = [s for s in results["bytes"]["sizes"] if s["vocab"] == 1500][0]
    alphabet = len(reference.char_alphabet(corpus.read_text(encoding="utf-8")))
    assert 300 < 256 + alphabet and results["chars"]["unreached"] == [300]  # the alphabet alone is larger
    assert chars_1500["japanese_bare_bytes"] == 0.0 and bytes_1500["japanese_bare_bytes"] > 0.0
    # Per size, the tokens equal those of a character-base tokenizer trained to exactly that size.
    vocab, merges = reference.train(corpus.read_text(encoding="utf-8"), 1500, base="chars")
    japanese = corpus.read_text(encoding="utf-8")
    assert chars_1500["tokens"]["japanese"] == len(reference.encode(japanese, vocab, merges, base="chars"))
    assert set(chars_1500) == set(bytes_1500)


def test_study_flag_errors(samples_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = cli(capsys, "study", samples_dir / "toy.txt", "--sizes", "300", "--min-char-count", "2")
    assert_one_line_error(result, "--min-char-count applies to the character base only")
