"""Waiting for another process's step in a test: poll a condition, never sleep a fixed time and hope."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], bool], what: str, seconds: float = 60.0) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` after ``seconds``.

    Used to make one process wait for another's step (a file it touches, a pipe it fills), so that the
    order of events in a test is fixed rather than likely. The limit only turns a deadlock into a
    failure: a run that needs it is broken, not slow.
    """
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds:.0f} s for {what}")
        time.sleep(0.001)
