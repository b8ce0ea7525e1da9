"""Bad command lines: one line ``bpe-tui CMD: error: ...`` pointing at ``--help``, exit status 2, no usage block.

Also: options work before, between and after the positionals; ``--workers`` has a ceiling (1000 gave
``ValueError: filedescriptor out of range in select()``); special tokens and paths that are not UTF-8
are refused before any work (a ``\\xff`` special token failed, and a ``\\xff`` corpus path failed only
when the trained tokenizer was saved).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.limits import max_workers
from core.formats import load_tokenizer
from tests.hostile.hostile_cases import everything, one_error_line, run_child, run_here, small_tokenizer


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest newer newest\n" * 10)
    return {"corpus": corpus, "tok": small_tokenizer(tmp_path), "out": tmp_path / "out.bin"}


BAD_LINES: dict[str, tuple[list[str], str]] = {
    "train: no arguments": (["train"], "required: --vocab-size"),
    "train: no corpus": (["train", "--vocab-size", "300"], "required: CORPUS"),
    "train: vocab size not a number": (["train", "{corpus}", "--vocab-size", "lots"], "invalid int value: 'lots'"),
    "train: unknown --errors": (["train", "{corpus}", "--vocab-size", "300", "--errors", "ignore"], "invalid choice"),
    "train: unknown option": (["train", "{corpus}", "--vocab-size", "300", "--colour"], "unrecognized arguments"),
    "train: two corpora": (["train", "{corpus}", "{corpus}", "--vocab-size", "300"], "2 corpus paths given"),
    "train: option without its value": (["train", "{corpus}", "--vocab-size"], "expected one argument"),
    "train: min frequency not a number": (["train", "{corpus}", "--vocab-size", "300", "--min-frequency", "x"],
                                          "invalid int value"),
    "encode: no tokenizer": (["encode"], "required: TOKENIZER"),
    "encode: two modes": (["encode", "{tok}", "--ids", "--count"], "not allowed with argument"),
    "encode: unknown option": (["encode", "{tok}", "--fast"], "unrecognized arguments"),
    "inspect: --longest not a number": (["inspect", "{tok}", "--longest", "ten"], "invalid int value"),
    "convert: no --to": (["convert", "{tok}", "{out}"], "required: --to"),
    "convert: unknown format": (["convert", "{tok}", "{out}", "--to", "onnx"], "invalid choice: 'onnx'"),
    "export: no -o": (["export", "{corpus}", "{tok}"], "required: -o/--output"),
    "export: workers not a number": (["export", "{corpus}", "{tok}", "-o", "{out}", "--workers", "many"],
                                     "not a whole number"),
}


def _filled(argv: list[str], files: dict[str, Path]) -> list[str]:
    return [part.format(**{k: str(v) for k, v in files.items()}) for part in argv]


@pytest.mark.parametrize("case", list(BAD_LINES))
def test_a_bad_command_line_is_one_line(case: str, files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    argv, fragment = BAD_LINES[case]
    listing = everything(files["corpus"].parent)
    code, out, err = run_here(capsys, *_filled(argv, files))
    line = one_error_line(code, out, err, argv[0], fragment)
    assert line.endswith(f"see 'bpe-tui {argv[0]} --help'")
    assert "usage:" not in err
    assert everything(files["corpus"].parent) == listing


def test_a_bad_command_line_in_a_real_process(files: dict[str, Path]) -> None:
    result = run_child("train", files["corpus"], "--vocab-size", "abc", cwd=files["corpus"].parent)
    one_error_line(result.returncode, result.stdout, result.stderr, "train", "invalid int value: 'abc'")


@pytest.mark.parametrize("command", ["train", "encode", "decode", "inspect", "convert", "export", "verify"])
def test_help_still_prints_in_full(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_here(capsys, command, "--help")
    assert code == 0 and out.startswith(f"usage: bpe-tui {command}") and err == ""


ORDERS: dict[str, list[str]] = {
    "encode TOK --count FILE": ["encode", "{tok}", "--count", "{corpus}"],
    "encode --count TOK FILE": ["encode", "--count", "{tok}", "{corpus}"],
    "encode TOK FILE --count": ["encode", "{tok}", "{corpus}", "--count"],
    "export -o OUT CORPUS TOK": ["export", "-o", "{out}", "{corpus}", "{tok}", "--workers", "1"],
    "export CORPUS -o OUT TOK": ["export", "{corpus}", "-o", "{out}", "{tok}", "--workers", "1"],
    "train --vocab-size N CORPUS": ["train", "--vocab-size", "260", "{corpus}", "-o", "{out}"],
    "convert --to hf IN OUT": ["convert", "--to", "hf", "{tok}", "{out}"],
    "convert IN --to hf OUT": ["convert", "{tok}", "--to", "hf", "{out}"],
    "inspect --no-samples TOK": ["inspect", "--no-samples", "{tok}"],
}


@pytest.mark.parametrize("order", list(ORDERS))
def test_options_go_before_between_or_after_positionals(
    order: str, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_here(capsys, *_filled(ORDERS[order], files))
    assert code == 0, err
    if order.startswith("encode"):
        assert out.strip().isdigit()
    if "OUT" in order and not order.startswith("inspect"):
        assert files["out"].stat().st_size > 0


@pytest.mark.parametrize("count", ["0", "-3", "1000", str(max_workers() + 1), "10000000000000000000000"])
@pytest.mark.parametrize("command", ["train", "export"])
def test_workers_out_of_range_are_refused(
    command: str, count: str, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = (["train", files["corpus"], "--vocab-size", "260", "-o", files["out"]] if command == "train"
            else ["export", files["corpus"], files["tok"], "-o", files["out"]])
    code, out, err = run_here(capsys, *argv, "--workers", count)
    fragment = "at least 1" if int(count) < 1 else f"give {max_workers()} or fewer"
    one_error_line(code, out, err, command, "--workers", fragment)
    assert not files["out"].exists()


def test_the_most_workers_allowed_still_runs(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_here(capsys, "export", files["corpus"], files["tok"], "-o", files["out"],
                              "--workers", str(max_workers()))
    assert code == 0, err


def test_a_thousand_workers_in_a_real_process_is_one_line(files: dict[str, Path]) -> None:
    """The reported case, with a corpus big enough to share: it used to fail in select()."""
    corpus = files["corpus"]
    corpus.write_text("some words to encode\n" * 40_000)
    result = run_child("export", corpus, files["tok"], "-o", files["out"], "--workers", "1000", cwd=corpus.parent)
    one_error_line(result.returncode, result.stdout, result.stderr, "export", "1,000 processes", "or fewer")


UNDECODABLE = "caf\udce9"  # how Python hands over the bytes b"caf\xe9" of a Latin-1 name


def test_a_special_token_that_is_not_utf8_is_refused_up_front(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_here(capsys, "train", files["corpus"], "--vocab-size", "300", "-o", files["out"],
                              "--special-token", "<\udcff>")
    one_error_line(code, out, err, "train", "--special-token", "not valid UTF-8 text (byte 0xff)")
    assert not files["out"].exists()


def test_a_special_token_from_the_shell_in_a_real_process(files: dict[str, Path]) -> None:
    result = run_child("train", files["corpus"], "--vocab-size", "300", "--special-token", "\udcff",
                       cwd=files["corpus"].parent)
    one_error_line(result.returncode, result.stdout, result.stderr, "train", "not valid UTF-8 text")


PATH_ARGUMENTS: dict[str, list[str]] = {
    "train CORPUS": ["train", "{bad}", "--vocab-size", "300", "-o", "{out}"],
    "train -o": ["train", "{corpus}", "--vocab-size", "300", "-o", "{bad}"],
    "train --events": ["train", "{corpus}", "--vocab-size", "300", "-o", "{out}", "--events", "{bad}"],
    "export CORPUS": ["export", "{bad}", "{tok}", "-o", "{out}"],
    "export TOKENIZER": ["export", "{corpus}", "{bad}", "-o", "{out}"],
    "export -o": ["export", "{corpus}", "{tok}", "-o", "{bad}"],
    "export --merges": ["export", "{corpus}", "{tok}", "-o", "{out}", "--merges", "{bad}"],
    "encode TOKENIZER": ["encode", "{bad}", "{corpus}"],
    "encode FILE": ["encode", "{tok}", "{bad}"],
    "inspect TOKENIZER": ["inspect", "{bad}"],
    "convert IN": ["convert", "{bad}", "{out}", "--to", "hf"],
    "convert OUT": ["convert", "{tok}", "{bad}", "--to", "hf"],
}


@pytest.mark.parametrize("argument", list(PATH_ARGUMENTS))
def test_a_path_that_is_not_utf8_is_refused_at_start_for_every_path_argument(
    argument: str, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = files["corpus"].parent
    bad = folder / f"{UNDECODABLE}.txt"
    bad.write_bytes(files["corpus"].read_bytes())  # it exists: refused for its name, not for being missing
    listing = everything(folder)
    argv = [part.format(bad=bad, **{k: str(v) for k, v in files.items()}) for part in PATH_ARGUMENTS[argument]]
    code, out, err = run_here(capsys, *argv)
    one_error_line(code, out, err, argv[0], "caf\\xe9.txt", "not valid UTF-8 (byte 0xe9); rename the file")
    assert everything(folder) == listing


@pytest.mark.skipif(os.uname().sysname != "Linux", reason="needs a file system that takes any bytes in names")
def test_a_non_utf8_corpus_name_fails_at_start_not_after_training(tmp_path: Path) -> None:
    name = os.fsencode(tmp_path) + b"/caf\xe9.txt"
    with open(name, "wb") as handle:
        handle.write(b"low lower lowest\n" * 100)
    result = run_child("train", os.fsdecode(name), "--vocab-size", "300", cwd=tmp_path)
    line = one_error_line(result.returncode, result.stdout, result.stderr, "train", "byte 0xe9")
    assert "reading" not in result.stderr and "merging" not in line
    assert sorted(os.listdir(tmp_path)) == ["caf\udce9.txt"]


def test_an_empty_path_is_refused(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_here(capsys, "train", "", "--vocab-size", "300")
    one_error_line(code, out, err, "train", "an empty path")


def test_valid_utf8_names_and_tokens_still_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "日本語 コーパス.txt"
    corpus.write_text("猫と犬<|終|>猫と犬\n" * 10, encoding="utf-8")
    code, out, err = run_here(capsys, "train", corpus, "--vocab-size", "300", "--special-token", "<|終|>",
                              "-o", tmp_path / "トークナイザ.json")
    assert code == 0, err
    assert load_tokenizer(tmp_path / "トークナイザ.json").special_tokens == ["<|終|>"]


TEXT_ARGUMENTS: dict[str, list[str]] = {
    "lens bytes --text": ["lens", "bytes", "{tok}", "--text"],
    "lens slider --text": ["lens", "slider", "{tok}", "--text"],
    "lens spelling --words": ["lens", "spelling", "{tok}", "--words"],
    "lens replay --word": ["lens", "replay", "{tok}", "--word"],
    "diff --text": ["diff", "{tok}", "{tok}", "--text"],
}


@pytest.mark.parametrize("argument", list(TEXT_ARGUMENTS))
def test_a_text_argument_that_is_not_utf8_is_refused(
    argument: str, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """``lens bytes --text $'a\\xffb'`` ended in a UnicodeEncodeError traceback; the other lenses and ``diff``
    encoded U+FFFD in the byte's place without a word."""
    argv = _filled(TEXT_ARGUMENTS[argument], files) + [f"a{UNDECODABLE}b"]
    code, out, err = run_here(capsys, *argv)
    one_error_line(code, out, err, argv[0], "'acaf\\xe9b' is not valid UTF-8 text (byte 0xe9)", "give the text as UTF-8")


DASH_INPUTS: dict[str, list[str]] = {
    **{name: argv for name, argv in PATH_ARGUMENTS.items()
       if name.split()[1] in ("CORPUS", "TOKENIZER", "--merges", "IN")},
    "verify IDS.npy": ["verify", "{bad}", "{tok}"],
    "study CORPUS": ["study", "{bad}", "--sizes", "300"],
    "study --eval": ["study", "{corpus}", "--sizes", "300", "--eval", "{bad}"],
    "diff B": ["diff", "{tok}", "{bad}"],
    "lens --corpus": ["lens", "pairs", "{tok}", "--corpus", "{bad}"],
}


@pytest.mark.parametrize("argument", list(DASH_INPUTS))
def test_dash_for_an_input_that_is_never_stdin_says_so(
    argument: str, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """``cat corpus.txt | bpe-tui train - ...`` said '-: no such file; check the path', nothing about stdin."""
    argv = [part.format(bad="-", **{k: str(v) for k, v in files.items()}) for part in DASH_INPUTS[argument]]
    code, out, err = run_here(capsys, *argv)
    one_error_line(code, out, err, argv[0], "- is standard input only as the FILE of encode and decode",
                   "./- names a file called -")
