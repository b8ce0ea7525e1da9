"""The app shell: pane keys, the generated help, the command palette provider, the start-up tokenizer."""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen

from bpe_tui.app import BpeTuiApp, PaneCommands
from bpe_tui.messages import SessionChanged
from bpe_tui.panes import PANES
from bpe_tui.screens.help import HelpScreen, bindings_of, help_sections
from bpe_tui.widgets.training_runner import TrainingRunner
from tests.ui.app_harness import SIZE, make_app, make_services, replay_factory, recorded_run, settle


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


async def test_session_changes_reach_the_current_screen() -> None:
    seen: list[Message] = []
    app = make_app(start_mode="stepper")
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        app.session.set_corpus(None)
        await pilot.pause()
        # One to the app (sub-title) and one to the current screen.
        assert len([m for m in seen if isinstance(m, SessionChanged) and m.reason == "corpus"]) == 2
