"""Several tokenizations of one text in aligned rows, with a marker row where their boundaries differ.

Rows are aligned character by character: every tokenizer's row draws the same glyph in the same cell,
and only the colours (token boundaries) change, so a difference lines up vertically with a ``▲`` under
it. A character that a tokenizer splits between tokens is drawn in that tokenizer's row in the split
palette; its bytes are shown in the boundaries pane, since hex would break the alignment here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from textual.content import Content, Span
from textual.geometry import Size
from textual.widget import Widget

from bpe_tui.render import BASE_GLYPH, is_special, pick_style
from bpe_tui.text import escape_token
from core.analysis.compare import Span as TokenSpan

LETTERS = "ABCD"
MARKER = "▲"
MARKER_STYLE = "bold #ff5f5f"
LABEL_WIDTH = 2


@dataclass(frozen=True, slots=True)
class AlignedText:
    """A text ready to draw in aligned rows, independent of the width it will be wrapped at.

    Attributes:
        glyphs: what each character is drawn as (``·`` for a space, ``↵`` for a newline, escapes).
        breaks: for each character, whether a line break follows it (after a newline).
        styles: per tokenizer, the style of each character.
        marked: for each character, whether the tokenizers disagree about a boundary at or inside it.
    """

    glyphs: tuple[str, ...]
    breaks: tuple[bool, ...]
    styles: tuple[tuple[str, ...], ...]
    marked: tuple[bool, ...]


def align_tokenizations(
    text: str, tokenizations: Sequence[Sequence[TokenSpan]], ids: Sequence[Sequence[int]], differing: frozenset[int]
) -> AlignedText:
    """Work out each character's glyph, its colour in every row, and whether it sits on a disagreement.

    Args:
        text: the text all tokenizations are of.
        tokenizations: per tokenizer, its spans (``byte_start``/``byte_end``, in order; a span whose
            ``is_special`` is true is drawn in the special-token style).
        ids: per tokenizer, the token id of each span (colours follow ids, as in the boundaries pane).
        differing: byte offsets where some tokenizers cut and others do not (``BoundaryDiff.differing``).

    A character is coloured by the token its first byte is in; consecutive characters of one token
    share its colour, and a new token, or a character the tokenizer splits, takes a colour different
    from the one before (``pick_style``). A zero-width character (a combining mark) that some tokenizer
    cuts at or inside is drawn on a ``◌``, so that its colour and its marker have a cell of their own.
    """
    extents: list[tuple[int, int]] = []
    offset = 0
    for ch in text:
        size = len(ch.encode("utf-8", errors="surrogatepass"))
        extents.append((offset, offset + size))
        offset += size
    styles: list[tuple[str, ...]] = []
    for spans, span_ids in zip(tokenizations, ids):
        cuts = {span.byte_start for span in spans}
        row: list[str] = []
        index = 0
        previous_key: tuple[int, bool] | None = None
        previous_style = ""
        for start, end in extents:
            while index < len(spans) - 1 and spans[index].byte_end <= start:
                index += 1
            split = any(cut in cuts for cut in range(start + 1, end))
            key = (index, split)
            if key != previous_key:
                token_id = span_ids[index] if index < len(span_ids) else 0
                special = index < len(spans) and is_special(spans[index])
                previous_style = pick_style(token_id, split, previous_style, special=special)
                previous_key = key
            row.append(previous_style)
        styles.append(tuple(row))
    marked = tuple(any(cut in differing for cut in range(start, end)) for start, end in extents)
    every_cut = {span.byte_start for spans in tokenizations for span in spans}
    glyphs = [escape_token(ch) for ch in text]
    for position, (start, end) in enumerate(extents):
        if cell_len(glyphs[position]) == 0 and not every_cut.isdisjoint(range(start, end)):
            glyphs[position] = BASE_GLYPH + glyphs[position]
    return AlignedText(
        glyphs=tuple(glyphs),
        breaks=tuple(ch == "\n" for ch in text),
        styles=tuple(styles),
        marked=marked,
    )


def wrap_positions(aligned: AlignedText, width: int) -> list[tuple[int, int]]:
    """Cut the characters into display lines of at most ``width`` cells: ``(start, end)`` index pairs.

    >>> aligned = AlignedText(("a", "b", "↵", "日", "本"), (False, False, True, False, False), (), ())
    >>> wrap_positions(aligned, 3)
    [(0, 3), (3, 4), (4, 5)]
    """
    lines: list[tuple[int, int]] = []
    start = used = 0
    width = max(width, 2)
    for position, glyph in enumerate(aligned.glyphs):
        cells = cell_len(glyph)
        if used + cells > width and position > start:
            lines.append((start, position))
            start, used = position, 0
        used += cells
        if aligned.breaks[position]:
            lines.append((start, position + 1))
            start, used = position + 1, 0
    if start < len(aligned.glyphs):
        lines.append((start, len(aligned.glyphs)))
    return lines


def render_aligned(aligned: AlignedText, width: int, labels: Sequence[str] = LETTERS) -> list[Content]:
    """The display lines: for each wrapped line of text, one row per tokenizer and then the marker row."""
    body_width = max(2, width - LABEL_WIDTH)
    lines: list[Content] = []
    for start, end in wrap_positions(aligned, body_width):
        glyphs = aligned.glyphs[start:end]
        text = "".join(glyphs)
        for row, label in zip(aligned.styles, labels):
            spans: list[Span] = []
            position = 0
            for glyph, style in zip(glyphs, row[start:end]):
                spans.append(Span(position, position + len(glyph), style))
                position += len(glyph)
            lines.append(Content.styled(f"{label} ", "bold") + Content(text, spans, strip_control_codes=False))
        markers = "".join(
            (MARKER if marked else " ").ljust(cells) if (cells := cell_len(glyph)) else ""
            for glyph, marked in zip(glyphs, aligned.marked[start:end])
        )
        markers = markers.rstrip()
        lines.append(Content(" " * LABEL_WIDTH) + Content.styled(markers, MARKER_STYLE) if markers else Content(""))
    return lines


class CompareView(Widget):
    """Aligned token rows for up to four tokenizers, re-wrapped to the widget's width when it changes."""

    DEFAULT_CSS = """
    CompareView {
        height: auto;
        padding: 0 1;
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._aligned: AlignedText | None = None
        self._cache: tuple[int, list[Content]] | None = None

    def show(self, aligned: AlignedText | None) -> None:
        """Draw ``aligned`` (``None`` clears the view)."""
        self._aligned = aligned
        self._cache = None
        self.refresh(layout=True)

    def _lines(self, width: int) -> list[Content]:
        if self._aligned is None:
            return []
        if self._cache is None or self._cache[0] != width:
            self._cache = (width, render_aligned(self._aligned, width))
        return self._cache[1]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self._lines(width)))

    def render(self) -> Content:
        lines = self._lines(self.content_region.width)
        if not lines:
            return Content.styled("(nothing to compare)", "dim")
        return Content("\n").join(lines)
