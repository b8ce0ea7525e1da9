"""Commands started with stdin, stdout or stderr closed (``<&-``, ``>&-``, ``2>&-``), where Python sets
``sys.stdin``, ``sys.stdout`` or ``sys.stderr`` to None.

``encode``, ``decode``, ``inspect``, ``lens``, ``diff``, ``study`` and ``verify`` ended in ``AttributeError:
'NoneType' object has no attribute 'write'`` with stdout closed; with stderr closed, ``train`` printed its
progress on stdout (``print(file=None)`` is stdout) and a bad command line ended in the same
AttributeError (status 1) instead of status 2. ``encode`` and ``decode`` reading stdin (no FILE, or ``-``)
with stdin closed ended in ``AttributeError: 'NoneType' object has no attribute 'buffer'``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile.hostile_cases import ENGLISH, one_error_line, run_here, small_tokenizer

CLOSED = "standard output is closed; redirect it to a file or to /dev/null"


def _run_closed(shell_redirect: str, *argv: str | os.PathLike[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m bpe_tui ARGV`` started by a shell with ``shell_redirect`` (``>&-`` or ``2>&-``)."""
    script = f'exec "$@" {shell_redirect}'
    return subprocess.run(
        ["sh", "-c", script, "sh", sys.executable, "-m", "bpe_tui", *map(str, argv)],
        cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True, encoding="utf-8",
        errors="backslashreplace", timeout=60,
    )


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    ids = tmp_path / "ids.txt"
    ids.write_text("104 105\n")
    return {"tok": small_tokenizer(tmp_path), "ids": ids, "text": ENGLISH}


COMMANDS = {
    "encode": lambda f: ["encode", f["tok"], f["text"]],
    "decode": lambda f: ["decode", f["tok"], f["ids"]],
    "inspect": lambda f: ["inspect", f["tok"], "--no-samples"],
    "diff": lambda f: ["diff", f["tok"], f["tok"]],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_closed_stdout_is_one_line_not_a_traceback(command: str, files: dict[str, Path], tmp_path: Path) -> None:
    result = _run_closed(">&-", *COMMANDS[command](files), cwd=tmp_path)
    one_error_line(result.returncode, result.stdout, result.stderr, command, CLOSED)


def test_train_needs_no_stdout(tmp_path: Path) -> None:
    result = _run_closed(">&-", "train", ENGLISH, "--vocab-size", "270", "-o", tmp_path / "t.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "t.json").is_file() and "saved to" in result.stderr


def test_with_stderr_closed_progress_does_not_reach_stdout(tmp_path: Path) -> None:
    result = _run_closed("2>&-", "train", ENGLISH, "--vocab-size", "270", "-o", tmp_path / "t.json", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")
    assert (tmp_path / "t.json").is_file()


def test_with_stderr_closed_an_error_still_exits_2(tmp_path: Path) -> None:
    bad_line = _run_closed("2>&-", "train", ENGLISH, "--vocab-size", "lots", cwd=tmp_path)
    bad_input = _run_closed("2>&-", "train", tmp_path / "missing.txt", "--vocab-size", "300", cwd=tmp_path)
    assert (bad_line.returncode, bad_line.stdout) == (2, "")
    assert (bad_input.returncode, bad_input.stdout) == (2, "")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("argv", [["encode", "{tok}"], ["encode", "{tok}", "-"], ["decode", "{tok}", "-o", "{out}"]],
                         ids=["encode", "encode -", "decode -o"])
def test_reading_a_closed_stdin_is_one_line(argv: list[str], files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    filled = [part.format(tok=files["tok"], out=out) for part in argv]
    result = _run_closed("<&-", *filled, cwd=tmp_path)
    one_error_line(result.returncode, result.stdout, result.stderr, argv[0], "standard input is closed; give a FILE")
    assert not out.exists()


def test_a_closed_stdin_does_not_matter_with_a_file(files: dict[str, Path], tmp_path: Path) -> None:
    result = _run_closed("<&-", "encode", files["tok"], files["ids"], "--count", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "") and result.stdout.strip().isdigit()


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["encode", "--help"], ["--no-train", "--version"]])
@pytest.mark.parametrize("redirect, problem", [(">&-", CLOSED), (">/dev/full", "no space left on the device; free some space or write elsewhere")],
                         ids=["closed", "full"])
def test_help_and_version_that_cannot_be_written_say_so(argv: list[str], redirect: str, problem: str,
                                                        tmp_path: Path) -> None:
    """--version on a full stdout was a traceback; --help printed nothing and exited 0 (argparse drops write
    errors), or with stdout closed put the help on stderr, as did --version after another option."""
    if redirect == ">/dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    result = _run_closed(redirect, *argv, cwd=tmp_path)
    prog = "bpe-tui encode" if argv[0] == "encode" else "bpe-tui"
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"{prog}: error: {problem}\n")


def _run_with_stderr_gone(*argv: str | os.PathLike[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m bpe_tui ARGV`` with stderr a pipe whose reader has gone (``2>&1 | head -1``, once head exits)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, "-m", "bpe_tui", *map(str, argv)], cwd=cwd, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=write_end, text=True, timeout=60)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("stderr", ["gone", "full"])
@pytest.mark.parametrize("command", ["train", "export"])
def test_a_stderr_gone_or_full_loses_the_messages_not_the_work(command: str, stderr: str, files: dict[str, Path],
                                                                tmp_path: Path) -> None:
    """train's first progress line raised BrokenPipeError, taken for stdout's reader gone: no tokenizer, and
    status 0; on a full stderr train exited 1 with nothing saved, and export exited 1 with its ids saved."""
    if stderr == "full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    out = tmp_path / ("t.json" if command == "train" else "ids.npy")
    argv = (["train", ENGLISH, "--vocab-size", "300", "-o", out] if command == "train"
            else ["export", ENGLISH, files["tok"], "-o", out])
    result = _run_with_stderr_gone(*argv, cwd=tmp_path) if stderr == "gone" else _run_closed("2>/dev/full", *argv,
                                                                                             cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")
    assert out.is_file()


def test_a_bad_command_line_with_a_full_stderr_still_exits_2(tmp_path: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    result = _run_closed("2>/dev/full", "train", ENGLISH, "--vocab-size", "lots", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")


def _run_with_stdout_gone(*argv: str | os.PathLike[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m bpe_tui ARGV | head -c 0``: stdout a pipe whose reader has gone."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, "-m", "bpe_tui", *map(str, argv)], cwd=cwd, stdin=subprocess.DEVNULL,
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_reader_gone_from_stdout_ends_the_command_quietly(command: str, files: dict[str, Path],
                                                            tmp_path: Path) -> None:
    result = _run_with_stdout_gone(*COMMANDS[command](files), cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")


def test_another_broken_pipe_is_an_error_not_a_quiet_end(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A BrokenPipeError from anything but stdout (a helper process's pipe) ended the command with status 0,
    nothing written and nothing said, as if stdout's reader had gone."""
    import errno

    import bpe_tui.cli.encode

    def pipe_broke(*args: object, **kwargs: object) -> None:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    monkeypatch.setattr(bpe_tui.cli.encode, "load_tokenizer", pipe_broke)
    code, out, err = run_here(capsys, "encode", files["tok"], files["text"])
    one_error_line(code, out, err, "encode", "Broken pipe")
