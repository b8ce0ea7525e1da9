"""A tokenized text with its boundaries drawn as colours and a token cursor moved from the keyboard."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.binding import Binding
from textual.content import Content
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from bpe_tui.render import TokenLayout, TokenLike, layout_tokens


class TokenView(Widget, can_focus=True):
    """Shows spans as coloured tokens; left/right move a cursor whose token the screen describes.

    The row is laid out once per change of tokens or of the ids toggle (``TokenLayout``); moving the
    cursor only adds one span on top, so it stays quick on a sample of thousands of tokens.
    """

    DEFAULT_CSS = """
    TokenView {
        height: auto;
        padding: 0 1;
    }
    TokenView:focus {
        background-tint: $foreground 4%;
    }
    """

    BINDINGS = [
        Binding("right", "move(1)", "Next token", show=False),
        Binding("left", "move(-1)", "Prev token", show=False),
        Binding("ctrl+right", "move(10)", "10 tokens on", show=False),
        Binding("ctrl+left", "move(-10)", "10 tokens back", show=False),
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

    show_ids: reactive[bool] = reactive(False, layout=True)
    """Write each token's id after it, in subscript digits."""

    cursor: reactive[int | None] = reactive(None)
    """Index of the highlighted token, ``None`` when the row is empty or the view shows no cursor."""

    def __init__(
        self,
        tokens: Sequence[TokenLike] = (),
        *,
        with_cursor: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._tokens: tuple[TokenLike, ...] = tuple(tokens)
        self._with_cursor = with_cursor
        self._layout: TokenLayout | None = None
        self.can_focus = with_cursor

    @property
    def tokens(self) -> tuple[TokenLike, ...]:
        return self._tokens

    def set_tokens(self, tokens: Sequence[TokenLike]) -> None:
        """Show a new row; the cursor goes back to the first token."""
        self._tokens = tuple(tokens)
        self._layout = None
        self.cursor = 0 if (self._tokens and self._with_cursor) else None
        self.refresh(layout=True)

    def watch_show_ids(self) -> None:
        self._layout = None

    def watch_cursor(self, cursor: int | None) -> None:
        self.refresh()
        if cursor is not None and cursor < len(self._tokens):
            self.post_message(self.Highlighted(self, cursor, self._tokens[cursor]))
            self.call_after_refresh(self._scroll_to_cursor)

    def _get_layout(self) -> TokenLayout:
        if self._layout is None:
            self._layout = layout_tokens(self._tokens, show_ids=self.show_ids)
        return self._layout

    def render(self) -> Content:
        if not self._tokens:
            return Content.styled("(no text)", "dim")
        return self._get_layout().with_cursor(self.cursor)

    def _scroll_to_cursor(self) -> None:
        """Bring the cursor's line into view in the scrolling parent.

        The line is found by wrapping the text before the cursor at the view's width; the last line
        may wrap a little differently once the rest of its word follows, which is close enough here.
        """
        parent = self.parent
        if self.cursor is None or not self._tokens or not isinstance(parent, Widget):
            return
        layout = self._get_layout()
        width = max(1, self.content_region.width)
        before = layout.content.plain[: layout.offsets[self.cursor]].split("\n")
        line = sum(len(Content(part).wrap(width)) for part in before) - 1
        top = self.virtual_region.y + self.styles.gutter.top
        parent.scroll_to_region(Region(0, top + line, 1, 1), animate=False, immediate=True)

    def action_move(self, step: int) -> None:
        if self.cursor is None:
            return
        self.cursor = min(max(self.cursor + step, 0), len(self._tokens) - 1)

    def action_jump(self, index: int) -> None:
        if self.cursor is None:
            return
        self.cursor = index % len(self._tokens)
