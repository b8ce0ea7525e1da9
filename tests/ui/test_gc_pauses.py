"""While a run goes on, the app holds back full garbage collections, and gives them back when it ends; at
a pane's first showing, at a run's end and when a tokenizer arrives it settles its heap (one full pass, then the survivors
are frozen out of later ones).

The hold is process-wide, and an earlier test's run may still be ending in its worker thread (an app
that exits cancels its workers without waiting for them), so each test first waits until no run holds it.
"""

from __future__ import annotations

import gc
import threading
import time
import weakref

import pytest

from bpe_tui.app import BpeTuiApp
from bpe_tui import gc_pauses
from bpe_tui.gc_pauses import HELD_BACK, full_collections_held_back, settle_heap
from bpe_tui.training_runner import TrainingRunner
from tests.ui.app_harness import SAMPLES, SIZE, HeldSource, held_app, make_app, settle, split_after_merges
from tests.ui.test_dashboard_drawing import until


def no_run_holding(timeout: float = 60.0) -> None:
    """Wait until no run, an earlier test's included, holds back the full collections."""
    deadline = time.monotonic() + timeout
    while gc_pauses._holders:
        assert time.monotonic() < deadline, "a run from an earlier test still holds back full collections"
        time.sleep(0.01)


def test_overlapping_holds_give_the_thresholds_back_when_the_last_one_ends() -> None:
    no_run_holding()
    before = gc.get_threshold()
    first, second = full_collections_held_back(), full_collections_held_back()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert gc.get_threshold() == (before[0], before[1], HELD_BACK)  # a run is still going on
    second.__exit__(None, None, None)
    assert gc.get_threshold() == before


def test_holds_from_two_threads_at_once_end_with_the_thresholds_as_they_were() -> None:
    no_run_holding()
    before = gc.get_threshold()
    inside = threading.Barrier(8)

    def hold() -> None:
        with full_collections_held_back():
            inside.wait()

    threads = [threading.Thread(target=hold) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert gc.get_threshold() == before


async def test_a_run_holds_back_full_collections_until_it_ends() -> None:
    first, rest = split_after_merges(30)
    source = HeldSource(first, rest)
    app: BpeTuiApp = held_app(source)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await until(pilot, lambda: gc_pauses._holders == 0, "no earlier run holds back full collections")
        before = gc.get_threshold()
        await pilot.press("ctrl+t")
        await until(pilot, lambda: len(app.training.merges) == 30, "the first 30 merges reached the app")
        assert gc.get_threshold() == (before[0], before[1], HELD_BACK)
        source.release.set()
        await settle(pilot)
        assert isinstance(app.training.outcome, TrainingRunner.Finished)
        assert gc.get_threshold() == before


class Node:
    """A plain object that can sit in a reference cycle and be watched through a weak reference."""

    me: object = None


def test_a_settled_cycle_waits_for_the_next_settle_and_no_longer() -> None:
    no_run_holding()
    cycle = Node()
    cycle.me = cycle
    watched = weakref.ref(cycle)
    settle_heap()
    del cycle
    gc.collect()
    assert watched() is not None  # frozen: a full pass no longer walks it
    settle_heap()
    assert watched() is None  # the next settle unfreezes first, and collects it


def recording_settles(monkeypatch: pytest.MonkeyPatch, app: BpeTuiApp) -> list[object]:
    """Each settle the app makes, as what the training state's outcome was at that moment."""
    outcomes: list[object] = []

    def recorded() -> None:
        outcomes.append(app.training.outcome)
        settle_heap()

    monkeypatch.setattr("bpe_tui.app.settle_heap", recorded)
    monkeypatch.setattr("bpe_tui.file_opening.settle_heap", recorded)  # a tokenizer read from a file
    return outcomes


async def test_the_app_settles_its_heap_once_a_pane_is_first_up(monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app()
    outcomes = recording_settles(monkeypatch, app)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(outcomes) == 1, "a settle after start-up")
        await pilot.press("5")
        await until(pilot, lambda: len(outcomes) == 2, "a settle after the inspector was built")
        await pilot.press("1", "5")
        await settle(pilot)
        assert len(outcomes) == 2  # panes already built are not settled again


async def test_the_app_settles_its_heap_when_a_run_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    first, rest = split_after_merges(30)
    source = HeldSource(first, rest)
    app: BpeTuiApp = held_app(source)
    outcomes = recording_settles(monkeypatch, app)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(outcomes) == 1, "a settle after start-up")
        await pilot.press("ctrl+t")
        await until(pilot, lambda: len(app.training.merges) == 30, "the first 30 merges reached the app")
        # ctrl+t shows the dashboard, whose first showing settles too
        await until(pilot, lambda: len(outcomes) == 2, "a settle after the dashboard was built")
        assert all(outcome is None for outcome in outcomes)
        settled = len(outcomes)
        source.release.set()
        await until(pilot, lambda: len(outcomes) == settled + 1, "a settle after the run's end")
        assert isinstance(outcomes[-1], TrainingRunner.Finished)


async def test_the_app_settles_its_heap_when_a_tokenizer_arrives(monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app()
    outcomes = recording_settles(monkeypatch, app)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(outcomes) == 1, "a settle after start-up")
        before = len(app.session.tokenizers)
        app.load_tokenizer_file(SAMPLES / "gpt2")
        await until(pilot, lambda: len(outcomes) == 2, "a settle after the tokenizer joined the session")
        assert len(app.session.tokenizers) == before + 1
