"""The workbench's text field (pane 4): the text a user types or pastes, or one put there from elsewhere.

It says when the text has settled, a moment after the last keystroke or at once when the field is left, so
the pane encodes a text once rather than at every key. A text put there by :meth:`WorkbenchInput.show`
(an id file the app decoded) keeps its name and its exact characters until it is edited: a text field
holds one kind of line break, so CRLF and LF in one text, or U+2028, come out of it changed.
"""

from __future__ import annotations

from textual import events, on
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widgets import TextArea

TYPING_HINT = "type or paste text to tokenize: / to start, esc to leave (e: start from the sample shown)"
TYPING_DELAY = 0.2
"""Seconds after the last keystroke before the text counts as settled."""


class WorkbenchInput(TextArea):
    """A text area for the workbench: tabs type tabs, lines wrap, and :class:`Settled` follows each edit."""

    BINDINGS = [Binding("escape", "screen.back_to_tokens", "Done", tooltip="Leave the text; its tokens are drawn at once")]
    """While typing, the footer names the way out (tab types a tab here, so it is the only one)."""

    class Settled(Message):
        """The text stopped changing (a pause in typing, or focus left the field)."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id, tab_behavior="indent", placeholder=TYPING_HINT, soft_wrap=True)
        self.indent_type = "tabs"  # tab types a tab, as in the code it is meant to test
        self._typing_timer: Timer | None = None
        self._shown: tuple[str, str, str] | None = None
        """(label, held, text) from :meth:`show`: the name and exact text while the field still holds ``held``."""

    def show(self, text: str, label: str) -> None:
        """Hold ``text`` from elsewhere, called ``label`` (e.g. "ids.npy decoded") until it is edited."""
        self.load_text(text)
        self._shown = (label, self.text, text)

    @property
    def label(self) -> str:
        """"your text", or the label :meth:`show` gave the text while it is unchanged."""
        if self._shown is not None and self._shown[1] == self.text:
            return self._shown[0]
        return "your text"

    @property
    def exact_text(self) -> str:
        """The field's text, or while it is unedited, the exact text :meth:`show` put there."""
        if self._shown is not None and self._shown[1] == self.text:
            return self._shown[2]
        return self.text

    @on(TextArea.Changed)
    def _restart_delay(self) -> None:
        if self._typing_timer is not None:
            self._typing_timer.stop()
        self._typing_timer = self.set_timer(TYPING_DELAY, lambda: self.post_message(self.Settled()))

    @on(events.Blur)
    def _left(self) -> None:
        """Leaving the text (esc, tab, a click) settles it at once rather than after the typing delay."""
        if self._typing_timer is not None:
            self._typing_timer.stop()
            self._typing_timer = None
        self.post_message(self.Settled())
