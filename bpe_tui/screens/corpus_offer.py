"""A small modal shown when ctrl+o was given a text file: it looks like a corpus; use it as the corpus?"""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from bpe_tui.text import shown_text


class CorpusOfferDialog(ModalScreen[bool]):
    """Says that ``path`` is text in no tokenizer format; Enter (or the button) uses it as the corpus, Esc does not."""

    DEFAULT_CSS = """
    CorpusOfferDialog {
        align: center middle;
        #offer-dialog { width: 70; max-width: 95%; height: auto; border: thick $primary; background: $surface; padding: 1 2; }
        #offer-title { width: 100%; }
        #offer-buttons { height: 1; margin-top: 1; align-horizontal: right; }
        #offer-buttons Button { margin-left: 2; }
    }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, path: Path) -> None:
        super().__init__()
        self._path = path

    def compose(self) -> ComposeResult:
        with Vertical(id="offer-dialog"):
            yield Label(
                Content.assemble(
                    (shown_text(self._path.name), "bold"),  # escapes written out, as every name
                    " is plain text, not a tokenizer file: it looks like a corpus. Use it as the corpus to train on?",
                ),
                id="offer-title",
            )
            with Horizontal(id="offer-buttons"):
                yield Button("Use as corpus", variant="primary", id="offer-accept", compact=True)
                yield Button("Cancel", id="offer-cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#offer-accept", Button).focus()

    @on(Button.Pressed, "#offer-accept")
    def accept(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#offer-cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)
