"""Strings that come from files never reach the terminal raw: no escape sequence, no fake line of output.

``inspect`` printed a tokenizer's name (taken from its file name) and its training corpus path as they
were, so escape sequences in them could clear the screen, set the window title or print lines that look
like the tool's own. Names like that are valid UTF-8, so they pass every other check; every command
shows them escaped.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from tests.hostile.hostile_cases import run_here, small_tokenizer

NASTY = {
    "clear screen": "\x1b[2J\x1b[H",
    "window title": "\x1b]0;owned\x07",
    "fake line": "x\nbpe-tui train: error: fake\n",
    "carriage return": "ok\rbpe-tui: fine",
    "right-to-left override": "txt.\u202eexe",
    "C1 control": "\u009b31m",
}


def _raw_controls(text: str) -> list[str]:
    """Characters that would act on a terminal (controls and format characters), newlines aside."""
    return [ch for ch in text if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf")]


@pytest.mark.parametrize("what", list(NASTY))
def test_a_hostile_corpus_name_is_escaped_everywhere_it_is_shown(
    what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / f"corpus{NASTY[what]}.txt"
    corpus.write_text("low lower lowest newer newest\n" * 20)
    tok = tmp_path / f"tok{NASTY[what]}.json"
    shown: list[str] = []

    code, out, err = run_here(capsys, "train", corpus, "--vocab-size", "270", "-o", tok)
    assert code == 0, err
    shown += [out, err]
    code, out, err = run_here(capsys, "inspect", tok, "--no-samples")  # name and "trained on" come from the file
    assert code == 0, err
    assert len(out.splitlines()) == 10 + 1 + 10  # the file and nine fields, the heading, ten tokens: no more
    shown += [out, err]
    code, out, err = run_here(capsys, "convert", tok, tmp_path / f"gpt2{NASTY[what]}", "--to", "gpt2")
    assert code == 0, err
    shown += [out, err]
    code, out, err = run_here(capsys, "export", corpus, tok, "-o", tmp_path / f"ids{NASTY[what]}.npy")
    assert code == 0, err
    shown += [out, err]
    for bad in (tmp_path / f"missing{NASTY[what]}.txt",):
        code, out, err = run_here(capsys, "encode", small_tokenizer(tmp_path), bad)
        assert code == 2 and len(err.splitlines()) == 1
        shown += [out, err]
    for text in shown:
        assert _raw_controls(text) == [], text


def test_the_inspect_lines_show_the_escapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "c\x1b[2J.txt"
    corpus.write_text("ab ab ab\n")
    tok = tmp_path / "t\x1b]0;x\x07.json"
    assert run_here(capsys, "train", corpus, "--vocab-size", "258", "-o", tok)[0] == 0
    code, out, err = run_here(capsys, "inspect", tok, "--no-samples", "--longest", "0")
    assert code == 0, err
    lines = out.splitlines()
    assert "file:           " + str(tmp_path) + "/t\\x1b]0;x\\x07.json" in lines
    assert "name:           c\\x1b[2J-258" in lines  # the name is stored in the file, made from the corpus name
    assert any(line.startswith("trained on:     ") and "c\\x1b[2J.txt" in line for line in lines)


@pytest.mark.parametrize("what", list(NASTY))
def test_a_hostile_eval_file_name_is_escaped_in_the_study_table(
    what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # study named each --eval text by its file's stem and printed it as a column heading as it was.
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest newer newest\n" * 20)
    extra = tmp_path / f"eval{NASTY[what]}.txt"
    extra.write_text("newest lowest\n")
    code, out, err = run_here(capsys, "study", corpus, "--sizes", "257", "--windows", "8", "--eval", extra)
    assert code == 0, err
    assert _raw_controls(out + err) == [], out
    assert len(out.splitlines()) == 3 + 3 + 4  # headings and one size; the coverage heading and four texts
