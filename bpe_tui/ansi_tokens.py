"""Dark text on the backgrounds that a 16-colour terminal draws light: tokens, cursors, buttons.

In a terminal of 16 colours (``TERM=xterm``, ``screen`` as tmux and screen set it, ``linux``) the token
palette's green, olive and azure (:data:`bpe_tui.render.PALETTE`) are sent as ANSI green, yellow and cyan,
which terminals draw bright: xterm's are ``#00cd00``, ``#cdcd00`` and ``#00cdcd``, where the palette's light
text reads at 1.7-2.2:1 (at 1.4-3.5:1 in VS Code, GNOME's Tango, Terminal.app and Windows Terminal). Black
text reads at 6-13:1 on them in all of those. The theme's own colours fare the same: textual-dark's primary
is sent as cyan, so the cursor of every table and of the file tree, and the Train button, were white on
cyan. :class:`DarkTextOnAnsi` gives light text on any of those backgrounds, or on the bright ones, black
text there; truecolor and 256-colour terminals draw the colours as they are.
"""

from __future__ import annotations

from functools import lru_cache

from rich.color import Color as RichColor, ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter

LIGHT_ANSI = frozenset({2, 3, 6, 7, 10, 11, 14, 15})
"""ANSI colours terminals draw light: green, yellow, cyan, white and their bright forms."""

LIGHT_TEXT = frozenset({7, 15})
"""ANSI colours of light text: white and bright white."""

_BLACK_TEXT = Style(color=RichColor.from_ansi(0))


@lru_cache(1024)
def dark_text(style: Style) -> Style:
    """``style`` with black text if at 16 colours its text is light on a light background, else itself.

    >>> dark_text(Style.parse("#e6e6e6 on #5f5f00")).color.number  # a token on olive: ANSI yellow
    0
    >>> dark_text(Style.parse("#e0e0e0 on #0178d4")).color.number  # textual-dark's cursor: cyan
    0
    >>> dark_text(Style.parse("#e6e6e6 on #000087")).color.name  # navy: ANSI blue, dark in every terminal
    '#e6e6e6'
    """
    if style.bgcolor is None or style.color is None:
        return style
    if _ansi(style.bgcolor) in LIGHT_ANSI and _ansi(style.color) in LIGHT_TEXT:
        return style + _BLACK_TEXT
    return style


def _ansi(color: RichColor) -> int | None:
    return color.downgrade(ColorSystem.STANDARD).number


class DarkTextOnAnsi(LineFilter):
    """Black text on the backgrounds a 16-colour terminal draws light (see the module docstring)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [
            segment if segment.style is None or segment.control else Segment(segment.text, dark_text(segment.style))
            for segment in segments
        ]
