"""Compare on the workbench's text, with context coverage per tokenizer, in the real app.

GPT-2 is one of the two tokenizers compared, so its coverage cells are checked against tiktoken's GPT-2.
"""

from __future__ import annotations

from textual import events

from bpe_tui.screens.compare import CompareScreen
from bpe_tui.widgets.compare_view import CompareView
from bpe_tui.widgets.script_stats import ScriptStatsTable
from tests.core.encode.tokenizer_cases import tiktoken_gpt2
from tests.ui.app_harness import make_app, settle
from tests.ui.test_workbench import gpt2
from tests.ui.views_harness import bilingual_800, session_with

TEXT = "Ask not what your country can do for you.\n\t東京タワーは高い。\n" * 60


def covered(ids: list[int], window: int) -> str:
    """The cell tiktoken's GPT-2 gives: characters / bytes of the first ``window`` tokens, or whole."""
    if window >= len(ids):
        return "whole"
    data = b"".join(tiktoken_gpt2().decode_tokens_bytes(ids[:window]))
    return f"{len(data.decode('utf-8', 'ignore')):,} / {len(data):,}"


async def test_compare_runs_on_the_workbench_text_with_coverage_per_tokenizer() -> None:
    session = session_with(bilingual_800(), gpt2())  # GPT-2 active: column A is en+ja-800, B is GPT-2
    app = make_app(session=session, start_mode="compare")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen) and screen.sample == "mixed"
        await pilot.press("4", "slash")
        app.post_message(events.Paste(TEXT))
        await pilot.pause()
        await pilot.press("escape", "6")
        await settle(pilot)
        assert app.screen is screen and screen.sample == "workbench"
        assert "workbench text" in str(screen.query_one("#compare-header").render())
        shown = "".join(screen.query_one(CompareView)._aligned.glyphs)
        assert shown.startswith("Ask·not·what·your·country")
        table = screen.query_one(ScriptStatsTable)
        ids = tiktoken_gpt2().encode_ordinary(TEXT)
        assert 1024 < len(ids) < 8192
        for window in (128, 1024, 8192):
            assert str(table.get_cell(f"{window:,} tok: ch / B", "B")) == covered(ids, window)
        await pilot.press("w")
        app.screen.query_one("#windows-input").value = "10 2k"  # 2k is 2,048 tokens
        await pilot.press("enter")
        await settle(pilot)
        assert str(table.get_cell("10 tok: ch / B", "B")) == covered(ids, 10)
        assert str(table.get_cell("2,048 tok: ch / B", "B")) == covered(ids, 2048)
        await pilot.press("s")  # the samples come after the workbench's text
        await settle(pilot)
        assert screen.sample == "english"


async def test_clearing_the_workbench_returns_compare_to_a_sample() -> None:
    app = make_app(session=session_with(bilingual_800(), gpt2()), start_mode="boundaries")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"some text", "escape", "6")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen) and screen.sample == "workbench"
        await pilot.press("4", "slash")
        app.screen.query_one("#boundaries-input").clear()
        await pilot.press("escape", "6")
        await settle(pilot)
        assert screen.sample == "mixed"
