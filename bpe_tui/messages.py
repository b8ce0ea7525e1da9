"""App-wide messages: ones that are not sent by a single widget (those are nested in the widget that sends them)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class SessionChanged(Message, bubble=False):
    """The session changed: a tokenizer was added or replaced, the active one or the corpus changed.

    The app posts one to each pane screen it has built, once per change, current or not. It does not
    bubble: it is news for the screen, not for the app.
    """

    reason: str
    """``"added"``, ``"replaced"``, ``"active"``, ``"corpus"``, ``"workbench"`` or ``"windows"``."""


class TrainingChanged(Message, bubble=False):
    """The app's ``TrainingState`` changed: a run started, reported, or ended. The dashboard redraws what changed.

    The app posts one to the dashboard after each of the runner's messages. A newer one replaces an
    unhandled older one: both point at the same state, so one redraw covers them.
    """

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, TrainingChanged)
