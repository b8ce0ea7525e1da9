"""A line filter that keeps control characters off the terminal, whatever widget draws them.

The app writes tokens, names and corpus text out with their escapes (:mod:`bpe_tui.text`), but Textual's
text box and input fields draw what they hold as it is: text decoded from an id file (``ctrl+o``), pasted
text, a path completed or recalled in the path box. Rich strips only BEL, backspace, VT, FF and CR, so an
ESC reached the terminal: an id file of a log with colour codes retitled the terminal (OSC 0) and cleared
the screen (``ESC [2J``) when it opened in the workbench.

:class:`ControlCharacters` runs last on every line the app draws and drops the C0 and C1 controls, DEL,
and the bidi embeddings, overrides and isolates (which reorder a line on terminals that do bidi). Rich
gives all of them no cell, so nothing moves: the text box's cursor stays where its text puts it.
"""

from __future__ import annotations

import re

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""What never reaches the terminal: C0, DEL, C1, and the bidi embeddings, overrides and isolates."""


def without_controls(segments: list[Segment]) -> list[Segment]:
    """``segments`` with :data:`CONTROLS` taken out of their text (a segment left empty is dropped).

    >>> [segment.text for segment in without_controls([Segment("a\\x1b]0;pwned\\x07b"), Segment("\\x1b")])]
    ['a]0;pwnedb']
    """
    if not any(CONTROLS.search(segment.text) for segment in segments if not segment.control):
        return segments
    kept: list[Segment] = []
    for segment in segments:
        if segment.control:
            kept.append(segment)
            continue
        text = CONTROLS.sub("", segment.text)
        if text:
            kept.append(Segment(text, segment.style, segment.control))
    return kept


class ControlCharacters(LineFilter):
    """Drops control characters from every line drawn (see :func:`without_controls`)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return without_controls(segments)
