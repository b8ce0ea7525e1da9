"""Glyphs the Linux console can draw, for ``TERM=linux``.

The Linux console draws text from a font of 256 or 512 glyphs, the kernel's own being the IBM PC's code
page 437; a character the font lacks is drawn as a replacement mark. Textual and the app draw with rounded
box corners, heavy lines (the progress bar), eighth blocks (scroll bars, the sparkline, the script bars,
the footer's separator), subscript digits (token ids), arrows, dashes and emoji (the file tree) that code
page 437 does not have, so on the console every box corner, bar and id was such a mark.

:class:`ConsoleGlyphs` runs last on every line when ``TERM`` names the Linux console and draws each of
those with the nearest glyph code page 437 has, cell for cell (an emoji of two cells becomes two
characters), so nothing moves. Text the console has no glyph for at all (Japanese) is left as it is.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from bpe_tui.ansi_tokens import DarkTextOnAnsi

_NEAREST = {
    "╭": "┌", "╮": "┐", "╰": "└", "╯": "┘",  # rounded corners
    "━": "─", "╸": "─", "╺": "─", "┃": "│",  # heavy lines: the progress bar
    "▁": "_", "▂": "_", "▃": "▄", "▅": "▄", "▆": "█", "▇": "█", "▔": "▀",  # eighths, bottom up
    "▏": "│", "▎": "▌", "▍": "▌", "▋": "▌", "▊": "█", "▉": "█", "▕": "│",  # eighths, left to right
    "▶": "►", "▸": "►", "◀": "◄", "◂": "◄", "▾": "▼", "▴": "▲",
    "↵": "¶", "⏎": "¶", "—": "-", "–": "-", "…": "~", "×": "x", "⭘": "o", "●": "•",
    **{chr(0x2080 + digit): str(digit) for digit in range(10)},  # subscript ids: ₇₂ -> 72
    "📁": "► ", "📂": "▼ ", "📄": "  ", "🔎": "> ",  # two cells each, as the emoji took
}
"""Each glyph the app or Textual draws that code page 437 lacks, and what the console is sent instead."""

_TABLE = str.maketrans(_NEAREST)
_MISSING = re.compile("[" + re.escape("".join(_NEAREST)) + "]")


def console_text(text: str) -> str:
    """``text`` with every glyph of :data:`_NEAREST` swapped for one the Linux console has.

    >>> console_text("╭─ vocab ─╮ The₃₄₉·📂 samples")
    '┌─ vocab ─┐ The349·▼  samples'
    """
    return text.translate(_TABLE)


def is_linux_console(environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``TERM`` names the Linux console (``linux``, or a variant such as ``linux-16color``).

    >>> is_linux_console({"TERM": "linux"}), is_linux_console({"TERM": "xterm-256color"})
    (True, False)
    """
    term = (os.environ if environ is None else environ).get("TERM", "")
    return term == "linux" or term.startswith("linux-")


class ConsoleGlyphs(LineFilter):
    """Swaps glyphs the Linux console lacks for ones it has (see :func:`console_text`)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not any(_MISSING.search(segment.text) for segment in segments if not segment.control):
            return segments
        return [
            segment if segment.control else Segment(console_text(segment.text), segment.style, segment.control)
            for segment in segments
        ]


def console_filters(
    color_system: str | None, *, no_color: bool = False, environ: Mapping[str, str] | None = None
) -> tuple[LineFilter, ...]:
    """The filters this terminal needs: on the Linux console (``TERM``) :class:`ConsoleGlyphs`, and at 16
    colours (``color_system`` as Rich names it) with colour on, :class:`~bpe_tui.ansi_tokens.DarkTextOnAnsi`.

    >>> [type(f).__name__ for f in console_filters("standard", environ={"TERM": "linux"})]
    ['ConsoleGlyphs', 'DarkTextOnAnsi']
    >>> console_filters("256", environ={"TERM": "xterm-256color"})
    ()
    """
    sixteen = color_system in ("standard", "windows") and not no_color
    return (*((ConsoleGlyphs(),) if is_linux_console(environ) else ()), *((DarkTextOnAnsi(),) if sixteen else ()))
