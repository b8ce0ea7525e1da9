"""Shared fixtures: paths to the bundled samples and to ../shared/data, which tests skip without."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture
def samples_dir() -> Path:
    return SAMPLES


@pytest.fixture
def shared_data() -> Path:
    """The ../shared/data folder; tests using it skip when it is absent (e.g. a clone on its own)."""
    if not (SHARED_DATA / "cs336").is_dir():
        pytest.skip(f"reference data not found at {SHARED_DATA} (expected ../shared/data beside the repo)")
    return SHARED_DATA
