"""Greys for token backgrounds when ``NO_COLOR`` turns colour off, so neighbouring tokens still differ.

With ``NO_COLOR`` set, Textual draws every line through its ``Monochrome`` filter, which turns each colour
into the grey of the same luminance. The token palette (:data:`bpe_tui.render.PALETTE`) is chosen for hue:
two of its backgrounds (green ``#005f00`` and grey ``#444444``) have the very same luminance, and three
more lie within one step of the 256-colour grey ramp, so in monochrome neighbouring tokens ran together.
:class:`TokenGreys` gives each palette background a grey of its own, two ramp steps apart, and leaves every
other colour to Textual's monochrome conversion.

A terminal of 16 colours (``TERM=xterm``, ``screen``, ``linux``) has four greys, not a ramp: the six greys
fell on two (black and bright black), so under ``NO_COLOR`` there ``ar``/``row`` or the four tokens of
``Point`` were drawn as one. There the filter alternates along each line instead, token by token: ordinary
tokens between black and bright black (their light text reads on both), split, special and other marked
tokens between white and bright white with black text.
"""

from __future__ import annotations

from functools import lru_cache

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import Monochrome, monochrome_style

from bpe_tui.render import PALETTE, SPECIAL_PALETTE, SPLIT_PALETTE

PALETTE_GREYS: tuple[str, ...] = ("#080808", "#1c1c1c", "#303030", "#444444", "#585858", "#6c6c6c")
"""One grey per :data:`~bpe_tui.render.PALETTE` entry, in order: 256-colour greys 232 to 242, two steps
apart, all dark enough for the palette's light text."""

_GREY_OF = {
    Style.parse(entry).bgcolor.triplet: RichColor.parse(grey)  # type: ignore[union-attr]
    for entry, grey in zip(PALETTE, PALETTE_GREYS, strict=True)
}


ANSI_ORDINARY: tuple[RichColor, RichColor] = (RichColor.from_ansi(0), RichColor.from_ansi(8))
"""Black and bright black: the two backgrounds ordinary tokens alternate between at 16 colours."""

ANSI_MARKED: tuple[RichColor, RichColor] = (RichColor.from_ansi(7), RichColor.from_ansi(15))
"""White and bright white, with black text: split and special tokens alternate between them at 16 colours."""

_BLACK_TEXT = Style(color=RichColor.from_ansi(0))

_ORDINARY = frozenset(Style.parse(entry).bgcolor.triplet for entry in PALETTE)  # type: ignore[union-attr]
_MARKED = frozenset(
    Style.parse(entry).bgcolor.triplet for entry in (*SPLIT_PALETTE, *SPECIAL_PALETTE)  # type: ignore[union-attr]
)


@lru_cache(1024)
def ansi_grey_style(style: Style, marked: bool, second: bool) -> Style:
    """``style`` in monochrome on one of the two 16-colour greys of its kind (``second`` picks which).

    >>> ansi_grey_style(Style.parse("#e6e6e6 on #005f00"), False, True).bgcolor.number
    8
    >>> ansi_grey_style(Style.parse("bold #ffffff on #a11d1d"), True, False).color.number
    0
    """
    greys = ANSI_MARKED if marked else ANSI_ORDINARY
    shown = monochrome_style(style) + Style(bgcolor=greys[second])
    return shown + _BLACK_TEXT if marked else shown


def alternate_greys(segments: list[Segment]) -> list[Segment]:
    """A line's segments in monochrome, each token on the other grey of its kind than the token before it.

    Every change of background along the line counts as a new token (the cursor and plain gaps too), so a
    token keeps its grey when the cursor moves onto a neighbour and off again. Token backgrounds are chosen
    so neighbours always differ (:func:`bpe_tui.render.pick_style`), so a change of background is where a
    token ends.
    """
    shown: list[Segment] = []
    changes = 0
    last_background: object = None
    for text, style, control in segments:
        background = None if style is None or style.bgcolor is None else style.bgcolor.triplet
        if background != last_background:
            changes += 1
            last_background = background
        if style is not None and (background in _ORDINARY or background in _MARKED):
            shown.append(Segment(text, ansi_grey_style(style, background in _MARKED, changes % 2 == 0), control))
        else:
            shown.append(Segment(text, grey_style(style), control))
    return shown


@lru_cache(1024)
def grey_style(style: Style | None) -> Style:
    """``style`` in monochrome, a token background taking its own grey (a missing style stays plain).

    >>> grey_style(Style.parse("#e6e6e6 on #005f00")).bgcolor.name, grey_style(Style.parse("on #444444")).bgcolor.name
    ('#303030', '#6c6c6c')
    """
    if style is None:
        return Style()
    grey = None if style.bgcolor is None else _GREY_OF.get(style.bgcolor.get_truecolor())
    if grey is None:
        return monochrome_style(style)
    color = None if style.color is None else Color.from_rich_color(style.color).monochrome.rich_color
    return style + Style.from_color(color, grey)


class TokenGreys(Monochrome):
    """Textual's ``Monochrome`` filter, but with a grey of its own for each token background."""

    def __init__(self, *, sixteen_colours: bool = False, enabled: bool = True) -> None:
        """Args:
            sixteen_colours: the terminal has 16 colours or fewer, so tokens alternate between two greys.
            enabled: whether the filter applies (Textual's ``LineFilter`` flag).
        """
        super().__init__(enabled=enabled)
        self.sixteen_colours = sixteen_colours

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if self.sixteen_colours:
            return alternate_greys(segments)
        return [Segment(text, grey_style(style), control) for text, style, control in segments]
