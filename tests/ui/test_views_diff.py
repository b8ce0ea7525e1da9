"""The Diff view of the compare pane: ``d`` swaps the aligned rows for the structural diff of A and B."""

from __future__ import annotations

from bpe_tui.screens.compare import CompareScreen
from bpe_tui.widgets.compare_view import CompareView
from bpe_tui.widgets.diff_view import DiffView
from tests.ui.app_harness import SIZE, settle
from tests.ui.views_harness import ViewsApp, bilingual_800, english_500, session_with


async def test_d_shows_where_the_merges_of_a_and_b_part() -> None:
    english, bilingual = english_500(), bilingual_800()
    app = ViewsApp(CompareScreen, session_with(english, bilingual))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.query_one(CompareView).display and not screen.query_one(DiffView).display
        await pilot.press("d")
        await settle(pilot)
        assert screen.query_one(DiffView).display and not screen.query_one(CompareView).display
        shown = str(screen.query_one(DiffView).render())
        prefix = next(
            (rank for rank, (x, y) in enumerate(zip(english.model.merges, bilingual.model.merges)) if x != y),
            min(len(english.model.merges), len(bilingual.model.merges)),
        )
        assert f"shared prefix:   {prefix} merge" in shown
        assert f"first divergence: merge {prefix}" in shown
        shared = len(set(english.model.vocab.values()) & set(bilingual.model.vocab.values()))
        assert f"both {shared:,}" in shown
        assert "diff" in str(screen.query_one("#compare-header").render())
        await pilot.press("d")
        await settle(pilot)
        assert screen.query_one(CompareView).display and not screen.query_one(DiffView).display
