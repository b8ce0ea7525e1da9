"""``bpe-tui lens``: the list, one-line errors for unknown lenses and foreign or bad flags, text and JSON output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.cli_cases import assert_one_line_error, small_model, tokenizer_file

from bpe_tui.__main__ import main
from bpe_tui.lenses.registry import LENSES
from tests.core.encode.tokenizer_cases import tiktoken_gpt2


def lens(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["lens", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("args", [(), ("--list",)])
def test_lens_alone_or_list_names_every_lens(capsys: pytest.CaptureFixture[str], args: tuple[str, ...]) -> None:
    code, out, err = lens(capsys, *args)
    assert (code, err) == (0, "")
    names = [line.split()[0] for line in out.splitlines()]
    assert names == [spec.name for spec in LENSES]
    assert "--merges" in out.splitlines()[0]


def test_an_unknown_lens_is_one_line_listing_the_lenses(capsys: pytest.CaptureFixture[str]) -> None:
    line = assert_one_line_error(lens(capsys, "kaleidoscope"), "kaleidoscope", "slider", "fragments")
    assert line.startswith("bpe-tui lens: error:")


def test_a_flag_of_another_lens_is_refused_naming_this_lenss_flags(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert_one_line_error(lens(capsys, "fragments", tokenizer_file(tmp_path), "--merges", "3"),
                          "fragments lens takes no --merges", "--text")


@pytest.mark.parametrize("value, needle", [("-1", "outside 0.."), ("abc", "'abc' is not a whole number")])
def test_bad_merges_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path, value: str, needle: str) -> None:
    assert_one_line_error(lens(capsys, "slider", tokenizer_file(tmp_path), f"--merges={value}"), needle)


def test_a_missing_tokenizer_file_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert_one_line_error(lens(capsys, "slider", tmp_path / "absent.json"), "absent.json")


def test_slider_json_on_the_default_tokenizer_is_gpt2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = lens(capsys, "slider", "--text", "Hello world", "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["merges"] == 50_000
    assert data["ids"] == tiktoken_gpt2().encode("Hello world")
    assert data["tokens"] == ["Hello", " world"]


def test_slider_text_on_a_tokenizer_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    model = small_model()
    code, out, err = lens(capsys, "slider", tokenizer_file(tmp_path), "--text", "The cat", "--merges", "0")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"after 0 of {len(model.merges)} merges: 7 tokens (7 bytes)"
    assert lines[1] == '"T" "h" "e" " " "c" "a" "t"'
    assert lines[2] == "[84, 104, 101, 32, 99, 97, 116]"


def test_fragments_json_shape(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = lens(capsys, "fragments", tokenizer_file(tmp_path), "--text", "a  b", "--json")
    assert code == 0
    data = json.loads(out)
    assert [(f["text"], f["bytes"]) for f in data["fragments"]] == [("a", 1), (" ", 1), (" b", 2)]
    assert data["crossing"] == 0
