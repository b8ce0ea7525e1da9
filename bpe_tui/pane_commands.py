"""The command palette's entries (ctrl+p): go to a pane, open a file, load a reference, use a tokenizer, help.

Names shown in the palette are data (a tokenizer file may be called ``[bold]``), so they are shown as plain
text, never read as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher

from bpe_tui.panes import PANES
from bpe_tui.session import Session


class PaletteApp(Protocol):
    """What the palette asks of the app (the app imports this module, so it is named by what it does)."""

    session: Session

    def switch_mode(self, mode: str) -> object: ...
    def action_open_tokenizer(self) -> None: ...
    def reference_tokenizers(self) -> dict[str, str]: ...
    def load_tokenizer_file(self, path: Path) -> object: ...
    def action_help(self) -> None: ...


def highlighted(matcher: Matcher, text: str) -> Content:
    """``text`` as plain Content with the characters ``matcher`` matched in its match style.

    Textual's ``Matcher.highlight`` reads its text as markup, and a tokenizer's name is data: ``[bold]``
    in a name must show as typed (and ``[/]`` must not fail).
    """
    content = Content(text)
    score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    if score:
        for offset in offsets:
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


class PaneCommands(Provider):
    """Command palette entries: open each pane, open a tokenizer file, switch the active tokenizer, help."""

    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        app = cast(PaletteApp, self.app)
        commands: list[tuple[str, Callable[[], object], str]] = [
            (f"Go to {pane.title} ({pane.key})", partial(app.switch_mode, pane.mode), pane.description)
            for pane in PANES
        ]
        commands.append(("Open tokenizer file…", app.action_open_tokenizer, "Load a tokenizer in any format"))
        for name, where in app.reference_tokenizers().items():
            commands.append(
                (f"Load reference tokenizer: {name}", partial(app.load_tokenizer_file, Path(name)), where)
            )
        commands.append(("Show keys (help)", app.action_help, "Every key binding, by pane"))
        for index, loaded in enumerate(app.session.tokenizers):
            commands.append(
                (f"Use tokenizer: {loaded.shown_name}", partial(app.session.set_active, index), "Make it the active one")
            )
        return commands

    async def discover(self) -> Hits:
        for name, callback, help_text in self._commands():
            # Content, not str: the palette reads a str prompt as markup, and tokenizer names are data.
            yield DiscoveryHit(Content(name), callback, text=name, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, highlighted(matcher, name), callback, text=name, help=help_text)
