"""Pictures of the training dashboard, idle and after a (recorded, so deterministic) finished run."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from bpe_tui.app import BpeTuiApp
from bpe_tui.training_spec import TrainingSpec
from bpe_tui.widgets.merge_table import MergeTable
from tests.ui.app_harness import SAMPLES, SIZE, make_app, ready

RECORDED_SPEC = TrainingSpec(
    vocab_size=400,
    corpus_path=SAMPLES / "english.txt",
    special_tokens=("<|endoftext|>",),
    label="english.txt",
)
"""The run ``app_harness.recorded_run`` recorded, so the title matches the merges shown."""


@pytest.fixture(autouse=True)
def _no_timed_flushes(monkeypatch: pytest.MonkeyPatch) -> None:
    # The table adds queued merges every half second while a run goes on, so how many rows a replayed
    # run leaves (and so the scrollbar) depended on timing: one picture in a few dozen came out different.
    # Only the flush at the end of the run remains, as for any run shorter than half a second.
    monkeypatch.setattr(MergeTable, "FLUSH_SECONDS", 3600.0)


async def finished_run(pilot: Pilot) -> None:
    await ready(pilot)
    app = pilot.app
    assert isinstance(app, BpeTuiApp)
    app.start_training(RECORDED_SPEC)
    await ready(pilot)


def test_dashboard_idle(snap_compare) -> None:
    assert snap_compare(make_app(start_mode="dashboard"), terminal_size=SIZE, run_before=ready)


def test_dashboard_after_a_finished_run(snap_compare) -> None:
    assert snap_compare(make_app(start_mode="dashboard"), terminal_size=SIZE, run_before=finished_run)


def test_dashboard_after_a_finished_run_80x24(snap_compare) -> None:
    assert snap_compare(make_app(start_mode="dashboard"), terminal_size=(80, 24), run_before=finished_run)
