"""A terminal's Ctrl-C landing in a forked child's first moment, before the worker has set its own handlers.

While :func:`ctrl_c_as_children_start` is active, every process forked from this one sends itself SIGINT from
its after-fork hooks and leaves marks in a folder: ``ran-PID``, and ``interrupted-PID`` when that raised
KeyboardInterrupt in the hook (which Python reports as "Exception ignored in: ..." on stderr; pytest's own
unraisable hook would keep it from the test's stderr, hence the files).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_FOLDER: list[Path] = []


def _ctrl_c_in_the_after_fork_hooks() -> None:
    if _FOLDER:
        folder = _FOLDER[0]
        (folder / f"ran-{os.getpid()}").touch()
        try:
            os.kill(os.getpid(), signal.SIGINT)
        except KeyboardInterrupt:
            (folder / f"interrupted-{os.getpid()}").touch()


os.register_at_fork(after_in_child=_ctrl_c_in_the_after_fork_hooks)


@contextmanager
def ctrl_c_as_children_start(folder: Path) -> Iterator[None]:
    """Send each child forked meanwhile a SIGINT in its after-fork hooks, marking ``folder``.

    SIGINT gets Python's own handler meanwhile, as in a terminal: a test run in the background (CI's
    script, ``&``) inherits it ignored, and then nothing would be proved.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    _FOLDER.append(folder)
    try:
        yield
    finally:
        _FOLDER.clear()
        signal.signal(signal.SIGINT, previous)


def marks(folder: Path) -> list[str]:
    """The marks left, without their pids: ``["ran", "ran"]`` for two children that ignored the Ctrl-C."""
    return sorted(path.name.split("-")[0] for path in folder.iterdir())
