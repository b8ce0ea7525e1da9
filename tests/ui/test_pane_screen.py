"""A pane shown again restyles its widgets only when something app-wide changed while it was hidden."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.color import Color
from textual.widgets import Label

from bpe_tui.screens.pane_screen import PaneScreen


class Labelled(PaneScreen):
    def compose(self) -> ComposeResult:
        for index in range(20):
            yield Label(f"line {index}", classes="line")


class ModesApp(App[None]):
    CSS = """
    .line { color: rgb(0, 0, 255); }
    App.-loud .line { color: rgb(255, 0, 0); }
    App:blur .line { color: rgb(0, 255, 0); }
    """
    MODES = {"one": Labelled, "two": Labelled}

    async def on_mount(self) -> None:
        await self.switch_mode("one")


def line_color(app: App) -> Color:
    return app.screen.query_one(".line", Label).styles.color


async def test_a_pane_shown_again_unchanged_is_not_restyled(monkeypatch: pytest.MonkeyPatch) -> None:
    app = ModesApp()
    async with app.run_test() as pilot:
        await app.switch_mode("two")
        await pilot.pause()
        restyled: list[int] = []
        real = app.stylesheet.update_nodes

        def counting(nodes, animate: bool = False) -> None:
            nodes = list(nodes)
            restyled.append(len(nodes))
            real(nodes, animate=animate)

        monkeypatch.setattr(app.stylesheet, "update_nodes", counting)
        await app.switch_mode("one")
        await pilot.pause()
        assert sum(restyled) < 20, f"the pane's 20 labels were restyled: {restyled}"
        assert line_color(app) == Color(0, 0, 255)


async def test_a_pane_follows_an_app_class_and_the_terminal_focus_changed_while_hidden() -> None:
    app = ModesApp()
    async with app.run_test() as pilot:
        await app.switch_mode("two")
        app.add_class("-loud")
        await pilot.pause()
        await app.switch_mode("one")
        await pilot.pause()
        assert line_color(app) == Color(255, 0, 0)

        app.remove_class("-loud")
        await app.switch_mode("two")
        await pilot.pause()
        app.app_focus = False
        await pilot.pause()
        await app.switch_mode("one")
        await pilot.pause()
        assert line_color(app) == Color(0, 255, 0)


async def test_the_second_visit_to_a_pane_does_not_reread_the_stylesheets(monkeypatch: pytest.MonkeyPatch) -> None:
    app = ModesApp()
    async with app.run_test() as pilot:
        await app.switch_mode("two")  # built on this first visit
        await pilot.pause()
        await app.switch_mode("one")
        await pilot.pause()
        reread: list[bool] = []
        real = App.refresh_css

        def counting(self: App, animate: bool = True) -> None:
            reread.append(True)
            real(self, animate=animate)

        monkeypatch.setattr(App, "refresh_css", counting)
        await app.switch_mode("two")
        await pilot.pause()
        assert reread == []
        assert line_color(app) == Color(0, 0, 255)
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"  # a new theme still does
        await pilot.pause()
        assert reread
