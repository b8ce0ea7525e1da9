"""App-wide messages: ones that are not sent by a single widget (those are nested in the widget that sends them)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class SessionChanged(Message, bubble=False):
    """The session changed: a tokenizer was added or replaced, the active one or the corpus changed.

    The app posts one to itself and one to the current screen; other screens refresh when resumed.
    It does not bubble, so a screen that forwards nothing cannot bounce it back to the app.
    """

    reason: str
    """``"added"``, ``"replaced"``, ``"active"`` or ``"corpus"``."""
