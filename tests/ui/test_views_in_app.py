"""The boundaries, inspector and compare panes inside the real app: reached by their keys, fed by the session."""

from __future__ import annotations

from textual import events
from textual.widgets import Input, SelectionList

from bpe_tui.messages import SessionChanged
from bpe_tui.screens.boundaries import BoundariesScreen
from bpe_tui.screens.compare import CompareScreen
from bpe_tui.screens.inspector import InspectorScreen
from bpe_tui.widgets.script_stats import ScriptStatsTable
from bpe_tui.widgets.token_view import TokenView
from bpe_tui.widgets.vocab_table import VocabTable
from tests.ui.app_harness import SIZE, make_app, settle
from tests.ui.views_harness import bilingual_800, english_500, session_with


async def test_keys_4_5_6_open_the_panes_on_the_active_tokenizer() -> None:
    session = session_with(english_500(), bilingual_800())
    app = make_app(session=session, start_mode="corpus")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        assert app.current_mode == "boundaries" and isinstance(app.screen, BoundariesScreen)
        assert app.screen.query_one("#boundaries-tokens", TokenView).tokens
        await pilot.press("5")
        await settle(pilot)
        assert app.current_mode == "inspector" and isinstance(app.screen, InspectorScreen)
        assert app.screen.query_one(VocabTable).total_count == bilingual_800().model.vocab_size
        await pilot.press("6")
        await settle(pilot)
        assert app.current_mode == "compare" and isinstance(app.screen, CompareScreen)
        columns = [str(column.label) for column in app.screen.query_one(ScriptStatsTable).columns.values()]
        assert columns == ["", "A", "B"]


async def test_changing_the_active_tokenizer_reaches_the_panes() -> None:
    session = session_with(english_500(), bilingual_800())
    app = make_app(session=session, start_mode="inspector")
    seen: list[object] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        assert app.screen.query_one(VocabTable).total_count == 800
        session.set_active(0)  # the app posts SessionChanged to the current screen
        await settle(pilot)
        assert any(isinstance(message, SessionChanged) for message in seen)
        assert app.screen.query_one(VocabTable).total_count == 500
        await pilot.press("4")  # a pane opened later starts on the new active tokenizer
        await settle(pilot)
        tokens = app.screen.query_one("#boundaries-tokens", TokenView).tokens
        assert tokens and max(span.id for span in tokens) < 500


async def test_opening_a_pane_never_focuses_its_input_first() -> None:
    # Focusing the token view or table in on_mount was too late: the screen first focused its first
    # focusable widget, the text input, and pane keys pressed while it opened were typed into it.
    seen: list[object] = []
    app = make_app(session=session_with(english_500(), bilingual_800()), start_mode="corpus")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        seen.clear()
        for key, wanted in (("4", "#boundaries-tokens"), ("5", "#vocab-table"), ("6", "#compare-scroll")):
            await pilot.press(key)
            await settle(pilot)
            assert app.screen.focused is app.screen.query_one(wanted)
        focused = [message.widget for message in seen if isinstance(message, events.DescendantFocus)]
        assert focused and not [widget for widget in focused if isinstance(widget, (Input, SelectionList))]
