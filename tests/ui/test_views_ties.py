"""Ties in the app: the dashboard counts the merges the tie rule decided, the inspector lists them (``i``)."""

from __future__ import annotations

from textual.widgets import OptionList, Static

from bpe_tui.app import BpeTuiApp
from bpe_tui.screens.inspector import InspectorScreen
from bpe_tui.session import LoadedTokenizer
from bpe_tui.stepper_model import ReplaySteps
from bpe_tui.widgets.merge_tree import MergeTreeView
from core.analysis.ties import tied_merges
from core.model import BPEModel
from core.train.events import MergeMade
from tests.core.analysis.test_ties import reference_ties
from tests.snapshots.test_snap_dashboard import RECORDED_SPEC
from tests.ui.app_harness import SAMPLES, SIZE, make_app, recorded_run, ready, settle
from tests.ui.views_harness import ViewsApp, bilingual_800, session_with


def reference_tie_ranks(text: str, merges: list[tuple[bytes, bytes]]) -> list[int]:
    return [rank for rank, was_tie in enumerate(reference_ties(text, merges)) if was_tie]


async def test_dashboard_counts_the_ties_of_the_run() -> None:
    app = make_app(start_mode="dashboard")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert isinstance(app, BpeTuiApp)
        app.start_training(RECORDED_SPEC)
        await ready(pilot)
        merges = [event for event in recorded_run() if isinstance(event, MergeMade)]
        text = (RECORDED_SPEC.corpus_path).read_text(encoding="utf-8")
        ties = len(reference_tie_ranks(text, [(m.left, m.right) for m in merges]))
        rates = str(app.screen.query_one("#rates", Static).render())
        assert f"merges {len(merges):,} ({ties:,} ties)" in rates


async def test_inspector_lists_the_ties_and_opens_their_trees() -> None:
    loaded = bilingual_800()
    # The ties the model records (tests/core/analysis/test_ties.py holds them to a recount from scratch).
    expected = [tie.rank for tie in tied_merges(loaded.model).tied]
    assert 0 < len(expected) < len(loaded.model.merges)
    app = ViewsApp(InspectorScreen, session_with(loaded))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        listing = screen.query_one("#tied-merges", OptionList)
        assert not listing.display
        await pilot.press("i")
        await settle(pilot)
        assert listing.display and listing.has_focus and not screen.query_one("#longest-tokens").display
        assert listing.option_count == len(expected)
        assert listing.border_title == f"ties {len(expected):,} of {len(loaded.model.merges):,}"
        first = loaded.model.merges[expected[0]]
        assert str(listing.get_option_at_index(0).prompt).startswith(f"#{expected[0]:<6} ")
        await pilot.press("enter")
        await settle(pilot)
        tree = screen.query_one(MergeTreeView)
        shown = (first[0] + first[1]).decode("utf-8", "replace").replace(" ", "·")
        assert tree.has_focus and str(tree.root.label).startswith(shown)
        await pilot.press("l")
        assert screen.query_one("#longest-tokens").display and not listing.display


async def test_inspector_says_when_ties_are_unknown() -> None:
    model = bilingual_800().model
    unknown = LoadedTokenizer.from_model(BPEModel(model.vocab, model.merges, model.special_tokens), name="no counts")
    app = ViewsApp(InspectorScreen, session_with(unknown))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i")
        listing = app.screen.query_one("#tied-merges", OptionList)
        assert listing.border_title == "ties unknown" and listing.option_count == 1
        assert "records no runner-up counts" in str(listing.get_option_at_index(0).prompt)


def test_the_stepper_replays_recorded_runner_ups_and_ties() -> None:
    model = bilingual_800().model
    text = "\n".join((SAMPLES / f"{n}.txt").read_text(encoding="utf-8") for n in ("english", "japanese"))
    first_tie = reference_tie_ranks(text, model.merges[:40])[0]
    steps = ReplaySteps(model)
    merge = steps.step(first_tie + 1).merge
    assert merge is not None and merge.won_tie and merge.runner_up_count == merge.count
    before = steps.step(first_tie).merge
    assert before is not None and not before.won_tie and before.runner_up_count < before.count
    unknown = ReplaySteps(BPEModel(model.vocab, model.merges, model.special_tokens, merge_counts=model.merge_counts))
    merge = unknown.step(first_tie + 1).merge
    assert merge is not None and merge.runner_up_count is None and not merge.won_tie
