"""Shared fixtures: the bundled samples, the shared CS336 reference data that tests skip without, and a
terminal of one known kind for every test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.data_paths import SAMPLES, shared_path


@pytest.fixture(autouse=True)
def known_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test sees the terminal the pictures were taken in: ``TERM=xterm-256color``, colour on.

    The app reads ``NO_COLOR`` (greys) and ``TERM`` (the Linux console's glyphs; 16 colours) as it starts, so
    run from a shell with ``NO_COLOR`` set, or on the Linux console, every snapshot test failed. A test of
    those terminals sets them itself.
    """
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("COLORTERM", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")


@pytest.fixture
def samples_dir() -> Path:
    return SAMPLES


@pytest.fixture
def shared_data() -> Path:
    """The shared ``data/`` folder, for tests of the CS336 reference files in ``data/cs336``: they skip,
    naming the missing folder, when it is absent (a clone on its own). GPT-2's files are bundled instead:
    see :mod:`tests.data_paths`."""
    return shared_path("cs336").parent
