"""StopReason: the names files record are unchanged, and each reason carries the wording people read."""

from __future__ import annotations

import json
import pickle

from core.train.events import StopReason, TrainingFinished
from core.train.run import TrainingRun


def test_values_are_the_recorded_names() -> None:
    assert [reason.value for reason in StopReason] == ["vocab_size", "no_pairs", "min_frequency", "max_merges"]
    for reason in StopReason:
        assert reason == reason.value and StopReason(reason.value) is reason
        assert json.dumps(reason) == json.dumps(reason.value)
        assert pickle.loads(pickle.dumps(reason)) is reason


def test_every_reason_has_distinct_short_wording() -> None:
    wordings = [reason.wording for reason in StopReason]
    assert len(set(wordings)) == len(wordings)
    assert all(0 < len(wording) <= 24 for wording in wordings)  # the app shows it in place of the ETA


def test_a_finished_run_carries_the_member() -> None:
    run = TrainingRun.from_text("low low low lower lower newest", 1000)
    finished = [event for event in run.events() if isinstance(event, TrainingFinished)][-1]
    assert finished.reason is StopReason.NO_PAIRS
    assert pickle.loads(pickle.dumps(finished)).reason is StopReason.NO_PAIRS
