"""SIGTERM and SIGHUP end the app as ``ctrl+q`` does: terminal restored, runs stopped, status 128 + signal.

Left to its default action, ``kill PID`` left the terminal in the app's screen with mouse reporting on,
and the training process and its workers ran on, orphaned, to the end of their run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_tui.termination import exit_on_termination
from tests.ui.app_harness import SIZE, HeldSource, held_app, split_after_merges
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"


def _read_until(fd: int, seen: bytearray, wanted: bytes | None) -> None:
    """Read the terminal's output into ``seen`` until ``wanted`` is in it (None: until the app's side closes)."""

    def more() -> bool:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: every process holding the terminal has closed it
            data = b""
        seen.extend(data)
        return (wanted is not None and wanted in seen) or not data

    wait_until(more, f"{wanted!r} on the app's terminal" if wanted else "the app to close its terminal")


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal (POSIX)")
def test_sigterm_restores_the_terminal_and_exits_with_its_status(tmp_path: Path) -> None:
    signum = signal.SIGTERM  # SIGHUP takes the same path (core.signals.TERMINATING_SIGNALS)
    main, child = os.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30",
           "XDG_CONFIG_HOME": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "bpe_tui", "--no-train"], stdin=child, stdout=child, stderr=child,
        cwd=tmp_path, env=env, start_new_session=True,
    )
    os.close(child)
    seen = bytearray()
    try:
        _read_until(main, seen, b"Quit")  # the footer is drawn: the app runs
        proc.send_signal(signum)
        before = len(seen)
        _read_until(main, seen, None)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(main)
    after = bytes(seen[before:])
    assert code == 128 + signum, after[-300:]
    assert LEAVE_ALTERNATE_SCREEN in after
    assert after.rstrip().endswith(f"bpe-tui: terminated ({signal.Signals(signum).name})".encode())


async def test_sigterm_stops_the_run_in_progress_as_quitting_does() -> None:
    first, rest = split_after_merges(3)
    source = HeldSource(first, rest)
    app = held_app(source, train_on_start=True)
    with exit_on_termination(app) as taken:
        if signal.SIGTERM not in taken:
            pytest.skip("SIGTERM is not left to its default action here")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            os.kill(os.getpid(), signal.SIGTERM)  # handled at once, on this thread: the exit is scheduled
            await pilot.pause()
    assert source.cancelled.is_set()
    assert app.return_code == 128 + signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
