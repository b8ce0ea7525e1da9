"""On the Linux console (``TERM=linux``) the app draws only glyphs its font has (code page 437).

Box corners, the progress bar, scroll bars, the sparkline, the script bars, the footer's separator, token
ids in subscript, the newline glyph and the file tree's emoji were drawn as replacement marks there.
Japanese text is left as it is: no console font has it.
"""

from __future__ import annotations

import io
import unicodedata

from rich.console import Console

from tests.ui.app_harness import app_trained_by, ready, recorded_run, replay_factory
from tests.ui.test_workbench import gpt2

CONSOLE_CONTROL_GLYPHS = "☺☻♥♦♣♠•◘○◙♂♀♪♫☼►◄↕‼¶§▬↨↑↓→←∟↔▲▼⌂"
"""The glyphs of code page 437's first 32 cells, which the kernel's font maps to these code points."""

CODE_PAGE_437 = set(bytes(range(0x20, 0x100)).decode("cp437")) | set(CONSOLE_CONTROL_GLYPHS)


def screen_text(app) -> str:
    """The whole screen as the compositor sends it, after every line filter, as plain text."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), color_system=None, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.file.getvalue()


def not_drawable(text: str) -> set[str]:
    """Characters of ``text`` the Linux console's font lacks, letters aside: those are the text shown (a token
    of GPT-2's such as ``Ã``, Japanese), which the app draws as it is."""
    return {ch for ch in text if ch != "\n" and ch not in CODE_PAGE_437 and not unicodedata.category(ch).startswith("L")}


async def visit_panes(pilot) -> dict[str, str]:
    """Each pane's screen (the workbench with ids, the stepper's sentence, help), keyed by the keys pressed."""
    app = pilot.app
    seen: dict[str, str] = {}
    for keys in ("2", "1", "3", "4 i", "5", "6", "7", "8", "question_mark"):
        for key in keys.split():
            await pilot.press(key)
        await ready(pilot)
        seen[keys] = screen_text(app)
    return seen


async def test_every_pane_draws_only_glyphs_the_linux_console_has(monkeypatch) -> None:
    monkeypatch.setenv("TERM", "linux")
    app = app_trained_by(replay_factory(recorded_run()), train_on_start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.session.add_tokenizer(gpt2())
        seen = await visit_panes(pilot)
        for keys, text in seen.items():
            assert not_drawable(text) == set(), f"after {keys!r}"
        assert "┌─ Training" in seen["2"] and "▼ " in seen["1"]  # a corner and a folder, as the console has them


async def test_other_terminals_keep_their_glyphs(monkeypatch) -> None:
    monkeypatch.setenv("TERM", "xterm-256color")
    app = app_trained_by(replay_factory(recorded_run()), train_on_start=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("2")
        await ready(pilot)
        text = screen_text(app)
        assert "╭─ Training" in text and "━" in text
