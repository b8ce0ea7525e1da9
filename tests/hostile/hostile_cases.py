"""Helpers for the hostile-input suite: run a command in this process or a child, and look at what it left."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import psutil
import pytest

from bpe_tui.cli import run_command
from tests.cli.cli_cases import TEXT, tokenizer_file
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
INTERRUPT_POINT = ROOT / "tests" / "cli" / "interrupt_point.py"
ENGLISH = ROOT / "samples" / "english.txt"


def run_here(capsys: pytest.CaptureFixture[str], *argv: str | os.PathLike[str]) -> tuple[int, str, str]:
    """Run ``bpe-tui ARGV`` in this process; (exit status, stdout, stderr)."""
    code = run_command([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_child(*argv: str | os.PathLike[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m bpe_tui ARGV`` in a child process with stdin closed; a hang fails after 60 s."""
    return subprocess.run(
        [sys.executable, "-m", "bpe_tui", *map(str, argv)],
        cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True, encoding="utf-8",
        errors="backslashreplace", timeout=60, env={**os.environ, **env},
    )


def one_error_line(code: int, out: str, err: str, command: str, *needles: str) -> str:
    """Exit status 2, no stdout, one line ``bpe-tui COMMAND: error: ...`` holding every needle, no traceback."""
    assert code == 2, (code, out, err)
    assert out == "", out
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"bpe-tui {command}: error: "), lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


PROGRESS = ("reading:", "counting:", "merging:", "encoding:")
"""How the plain progress lines of train and export begin."""


def error_after_progress(code: int, out: str, err: str, command: str, *needles: str) -> str:
    """As :func:`one_error_line`, for a command that may have printed progress lines (or warnings) before its error."""
    lines = err.splitlines()
    before = PROGRESS + (f"bpe-tui {command}: warning: ",)
    assert lines and all(line.startswith(before) for line in lines[:-1]), err
    return one_error_line(code, out, lines[-1] + "\n", command, *needles)


def everything(folder: Path) -> list[str]:
    """Every name under ``folder``, hidden ones included, as sorted relative paths."""
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def digests(folder: Path) -> dict[str, str]:
    """SHA-256 of every file under ``folder`` (hidden ones included), by relative path."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


def small_tokenizer(folder: Path, fmt: str = "bpe-tui") -> Path:
    """The small tokenizer of the CLI tests, saved in ``fmt`` under ``folder``."""
    return tokenizer_file(folder, fmt)


def export_corpus_file(path: Path) -> Path:
    """About 300 KB of text: an export of it shares chunks between processes."""
    path.write_text(" ".join(w for w in TEXT.split() if w.isascii()) * 700, encoding="utf-8")
    return path


class WaitingCommand:
    """``bpe-tui COMMAND`` in its own session, made to wait at ``point`` (see ``interrupt_point.py``).

    ``wait(processes)`` returns once that many of its processes wait there; the signal can then neither
    come too early nor find the command finished.
    """

    def __init__(self, marks: Path, point: str, *command: str | os.PathLike[str], cwd: Path) -> None:
        marks.mkdir()
        self.marks = marks
        self.proc = subprocess.Popen(
            [sys.executable, str(INTERRUPT_POINT), str(marks), point, *map(str, command)],
            cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", errors="backslashreplace", start_new_session=True,
        )
        self._out: list[str] = []
        self._err: list[str] = []
        self._readers = [
            threading.Thread(target=self._pump, args=(self.proc.stdout, self._out), daemon=True),
            threading.Thread(target=self._pump, args=(self.proc.stderr, self._err), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _pump(stream, lines: list[str]) -> None:
        for line in stream:
            lines.append(line)

    def wait(self, processes: int = 1) -> None:
        wait_until(
            lambda: len(os.listdir(self.marks)) >= processes or self.proc.poll() is not None,
            f"{processes} process(es) to wait at the point",
        )
        assert self.proc.poll() is None, self.finish()

    def signal(self, number: int) -> None:
        """Send ``number`` to the whole process group, as a terminal's Ctrl-C does."""
        os.killpg(self.proc.pid, number)

    def finish(self) -> tuple[int, str, str]:
        """Wait for the command to end; (exit status, stdout, stderr)."""
        try:
            code = self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        for reader in self._readers:
            reader.join(timeout=60)
        return code, "".join(self._out), "".join(self._err)

    def no_process_left(self) -> None:
        """No process of the command (its workers included: they share its command line) is alive."""

        def ours() -> list[psutil.Process]:
            found = []
            for process in psutil.process_iter(["cmdline", "status"]):
                cmdline = process.info["cmdline"] or []
                if str(self.marks) in cmdline and process.info["status"] != psutil.STATUS_ZOMBIE:
                    found.append(process)
            return found

        wait_until(lambda: not ours(), "the command's processes to end", seconds=30)
