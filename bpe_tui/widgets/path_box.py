"""The corpus pane's path box: type a path anywhere (``~`` works), Tab completes it, ↑/↓ bring back recent files."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual.binding import Binding
from textual.message import Message
from textual.suggester import Suggester
from textual.widgets import Input

from bpe_tui.path_completion import complete_path

PATH_HINT = "p: path (~, tab, ↑↓ recent)"


def tilde_form(path: Path) -> str:
    """``path`` with the home folder written ``~``, as a user types it.

    >>> tilde_form(Path.home() / "data" / "x.txt")
    '~/data/x.txt'
    """
    home = Path.home()
    try:
        return "~/" + str(path.relative_to(home))
    except ValueError:
        return str(path)


class PathSuggester(Suggester):
    """Suggests, greyed after the cursor (→ accepts), a recent file starting with the text, else its only completion."""

    def __init__(self, recent: Callable[[], list[Path]]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self._recent = recent

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        for path in self._recent():
            for spelled in (str(path), tilde_form(path)):
                if spelled.startswith(value) and spelled != value:
                    return spelled
        completion = complete_path(value)
        if len(completion.matches) == 1 and completion.text != value:
            return completion.text
        return None


class PathBox(Input):
    """An input for a corpus path with completion and a recent-files history."""

    BINDINGS = [
        Binding("tab", "complete", "Complete", show=False),
        Binding("up", "recent(1)", "Older recent file", show=False),
        Binding("down", "recent(-1)", "Newer recent file", show=False),
    ]

    @dataclass
    class Completed(Message):
        """Tab was pressed: the names that matched (none, one, or several to choose from)."""

        path_box: PathBox
        matches: tuple[str, ...]

        @property
        def control(self) -> PathBox:
            return self.path_box

    def __init__(self, recent: Callable[[], list[Path]], *, id: str | None = None) -> None:
        super().__init__(placeholder=PATH_HINT, id=id, compact=True, suggester=PathSuggester(recent))
        self._recent = recent
        self._recent_at = -1
        """Which recent file ↑/↓ last showed (-1: none yet)."""

    def action_complete(self) -> None:
        completion = complete_path(self.value)
        if completion.text != self.value:
            self.value = completion.text
            self.cursor_position = len(self.value)
        self.post_message(self.Completed(self, completion.matches))

    def action_recent(self, step: int) -> None:
        files = self._recent()
        if not files:
            return
        self._recent_at = min(max(self._recent_at + step, 0), len(files) - 1)
        self.value = tilde_form(files[self._recent_at])
        self.cursor_position = len(self.value)
