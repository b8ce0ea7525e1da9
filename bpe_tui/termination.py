"""SIGTERM and SIGHUP end the app as ``ctrl+q`` does: the terminal restored, training and study runs stopped.

Left to their default action (``kill PID``, ``timeout``, a closed ssh session), they ended the app on the
spot: the terminal stayed in the app's screen with mouse reporting on, and the training and study
processes, the app's children, ran on to the end of their run with nobody to read them (the ``atexit``
hook that stops them never ran). Here the signal asks the app to exit, from its event loop, with status
128 + the signal's number; a second one, or one that comes while no loop runs, has the default action.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Iterator
from typing import Any

from textual.app import App

from core.signals import TERMINATING_SIGNALS


def _default_action(signum: int) -> None:
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


@contextlib.contextmanager
def exit_on_termination(app: App[Any]) -> Iterator[list[int]]:
    """While the block runs, a terminating signal makes ``app`` exit with status 128 + its number.

    Yields the signals taken: only those left to their default action (SIGHUP ignored under ``nohup``
    stays ignored). The handler runs on the main thread, between two steps of the app's event loop, so it
    only schedules the exit there (``call_soon_threadsafe`` is the loop's signal-safe way in).
    """
    asked: list[int] = []

    def terminate(signum: int, frame: object) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if asked or loop is None or loop.is_closed():
            _default_action(signum)  # the user insists, or no app is running to exit cleanly
            return
        asked.append(signum)
        loop.call_soon_threadsafe(lambda: app.exit(return_code=128 + signum))

    taken: dict[int, Any] = {}
    for signum in TERMINATING_SIGNALS:
        try:
            if signal.getsignal(signum) is signal.SIG_DFL:
                taken[signum] = signal.signal(signum, terminate)
        except ValueError:  # not the main thread: signals are not ours to handle
            break
    try:
        yield list(taken)
    finally:
        for signum, previous in taken.items():
            signal.signal(signum, previous)


def termination_line(return_code: int | None) -> str | None:
    """The line to print once the app has exited because of a terminating signal, else None.

    >>> termination_line(143), termination_line(0)
    ('bpe-tui: terminated (SIGTERM)', None)
    """
    signum = (return_code or 0) - 128
    if signum not in TERMINATING_SIGNALS:
        return None
    return f"bpe-tui: terminated ({signal.Signals(signum).name})"
