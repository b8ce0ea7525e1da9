"""The vocabulary as a searchable table, drawn line by line so a 50k-token vocabulary costs only what is on screen.

A ``DataTable`` measures and stores every cell of every row up front, which takes seconds for GPT-2's
50,257 tokens. Here the rows are plain tuples built once in a worker (``build_rows``), a filter is a
list of row indices (``filter_rows``), and ``render_line`` formats only the visible rows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rich.segment import Segment
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from bpe_tui.text import escape_token, hex_bytes
from bpe_tui.widgets.line_table import GAP, LineTable, fit_cells, line_width
from core.analysis.merge_tree import MergeIndex
from core.model import BPEModel


@dataclass(frozen=True, slots=True)
class VocabRow:
    """One vocabulary entry, with everything the table shows already formatted.

    Attributes:
        id: the token id.
        token: the token's bytes.
        shown: the token made safe for display (``escape_token``).
        rank: the merge that made it, ``None`` for bytes and specials.
        parents: the merged pair, made safe and joined, ``""`` when there is none.
        count: the pair count when it was merged, ``None`` when unknown.
        key: lower-cased decoded text, what a text query is matched against.
    """

    id: int
    token: bytes
    shown: str
    rank: int | None
    parents: str
    count: int | None
    key: str


def build_rows(model: BPEModel, index: MergeIndex) -> list[VocabRow]:
    """One row per vocabulary entry, by id. Meant for a worker thread: a large vocabulary takes a noticeable time."""
    rows: list[VocabRow] = []
    for token_id in sorted(model.vocab):
        token = model.vocab[token_id]
        pair = index.parents(token)
        rows.append(
            VocabRow(
                id=token_id,
                token=token,
                shown=escape_token(token),
                rank=index.rank_of(token),
                parents=f"{escape_token(pair[0])} + {escape_token(pair[1])}" if pair else "",
                count=index.count_of(token),
                key=token.decode("utf-8", errors="replace").casefold(),
            )
        )
    return rows


_HEX_QUERY = re.compile(r"[0-9a-fA-F]{2}(?: [0-9a-fA-F]{2})+")
_HEX_BYTE = re.compile(r"[0-9a-fA-F]{2}")


def filter_rows(rows: Sequence[VocabRow], query: str) -> list[int]:
    """Indices of the rows matching ``query``; every row for an empty query.

    A query matches a row whose decoded text contains it (ignoring case), whose id it is (digits), or,
    for two or more spaced hex pairs such as ``e3 81``, whose bytes contain those bytes. A single hex
    pair such as ``0a`` also finds the token of that one byte; only that one, since tokens merely holding
    the byte would swamp the text matches of queries like ``de`` (byte ``de`` is in many Japanese tokens).

    >>> rows = [VocabRow(0, b"The", "The", None, "", None, "the"), VocabRow(1, b"\\xe3\\x81", "", 0, "", 9, "")]
    >>> filter_rows(rows, "th"), filter_rows(rows, "1"), filter_rows(rows, "E3 81"), filter_rows(rows, "")
    ([0], [1], [1], [0, 1])
    >>> rows.append(VocabRow(10, b"\\n", "↵", None, "", None, "\\n"))
    >>> filter_rows(rows, "0a"), filter_rows(rows, "0A")
    ([2], [2])
    """
    if not query:
        return list(range(len(rows)))
    needle = query.casefold()
    # isdecimal, not isdigit: "²" is a digit that int() refuses; int() also refuses 4,301 digits.
    wanted_id = int(query) if query.isdecimal() and len(query) <= 9 else None
    wanted_bytes = bytes.fromhex(query) if _HEX_QUERY.fullmatch(query) else None
    wanted_byte = bytes.fromhex(query) if _HEX_BYTE.fullmatch(query) else None
    return [
        position
        for position, row in enumerate(rows)
        if needle in row.key
        or row.id == wanted_id
        or (wanted_bytes is not None and wanted_bytes in row.token)
        or row.token == wanted_byte
    ]


COLUMNS: tuple[tuple[str, int, bool], ...] = (
    ("id", 6, True),
    ("token", 16, False),
    ("len", 4, True),
    ("rank", 6, True),
    ("count", 8, True),
    ("parents", 24, False),
    ("bytes", 30, False),
)
"""(title, least width in cells, right-aligned). Most telling first, so an 80-column terminal shows them:
up to the count they take 45 cells, what the table has beside the side panel (with id 7 and token 20 the
count was cut to its first digit). Text columns are cut to their width with an ellipsis; number columns
widen to fit (:func:`column_widths`)."""


def column_widths(rows: Sequence[VocabRow]) -> tuple[int, ...]:
    """Each column's width for ``rows``: a number is never cut, so number columns widen to the widest one.

    Counts from a large corpus run to ten digits and more (``4,993,210`` was drawn ``4,993,2…``).

    >>> column_widths([VocabRow(7, b"a", "a", 3, "", 4_993_210, "a")])[4]
    9
    >>> column_widths([]) == tuple(width for _, width, _ in COLUMNS)
    True
    """
    widest = {
        "id": max((row.id for row in rows), default=0),
        "len": max((len(row.token) for row in rows), default=0),
        "rank": max((row.rank or 0 for row in rows), default=0),
    }
    widths = []
    for title, width, _ in COLUMNS:
        if title == "count":
            width = max(width, len(f"{max((row.count or 0 for row in rows), default=0):,}"))
        elif title in widest:
            width = max(width, len(str(widest[title])))
        widths.append(width)
    return tuple(widths)


def _cells(row: VocabRow) -> tuple[str, ...]:
    return (
        str(row.id),
        row.shown,
        str(len(row.token)),
        "—" if row.rank is None else str(row.rank),
        "—" if row.count is None else f"{row.count:,}",
        row.parents,
        hex_bytes(row.token),
    )


class VocabTable(LineTable):
    """Vocabulary rows with a header and a row cursor; only the visible lines are ever formatted."""

    COMPONENT_CLASSES = {"vocab-table--special"}

    DEFAULT_CSS = """
    VocabTable > .vocab-table--special { color: $readable-warning; }
    """

    @dataclass
    class RowHighlighted(Message):
        """The row under the cursor changed."""

        vocab_table: VocabTable
        row: VocabRow

        @property
        def control(self) -> VocabTable:
            return self.vocab_table

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._rows: list[VocabRow] = []
        self._visible: list[int] = []
        self._specials: frozenset[bytes] = frozenset()
        self._widths = column_widths([])

    @property
    def row_count(self) -> int:
        return len(self._visible)

    @property
    def visible_count(self) -> int:
        return len(self._visible)

    @property
    def total_count(self) -> int:
        return len(self._rows)

    @property
    def current_row(self) -> VocabRow | None:
        if not self._visible:
            return None
        return self._rows[self._visible[min(self.cursor, len(self._visible) - 1)]]

    def set_rows(self, rows: list[VocabRow], specials: frozenset[bytes] = frozenset()) -> None:
        """Show a new vocabulary, unfiltered."""
        self._rows = rows
        self._specials = specials
        self._widths = column_widths(rows)
        self.set_visible(list(range(len(rows))))

    def set_visible(self, visible: list[int]) -> None:
        """Show only the rows at these indices (a filter's result); the cursor goes to the top."""
        self._visible = visible
        self.virtual_size = Size(line_width(self._widths), len(visible) + 1)
        self.scroll_to(y=0, animate=False, immediate=True, force=True)
        self.set_reactive(VocabTable.cursor, 0)  # no watcher: it would announce a second time
        self._announce()
        self.refresh()

    def _announce(self) -> None:
        row = self.current_row
        if row is not None:
            self.post_message(self.RowHighlighted(self, row))

    def _cursor_moved(self) -> None:
        self._announce()

    def show_at_top(self, position: int) -> None:
        """Put the cursor on ``position`` and scroll it to the top row (once the new rows are laid out)."""
        if not 0 <= position < len(self._visible):
            return
        self.cursor = position
        self.scroll_to(y=position, animate=False, immediate=True, force=True)
        self.call_after_refresh(self.scroll_to, y=position, animate=False, immediate=True, force=True)

    def render_line(self, y: int) -> Strip:
        right = tuple(right for _, _, right in COLUMNS)
        if y == 0:
            return self.header_strip(tuple(title for title, _, _ in COLUMNS), self._widths, right)
        position = self.scroll_offset.y + y - 1
        if position >= len(self._visible):
            return Strip.blank(self.scrollable_content_region.width, self.rich_style)
        row = self._rows[self._visible[position]]
        special = row.token in self._specials
        style = self.row_style(position, self.get_component_rich_style("vocab-table--special", partial=True)
                               if special else None)
        text = GAP.join(fit_cells(*cell) for cell in zip(_cells(row), self._widths, right))
        return self.crop(Strip([Segment(" " + text, style)]), style)
