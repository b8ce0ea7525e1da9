"""The training process runs at a lower priority than the app, so keys and redraws win when cores are short.

Its reading workers are forked from it afterwards and inherit the same niceness (POSIX keeps it across
``fork``). The child lowers its priority before it sends anything, so once a batch of events has arrived
its niceness is settled: read it then, from the process itself (a child that has already exited stays
readable until it is reaped, and nothing here reaps it before the read).
"""

from __future__ import annotations

import os

import pytest

from bpe_tui.training_process import CHILD_NICENESS, TrainingProcess
from bpe_tui.training_spec import TrainingSpec
from tests.waiting import wait_until


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="needs os.getpriority (POSIX)")
@pytest.mark.skipif(os.getpriority(os.PRIO_PROCESS, 0) >= 19, reason="this process already has the lowest priority")
def test_the_training_process_is_nicer_than_the_app() -> None:
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    process = TrainingProcess(TrainingSpec(vocab_size=259, text="low low low lower lower newest", workers=1))
    process.start()
    try:
        batches: list[list] = []

        def first_batch() -> bool:
            batch = process.poll(0.05)
            if batch:
                batches.append(batch)
            return bool(batches) or batch is None

        wait_until(first_batch, "the training process's first events")
        assert batches, "the run ended without sending an event"
        assert process.pid is not None
        theirs = os.getpriority(os.PRIO_PROCESS, process.pid)
        assert theirs > ours
        assert theirs == min(ours + CHILD_NICENESS, 19)
    finally:
        process.cancel()
