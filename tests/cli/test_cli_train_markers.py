"""``bpe-tui train`` warns in one line about ``<|name|>`` markers not given with ``--special-token``, then trains."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpe_tui.__main__ import main
from core.formats import load_tokenizer

SPECIAL = "<|endoftext|>"
WARNING = "bpe-tui train: warning: "


def train(corpus: Path, out: Path, capsys: pytest.CaptureFixture[str], *specials: str) -> list[str]:
    args = ["train", str(corpus), "--vocab-size", "300", "--workers", "1", "-o", str(out)]
    for special in specials:
        args += ["--special-token", special]
    assert main(args) == 0
    return capsys.readouterr().err.splitlines()


def test_unlisted_markers_give_one_warning_line_and_training_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "chat.txt"
    corpus.write_text(f"<|im_start|>user hi<|im_end|>{SPECIAL}<|im_start|>bot hello<|im_end|>\n" * 20, encoding="utf-8")
    out = tmp_path / "chat.json"
    lines = train(corpus, out, capsys, SPECIAL)
    warnings = [line for line in lines if line.startswith(WARNING)]
    assert len(warnings) == 1 and lines[0] == warnings[0]
    assert "80 <|…|> markers are not special tokens" in warnings[0]
    assert "<|im_start|> ×40" in warnings[0] and "<|im_end|> ×40" in warnings[0]
    assert "--special-token" in warnings[0] and SPECIAL + " ×" not in warnings[0]
    assert lines[-1].startswith("trained ") and out.is_file()
    assert load_tokenizer(out).special_tokens == [SPECIAL]


def test_no_warning_when_every_marker_is_a_special_token(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "docs.txt"
    corpus.write_text(f"one document{SPECIAL}another <| not a marker |>{SPECIAL}\n" * 20, encoding="utf-8")
    lines = train(corpus, tmp_path / "docs.json", capsys, SPECIAL)
    assert not any(line.startswith(WARNING) or "<|…|>" in line for line in lines)


def test_a_forgotten_separator_is_named(samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = train(samples_dir / "english.txt", tmp_path / "english.json", capsys)
    assert lines[0].startswith(WARNING) and "15 <|…|> markers" in lines[0] and f"{SPECIAL} ×15" in lines[0]
    assert f"--special-token '{SPECIAL}'" in lines[0]
