"""One of a thing is singular wherever a count is shown: "1 special", "1 merge", never "1 specials".

Each case is a real path through the CLI or the app's helpers with a count of exactly one, checked against
the English a person would write.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_tui.__main__ import main
from bpe_tui.widgets.training_form import parse_settings
from core.formats import save_tokenizer
from core.model import BPEModel

BYTES = {i: bytes([i]) for i in range(256)}


def test_inspect_says_one_merge_and_one_special(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = BPEModel(BYTES | {256: b"<|s|>", 257: b"ab"}, [(b"a", b"b")], ["<|s|>"])
    path = tmp_path / "one.json"
    save_tokenizer(model, path, format="bpe-tui")
    assert main(["inspect", str(path), "--no-samples"]) == 0
    assert "vocab size:     258 = 256 bytes + 1 merge + 1 special\n" in capsys.readouterr().out


def test_inspect_says_two_specials(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = BPEModel(BYTES | {256: b"<|s|>", 257: b"<|t|>"}, [], ["<|s|>", "<|t|>"])
    path = tmp_path / "two.json"
    save_tokenizer(model, path, format="bpe-tui")
    assert main(["inspect", str(path), "--no-samples"]) == 0
    assert "= 256 bytes + 0 merges + 2 specials\n" in capsys.readouterr().out


def test_train_says_one_merge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "toy.txt"
    corpus.write_text("low low low lower lower newest", encoding="utf-8")
    code = main(["train", str(corpus), "--vocab-size", "257", "-o", str(tmp_path / "out.json")])
    assert code == 0
    lines = capsys.readouterr().err.splitlines()
    assert "merging: up to 1 merge" in lines
    assert lines[-1].startswith("trained 1 merge (vocab size reached), vocab size 257,")


def test_inspect_lists_a_one_byte_token_as_one_byte(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bytes.json"
    save_tokenizer(BPEModel(BYTES, []), path, format="bpe-tui")
    assert main(["inspect", str(path), "--no-samples", "--longest", "1"]) == 0
    out = capsys.readouterr().out
    assert "     1 byte  " in out and "1 bytes" not in out


def test_export_says_one_token_from_one_byte(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bytes.json"
    save_tokenizer(BPEModel(BYTES, []), path, format="bpe-tui")
    corpus = tmp_path / "a.txt"
    corpus.write_text("a", encoding="utf-8")
    assert main(["export", str(corpus), str(path), "-o", str(tmp_path / "ids.npy"), "--workers", "1"]) == 0
    assert "exported 1 token (uint16) from 1 byte to " in capsys.readouterr().err


def test_the_form_says_one_special() -> None:
    settings, errors = parse_settings("256", "<|endoftext|>", "", "0")
    assert settings is None
    assert errors == ["vocab size: must be at least 257 (256 bytes + 1 special)"]
