"""Pane keys (1-6) reach the app everywhere except while the user edits a text field; focus never lands in one by itself."""

from __future__ import annotations

from textual import events
from textual.widgets import DirectoryTree, Input, TextArea

from bpe_tui.screens.boundaries import BoundariesScreen
from bpe_tui.screens.corpus import CorpusScreen
from bpe_tui.widgets.token_view import TokenView
from tests.ui.app_harness import CORPUS_ROOT, SIZE, make_app, make_session, ready, settle, tree_loaded


async def test_enter_on_a_corpus_file_keeps_the_tree_focused_so_2_opens_the_dashboard() -> None:
    app = make_app(session=make_session(None))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = app.screen
        assert isinstance(screen, CorpusScreen)
        tree = screen.query_one(DirectoryTree)
        assert app.focused is tree
        vocab = screen.query_one("#vocab", Input).value
        # Walk down to story.txt as a user would and choose it.
        for _ in range(10):
            node = tree.cursor_node
            if node is not None and getattr(node.data, "path", None) == CORPUS_ROOT / "story.txt":
                break
            await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause()
        assert app.session.corpus_path == CORPUS_ROOT / "story.txt"
        assert app.focused is tree
        await pilot.press("2")
        await pilot.pause()
        assert app.current_mode == "dashboard"
        assert screen.query_one("#vocab", Input).value == vocab


async def test_a_pane_left_while_editing_a_field_comes_back_with_its_main_view_focused() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        corpus = app.screen
        field = corpus.query_one("#vocab", Input)
        field.focus()
        await pilot.pause()
        await pilot.press("end", "2")  # typing in the field: the digit is text, not a pane key
        assert field.value.endswith("2") and app.current_mode == "corpus"
        await pilot.press("enter")  # Enter in the form trains: the app shows the dashboard
        await settle(pilot)
        assert app.current_mode == "dashboard"
        typed = field.value
        await pilot.press("1")
        await tree_loaded(pilot)
        assert app.current_mode == "corpus" and isinstance(app.focused, DirectoryTree)
        await pilot.press("4")
        await settle(pilot)
        boundaries = app.screen
        assert isinstance(boundaries, BoundariesScreen)
        await pilot.press("slash", *"ab")
        assert isinstance(app.focused, TextArea) and app.focused.text == "ab"
        app.switch_mode("compare")  # as the command palette does, while the field has focus
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        assert app.screen is boundaries and isinstance(app.focused, TokenView)
        await pilot.press("1")
        await pilot.pause()
        assert app.current_mode == "corpus" and field.value == typed


async def burst(app, *keys: tuple[str, str]) -> None:
    """Keys arriving together, as from a fast typist or a busy app: posted at once, not one per pause."""
    for key, char in keys:
        app.post_message(events.Key(key, char))


async def test_keys_typed_right_after_slash_reach_the_field() -> None:
    app = make_app(start_mode="dashboard")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for pane, field_id in (("4", "#boundaries-input"), ("5", "#vocab-search")):
            await pilot.press(pane)
            await settle(pilot)
            # Textual acts on a binding once the focused widget has the key; keys queued behind "/" went to
            # that widget (the token view, the table) and were lost.
            await burst(app, ("slash", "/"), ("t", "t"), ("h", "h"), ("e", "e"), ("slash", "/"), ("a", "a"))
            await pilot.pause()
            field = app.screen.query_one(field_id)
            typed = field.text if isinstance(field, TextArea) else field.value
            assert app.focused is field and typed == "the/a"  # a "/" in the field is text
            await pilot.press("escape")


async def test_a_pane_built_before_is_drawn_without_the_switch_hold_back(monkeypatch) -> None:
    """Textual holds drawing back 50 ms on every mode switch; only a pane's first visit needs that."""
    from textual.app import App

    held: list[str] = []
    real = App.delay_update

    def recording(self: App, delay: float = 0.05) -> None:
        held.append(self.current_mode)  # the pane being left
        real(self, delay)

    monkeypatch.setattr(App, "delay_update", recording)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.current_mode == "corpus"
        held.clear()
        await pilot.press("2")  # the dashboard's first visit: built now, drawing held back
        await settle(pilot)
        assert app.current_mode == "dashboard" and held == ["corpus"]
        await pilot.press("1", "2", "1")  # both built: shown at once
        await settle(pilot)
        assert app.current_mode == "corpus" and held == ["corpus"]
        assert not app._batch_count  # nothing left holding drawing back


async def test_a_pane_first_opened_is_styled_without_rereading_every_stylesheet(monkeypatch) -> None:
    """A new pane's widgets take the stylesheet as they mount; re-reading all of it is for panes left stale."""
    from textual.css.stylesheet import Stylesheet

    def looks(app) -> list[tuple[object, ...]]:
        return [
            (type(node).__name__, node.id, node.styles.color, node.styles.background, node.styles.border,
             node.styles.display, node.region)
            for node in app.screen.walk_children(with_self=True)
        ]

    reread: list[str] = []
    real = Stylesheet.reparse

    def recording(self: Stylesheet) -> None:
        reread.append("reparse")
        real(self)

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        monkeypatch.setattr(Stylesheet, "reparse", recording)
        for key in "2345678":  # every pane but the corpus pane, shown at start
            await pilot.press(key)  # built now
            await settle(pilot)
            assert reread == [], f"pane {key} ({app.current_mode}) re-read every stylesheet"
            # Styled as a full re-read and re-apply of every stylesheet would style it.
            shown = looks(app)
            app.refresh_css(animate=False)
            await settle(pilot)
            assert reread and looks(app) == shown, f"pane {key} ({app.current_mode})"
            reread.clear()
