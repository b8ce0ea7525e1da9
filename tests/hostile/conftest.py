"""Fixtures of the hostile-input suite."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest


@pytest.fixture
def deadline() -> Iterator[None]:
    """Fail a test that blocks for 20 s in this process (an open of a FIFO, a read of /dev/zero) instead of
    hanging the suite: SIGALRM interrupts the blocking call."""

    def expired(signum: int, frame: object) -> None:
        raise AssertionError("blocked for 20 s: a read or an open that should have been refused")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(20)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
