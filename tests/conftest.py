"""Shared fixtures: the bundled samples, and the shared CS336 reference data that tests skip without."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.data_paths import SAMPLES, shared_path


@pytest.fixture
def samples_dir() -> Path:
    return SAMPLES


@pytest.fixture
def shared_data() -> Path:
    """The shared ``data/`` folder, for tests of the CS336 reference files in ``data/cs336``: they skip,
    naming the missing folder, when it is absent (a clone on its own). GPT-2's files are bundled instead:
    see :mod:`tests.data_paths`."""
    return shared_path("cs336").parent
