"""The corpus digest's thread and Ctrl-C: an interrupt that lands while the thread starts ends the export as a
Ctrl-C, even when it leaves ``threading``'s own lock broken (found under load by the shard-export interrupt
stop in ``tests/hostile/test_interrupts.py``, which cannot aim at this moment)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from core.export.corpus_digest import CorpusDigest


def digest_of(tmp_path: Path) -> CorpusDigest:
    path = tmp_path / "c.txt"
    path.write_bytes(b"abc")
    return CorpusDigest(path)


def test_an_interrupt_that_breaks_start_goes_up_as_a_keyboard_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted_start(self: threading.Thread) -> None:
        # What CPython raises when SIGINT lands inside start()'s wait: the KeyboardInterrupt, then, while
        # leaving the condition it waited on, a RuntimeError in its place.
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise RuntimeError("release unlocked lock")

    digest = digest_of(tmp_path)
    monkeypatch.setattr(threading.Thread, "start", interrupted_start)
    with pytest.raises(KeyboardInterrupt):
        digest.in_background(3)
    digest.stop()  # no thread was kept: nothing to join


def test_other_errors_from_start_stay_what_they_are(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing_start(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    digest = digest_of(tmp_path)
    monkeypatch.setattr(threading.Thread, "start", failing_start)
    with pytest.raises(RuntimeError, match="can't start new thread"):
        digest.in_background(3)
