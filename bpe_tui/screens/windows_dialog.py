"""A small modal asking for the context window sizes whose coverage the workbench and Compare show."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from core.analysis.coverage import MAX_WINDOWS, parse_windows
from core.errors import SettingsError


def windows_text(windows: tuple[int, ...]) -> str:
    """Sizes as the dialog shows them to start with.

    >>> windows_text((128, 1024, 8192))
    '128 1024 8192'
    """
    return " ".join(str(window) for window in windows)


class WindowsDialog(ModalScreen[tuple[int, ...] | None]):
    """Ask for one to four window sizes; Enter accepts, Escape cancels; a bad entry says why and stays open."""

    DEFAULT_CSS = """
    WindowsDialog {
        align: center middle;
        #windows-dialog { width: 60; max-width: 95%; height: auto; border: thick $primary; background: $surface; padding: 1 2; }
        #windows-error { color: $error; height: auto; }
        #windows-hint { color: $text-muted; }
    }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, windows: tuple[int, ...]) -> None:
        super().__init__()
        self._windows = windows

    def compose(self) -> ComposeResult:
        with Vertical(id="windows-dialog"):
            yield Label("Context windows, in tokens", id="windows-title")
            yield Input(value=windows_text(self._windows), id="windows-input", select_on_focus=False)
            yield Static(f"up to {MAX_WINDOWS} sizes, e.g. 128 1024 8k (k = 1,024) · Enter applies, Esc cancels", id="windows-hint")
            yield Static("", id="windows-error")

    @on(Input.Submitted)
    def accept(self) -> None:
        try:
            windows = parse_windows(self.query_one("#windows-input", Input).value)
        except SettingsError as error:
            self.query_one("#windows-error", Static).update(Content(str(error)))
            return
        self.dismiss(windows)

    def action_cancel(self) -> None:
        self.dismiss(None)
