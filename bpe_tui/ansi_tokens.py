"""Dark text on the token backgrounds that a 16-colour terminal draws light.

In a terminal of 16 colours (``TERM=xterm``, ``screen`` as tmux and screen set it, ``linux``) the token
palette's green, olive and azure (:data:`bpe_tui.render.PALETTE`) are sent as ANSI green, yellow and cyan,
which terminals draw bright: xterm's are ``#00cd00``, ``#cdcd00`` and ``#00cdcd``, where the palette's light
text reads at 1.7-2.2:1 (at 1.4-3.5:1 in VS Code, GNOME's Tango, Terminal.app and Windows Terminal). Black
text reads at 6-13:1 on them in all of those. :class:`DarkTextOnAnsi` gives every segment on those three
backgrounds black text there; truecolor and 256-colour terminals draw the palette's own dark shades.
"""

from __future__ import annotations

from functools import lru_cache

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter

from bpe_tui.render import PALETTE

LIGHT_IN_ANSI = frozenset(Style.parse(entry).bgcolor.triplet for entry in PALETTE[2:5])  # type: ignore[union-attr]
"""The backgrounds sent as ANSI green, yellow and cyan at 16 colours: the palette's green, olive and azure."""

_BLACK_TEXT = Style(color=RichColor.from_ansi(0))


@lru_cache(1024)
def dark_text(style: Style) -> Style:
    """``style`` with black text if its background is one of :data:`LIGHT_IN_ANSI`, else ``style`` itself.

    >>> dark_text(Style.parse("#e6e6e6 on #5f5f00")).color.number  # olive: ANSI yellow
    0
    >>> dark_text(Style.parse("#e6e6e6 on #000087")).color.name  # navy: ANSI blue, dark in every terminal
    '#e6e6e6'
    """
    if style.bgcolor is None or style.bgcolor.triplet not in LIGHT_IN_ANSI:
        return style
    return style + _BLACK_TEXT


class DarkTextOnAnsi(LineFilter):
    """Black text on the token backgrounds a 16-colour terminal draws light (see the module docstring)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [
            segment if segment.style is None or segment.control else Segment(segment.text, dark_text(segment.style))
            for segment in segments
        ]
