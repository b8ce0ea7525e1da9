"""The app shell: pane keys, the generated help, the command palette provider, the start-up tokenizer, session news."""

from __future__ import annotations

import pytest
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen

from bpe_tui.app import BpeTuiApp
from bpe_tui.pane_commands import PaneCommands
from bpe_tui.messages import SessionChanged
from bpe_tui.panes import PANES
from bpe_tui.screens.help import HelpScreen, bindings_of, help_sections
from bpe_tui.screens.inspector import InspectorScreen
from bpe_tui.training_runner import TrainingRunner
from bpe_tui.widgets.vocab_table import VocabTable
from tests.ui.app_harness import SIZE, make_app, make_services, replay_factory, recorded_run, settle
from tests.ui.views_harness import bilingual_800, english_500, session_with


async def test_number_keys_switch_panes() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for pane in PANES:
            await pilot.press(pane.key)
            await pilot.pause()
            assert app.current_mode == pane.mode
            assert type(app.screen) is pane.screen


async def test_help_lists_every_binding_and_closes() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        listed = {line.description for _, lines in help_sections(app) for line in lines}
        expected = [b.description for b in bindings_of(BpeTuiApp) + bindings_of(Screen)] + [
            b.description for pane in PANES for b in bindings_of(pane.screen) if not b.system
        ]
        assert set(filter(None, expected)) <= listed
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


def test_every_binding_has_a_description() -> None:
    for node_class in [BpeTuiApp] + [pane.screen for pane in PANES[:3]]:
        for binding in bindings_of(node_class):
            assert isinstance(binding, Binding) and binding.description, (node_class, binding.key)


async def test_palette_offers_every_pane_and_the_tokenizers() -> None:
    app = make_app(train_on_start=True, start_mode="dashboard")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        provider = PaneCommands(app.screen)
        names = [name for name, _, _ in provider._commands()]
        for pane in PANES:
            assert f"Go to {pane.title} ({pane.key})" in names
        assert any(name.startswith("Use tokenizer: trained:") for name in names)
        hits = [hit async for hit in provider.search("stepper")]
        assert hits and "Stepper" in str(hits[0].text or hits[0].match_display)


async def test_start_up_run_gives_every_pane_a_tokenizer() -> None:
    seen: list[Message] = []
    factory = replay_factory(recorded_run())
    app = make_app(services=make_services(source_factory=factory), train_on_start=True, start_mode=None)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        assert app.current_mode == "dashboard"
        assert factory.specs[0].text and factory.specs[0].corpus_path is None
        assert [m for m in seen if isinstance(m, TrainingRunner.Finished)]
        loaded = app.session.active_tokenizer()
        assert loaded is not None and loaded.name.startswith("trained: samples")
        assert loaded.source is None  # a start-up run is not saved without asking
        assert any(isinstance(m, SessionChanged) and m.reason == "added" for m in seen)
        assert not app.screen.__class__.__name__ == "PathDialog"


async def test_a_session_change_reaches_each_pane_once(monkeypatch: pytest.MonkeyPatch) -> None:
    posted: list[tuple[Screen, SessionChanged]] = []
    post = Screen.post_message

    def spy(screen: Screen, message: Message) -> bool:
        if isinstance(message, SessionChanged):
            posted.append((screen, message))
        return post(screen, message)

    monkeypatch.setattr(Screen, "post_message", spy)
    seen: list[Message] = []
    app = make_app(session=session_with(english_500(), bilingual_800()), start_mode="inspector")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        for pane in PANES:
            await pilot.press(pane.key)
            await settle(pilot)
        inspector = next(screen for screen, _ in posted if isinstance(screen, InspectorScreen))
        assert inspector.query_one(VocabTable).total_count == 800
        posted.clear()
        seen.clear()
        app.session.set_active(0)
        await settle(pilot)
        # One message to each pane, current or not, and none anywhere else (not to the app).
        assert sorted(type(screen).__name__ for screen, _ in posted) == sorted(p.screen.__name__ for p in PANES)
        assert [m.reason for m in seen if isinstance(m, SessionChanged)] == ["active"] * len(PANES)
        assert app.current_mode == PANES[-1].mode  # the last pane opened
        assert inspector.query_one(VocabTable).total_count == 500  # a pane in the background caught up
        assert app.sub_title == "active: en-500"
