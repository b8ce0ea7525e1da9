"""A tokenized text with its boundaries drawn as colours and a token cursor moved from the keyboard.

A Line-API ``ScrollView``: the row is laid out once (``layout_tokens``), cut into display lines once
per width, and each refresh formats only the lines on screen, so moving the cursor through a sample of
thousands of tokens costs a few lines of work, not a re-wrap of the whole text.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from rich.segment import Segment
from textual import events
from textual.binding import Binding
from textual.content import Content, Span
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style

from bpe_tui.render import CURSOR_STYLE, TokenLayout, TokenLike, fold_points, layout_tokens

EMPTY_TEXT = "(no text)"


@dataclass(frozen=True, slots=True)
class DisplayLines:
    """A row cut into display lines at one width.

    Attributes:
        starts: offset in the row's text where each line starts.
        lines: each line's content, without its line break.
    """

    starts: tuple[int, ...]
    lines: tuple[Content, ...]


def display_lines(content: Content, width: int) -> DisplayLines:
    """Cut ``content`` at its newlines (dropping them) and fold each line to ``width`` cells.

    >>> cut = display_lines(Content("ab↵\\ncdef"), 3)
    >>> cut.starts, [line.plain for line in cut.lines]
    ((0, 4, 7), ['ab↵', 'cde', 'f'])
    """
    plain = content.plain
    newlines = [offset for offset, ch in enumerate(plain) if ch == "\n"]
    cuts = sorted({*fold_points(plain, width), *newlines, *(offset + 1 for offset in newlines)} - {0, len(plain)})
    starts: list[int] = []
    lines: list[Content] = []
    for start, piece in zip((0, *cuts), content.divide(cuts)):
        if piece.plain and piece.plain != "\n":
            starts.append(start)
            lines.append(piece)
    return DisplayLines(tuple(starts), tuple(lines))


class TokenView(ScrollView, can_focus=True):
    """Shows spans as coloured tokens; left/right move a cursor whose token the screen describes."""

    DEFAULT_CSS = """
    TokenView {
        height: 1fr;
        padding: 0 1;
        overflow-x: hidden;
    }
    """

    BINDINGS = [
        Binding("right", "move(1)", "Next token", show=False),
        Binding("left", "move(-1)", "Prev token", show=False),
        Binding("ctrl+right", "move(10)", "10 tokens on", show=False),
        Binding("ctrl+left", "move(-10)", "10 tokens back", show=False),
        Binding("down", "line(1)", "Line down", show=False),
        Binding("up", "line(-1)", "Line up", show=False),
        Binding("home", "jump(0)", "First token", show=False),
        Binding("end", "jump(-1)", "Last token", show=False),
    ]

    @dataclass
    class Highlighted(Message):
        """The token under the cursor changed."""

        token_view: TokenView
        index: int
        """Position of the token in the row."""
        token: TokenLike
        """The span under the cursor."""

        @property
        def control(self) -> TokenView:
            return self.token_view

    show_ids: reactive[bool] = reactive(False)
    """Write each token's id after it, in subscript digits."""

    cursor: reactive[int | None] = reactive(None)
    """Index of the highlighted token, ``None`` when the row is empty."""

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._tokens: tuple[TokenLike, ...] = ()
        self._layout: TokenLayout | None = None
        self._lines: tuple[int, DisplayLines] | None = None

    @property
    def tokens(self) -> tuple[TokenLike, ...]:
        return self._tokens

    def set_tokens(self, tokens: Sequence[TokenLike]) -> None:
        """Show a new row; the cursor goes back to the first token."""
        self._tokens = tuple(tokens)
        self._relayout()
        self.scroll_to(y=0, animate=False, immediate=True, force=True)
        self.set_reactive(TokenView.cursor, 0 if self._tokens else None)
        self._announce()

    def watch_show_ids(self) -> None:
        self._relayout()
        self.call_after_refresh(self._scroll_to_cursor)

    def watch_cursor(self) -> None:
        self.refresh()
        self._announce()
        self._scroll_to_cursor()

    def on_resize(self, event: events.Resize) -> None:
        self._update_virtual_size()

    # -- layout ----------------------------------------------------------------------------------------

    def _relayout(self) -> None:
        self._layout = layout_tokens(self._tokens, show_ids=self.show_ids) if self._tokens else None
        self._lines = None
        self._update_virtual_size()
        self.refresh()

    def _display(self) -> DisplayLines:
        width = max(2, self.scrollable_content_region.width)
        if self._lines is None or self._lines[0] != width:
            content = self._layout.content if self._layout is not None else Content.styled(EMPTY_TEXT, "dim")
            self._lines = (width, display_lines(content, width))
        return self._lines[1]

    def _update_virtual_size(self) -> None:
        if self.is_mounted:
            self.virtual_size = Size(self.scrollable_content_region.width, len(self._display().lines))

    def _line_of(self, index: int) -> int:
        if self._layout is None:
            return 0
        return max(0, bisect_right(self._display().starts, self._layout.offsets[index]) - 1)

    def _scroll_to_cursor(self) -> None:
        if self.cursor is not None and self._layout is not None:
            region = Region(0, self._line_of(self.cursor), 1, 1)
            self.scroll_to_region(region, animate=False, immediate=True, force=True)

    def _announce(self) -> None:
        if self.cursor is not None and self.cursor < len(self._tokens):
            self.post_message(self.Highlighted(self, self.cursor, self._tokens[self.cursor]))

    # -- drawing ---------------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        display = self._display()
        number = self.scroll_offset.y + y
        if number >= len(display.lines):
            return Strip.blank(width, base)
        line = display.lines[number]
        if self.cursor is not None and self._layout is not None:
            start = display.starts[number]
            token_start = self._layout.offsets[self.cursor] - start
            token_end = self._layout.offsets[self.cursor + 1] - start
            if token_end > 0 and token_start < len(line.plain):
                line = line.add_spans([Span(max(0, token_start), min(len(line.plain), token_end), CURSOR_STYLE)])
        segments = line.render_segments(Style.from_rich_style(base))
        return Strip([*segments, Segment("", base)]).crop_extend(0, width, base)

    # -- actions and mouse -----------------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        if self.cursor is not None:
            self.cursor = min(max(self.cursor + step, 0), len(self._tokens) - 1)

    def action_jump(self, index: int) -> None:
        if self.cursor is not None:
            self.cursor = index % len(self._tokens)

    def action_line(self, step: int) -> None:
        """Move the cursor to the first token starting on the next display line, or to the token at the start
        of the previous one.

        Going down, a token that only continues onto the next line (a wrapped run of hex bytes) is passed
        over: taking it would leave the cursor where it was, and the key would seem dead.
        """
        if self.cursor is None or self._layout is None:
            return
        display = self._display()
        line = self._line_of(self.cursor)
        target = min(max(line + step, 0), len(display.lines) - 1)
        if target == line:
            return
        if step > 0:
            self.cursor = min(bisect_left(self._layout.offsets, display.starts[target]), len(self._tokens) - 1)
        else:
            self.cursor = self._token_at(display.starts[target])

    def _token_at(self, offset: int) -> int:
        assert self._layout is not None
        return min(max(bisect_right(self._layout.offsets, offset) - 1, 0), len(self._tokens) - 1)

    def on_click(self, event: events.Click) -> None:
        """Put the cursor on the token clicked."""
        if self._layout is None:
            return
        display = self._display()
        number = self.scroll_offset.y + event.y
        if not 0 <= number < len(display.lines):
            return
        line = display.lines[number].plain
        cells = 0
        column = event.x - self.styles.gutter.left
        for offset, ch in enumerate(line):
            cells += Content(ch).cell_length
            if cells > column:
                self.cursor = self._token_at(display.starts[number] + offset)
                return
