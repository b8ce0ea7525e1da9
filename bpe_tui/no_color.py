"""Greys for token backgrounds when ``NO_COLOR`` turns colour off, so neighbouring tokens still differ.

With ``NO_COLOR`` set, Textual draws every line through its ``Monochrome`` filter, which turns each colour
into the grey of the same luminance. The token palette (:data:`bpe_tui.render.PALETTE`) is chosen for hue:
two of its backgrounds (green ``#005f00`` and grey ``#444444``) have the very same luminance, and three
more lie within one step of the 256-colour grey ramp, so in monochrome neighbouring tokens ran together.
:class:`TokenGreys` gives each palette background a grey of its own, two ramp steps apart, and leaves every
other colour to Textual's monochrome conversion.
"""

from __future__ import annotations

from functools import lru_cache

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import Monochrome, monochrome_style

from bpe_tui.render import PALETTE

PALETTE_GREYS: tuple[str, ...] = ("#080808", "#1c1c1c", "#303030", "#444444", "#585858", "#6c6c6c")
"""One grey per :data:`~bpe_tui.render.PALETTE` entry, in order: 256-colour greys 232 to 242, two steps
apart, all dark enough for the palette's light text."""

_GREY_OF = {
    Style.parse(entry).bgcolor.triplet: RichColor.parse(grey)  # type: ignore[union-attr]
    for entry, grey in zip(PALETTE, PALETTE_GREYS, strict=True)
}


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

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [Segment(text, grey_style(style), control) for text, style, control in segments]
