"""Token spans -> Textual ``Content``: boundaries as alternating colours, whitespace as glyphs, bytes made safe.

Token text comes from arbitrary corpora and files, so it is never treated as markup: every piece of
output is built from plain strings and explicit spans. What a character is shown as (glyph, escape or
itself) comes from :mod:`bpe_tui.text`, shared with the CLI; this module adds the styles: each token on
its own background, escapes and glyphs set apart, a token that starts or ends inside a multi-byte
UTF-8 character showing those bytes in hex (``e3 81``) rather than a bare U+FFFD, and a special token
(``<|endoftext|>``) in a style of its own, so it reads as one marker rather than as text.

Every view that colours tokens picks each token's style with :func:`pick_style`, so the rules (same
token, same colour; neighbours differ; split and special tokens stand apart) hold in all of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from rich.cells import get_character_cell_size
from textual.content import Content, Span

from bpe_tui.terminal_cells import measure_as_terminals
from bpe_tui.text import BASE_GLYPH, GLYPHS, PRESENTATION_SELECTORS, escape_char, hex_bytes, is_split, subscript, token_pieces

measure_as_terminals()  # a Devanagari vowel sign takes a cell, as terminals draw it, before anything is measured

# Terminals over ssh, in tmux without COLORTERM, or with TERM=xterm-256color get these colours downgraded
# (Rich's ``Color.downgrade``, which Textual uses) to the 256-colour cube or to the 16 ANSI colours. Dark,
# muted truecolor shades all land on the same few entries there (the first palette here collapsed to three
# colours at 256 and to one at 16), so neighbouring tokens ran together. Every background below is a colour
# of the 256-colour cube, drawn the same at truecolor and at 256 colours, and each maps to a different one
# of the 16 ANSI colours: no two entries of any palette here, nor the cursor, share a colour at any colour
# system, so "neighbours differ" holds as drawn. tests/ui/test_colour_systems.py computes it.

PALETTE: tuple[str, ...] = (
    "#e6e6e6 on #000087",  # navy:  256-colour 18, ANSI blue
    "#e6e6e6 on #5f005f",  # plum:  53, magenta
    "#e6e6e6 on #005f00",  # green: 22, green
    "#e6e6e6 on #5f5f00",  # olive: 58, yellow
    "#e6e6e6 on #005faf",  # azure: 25, cyan
    "#e6e6e6 on #444444",  # grey:  238, bright black
)
"""Token backgrounds for whole-character tokens; a light foreground on each reads on dark and light themes."""

SPLIT_PALETTE: tuple[str, ...] = ("bold #ffffff on #a11d1d", "bold #000000 on #ff8700")
"""Backgrounds for tokens that start or end inside a character: warm and loud, so they stand out
(256-colour 124 and 208; ANSI red and bright red)."""

SPECIAL_PALETTE: tuple[str, ...] = ("bold italic #000000 on #87d7af", "bold italic #000000 on #87d7ff")
"""Special tokens: dark italic text on a light background, the reverse of ordinary tokens, in colours no
other palette or the cursor uses (256-colour 115 and 117; ANSI white and bright cyan). Two, so that two
special tokens in a row still differ."""

SPECIAL_MARK_STYLE = "#444444"
"""Foreground of glyphs, escapes and ids inside a special token: the light marks of ordinary tokens would
vanish on its light background (at 16 colours they are the very same white)."""

GLYPH_STYLE = "#9a9a9a"
"""Foreground of whitespace glyphs, so ``·`` reads as a marker rather than as text."""

ESCAPE_STYLE = "italic #ffd75f"
"""Foreground of escaped control characters."""

ID_STYLE = "#b8b8b8"
"""Foreground of inline token ids."""

CURSOR_STYLE = "bold #000000 on #ffd75f"
"""The selected token: a colour outside every palette (256-colour 221, ANSI bright yellow), so it is never
mistaken for a neighbour."""


class TokenLike(Protocol):
    """The part of ``core.encode.spans.TokenSpan`` rendering reads."""

    @property
    def id(self) -> int: ...

    @property
    def token(self) -> bytes: ...


def is_special(token: object) -> bool:
    """Whether a token-like object is a special token (``TokenSpan.is_special``; false for objects without it)."""
    return bool(getattr(token, "is_special", False))


@lru_cache(maxsize=1 << 16)
def body_parts(token: bytes) -> tuple[tuple[str, str], ...]:
    """A token's visible form as ``(text, style)`` pieces (``""`` for unstyled), without its background.

    Text has glyphs for whitespace (a newline shows ``↵`` and then really breaks the line) and escapes
    for control characters; stray bytes are hex, set off from the token's text by a plain space (real
    spaces show as ``·``); text that starts with a zero-width character gets a ``◌`` to sit on. Cached: a
    text repeats the same few thousand tokens over and over.

    >>> body_parts(b" a\\n")
    (('·', '#9a9a9a'), ('a', ''), ('↵', '#9a9a9a'), ('\\n', ''))
    >>> body_parts("\u0e31".encode())
    (('◌', '#9a9a9a'), ('ั', ''))
    """
    parts: list[tuple[str, str]] = []
    for kind, value in token_pieces(token):
        if parts:
            parts.append((" ", ""))
        if isinstance(value, bytes):
            parts.append((hex_bytes(value), ""))
            continue
        if get_character_cell_size(value[0]) == 0 and value[0] not in GLYPHS and _escaped(value[0]) is None:
            parts.append((BASE_GLYPH, GLYPH_STYLE))
        for ch in value:
            glyph = GLYPHS.get(ch)
            if glyph is not None:
                parts.append((glyph, GLYPH_STYLE))
                if ch == "\n":
                    parts.append(("\n", ""))
                continue
            escaped = _escaped(ch)
            parts.append((escaped, ESCAPE_STYLE) if escaped is not None else (ch, ""))
    return tuple(parts)


def _escaped(ch: str) -> str | None:
    """How ``ch`` is written out in a token row, ``None`` if it is drawn as itself: as :func:`escape_char`
    says, and a presentation selector as its code point (no two terminals agree on the width of ``❤️``).

    >>> _escaped("\\ufe0f"), _escaped("\\x1b"), _escaped("a")
    ('\\\\ufe0f', '\\\\x1b', None)
    """
    if ch in PRESENTATION_SELECTORS:
        return f"\\u{ord(ch):04x}"
    return escape_char(ch)


def token_body(token: bytes) -> Content:
    """:func:`body_parts` as Content.

    >>> token_body(b"\\x82 \\xe3\\x81").plain
    '82 · e3 81'
    """
    return Content.assemble(*body_parts(token), strip_control_codes=False)


def pick_style(token_id: int, split: bool, previous: str, *, special: bool = False) -> str:
    """The background for a token, given its neighbour's: from its id, or the next entry if that repeats.

    A token's colour comes from its id, so the same token looks the same wherever it appears. Tokens
    that split a character draw from ``SPLIT_PALETTE`` instead, and special tokens from
    ``SPECIAL_PALETTE``, under the same rule; the palettes share no entry, so a split or special token
    always differs from its ordinary neighbours.

    >>> pick_style(6, False, previous=PALETTE[0]) == PALETTE[1]
    True
    >>> pick_style(256, False, previous="", special=True) in SPECIAL_PALETTE
    True
    """
    palette = SPECIAL_PALETTE if special else SPLIT_PALETTE if split else PALETTE
    index = token_id % len(palette)
    if palette[index] == previous:
        index = (index + 1) % len(palette)
    return palette[index]


def token_styles(tokens: Iterable[TokenLike]) -> list[str]:
    """The background style of each token in a row, so that no two neighbours share one (see :func:`pick_style`).

    A token with a true ``is_special`` attribute (as ``TokenSpan`` has) is styled as a special token.

    >>> from types import SimpleNamespace as T
    >>> styles = token_styles([T(id=0, token=b"a"), T(id=6, token=b"b"), T(id=1, token=b"c")])
    >>> styles == [PALETTE[0], PALETTE[1], PALETTE[2]]
    True
    """
    styles: list[str] = []
    previous = ""
    for item in tokens:
        previous = pick_style(item.id, is_split(item.token), previous, special=is_special(item))
        styles.append(previous)
    return styles


@dataclass(frozen=True, slots=True)
class TokenLayout:
    """A rendered token row and where each token sits in it, so a cursor can be drawn without re-rendering.

    Attributes:
        content: the row, every token on its background.
        offsets: ``offsets[i]`` to ``offsets[i + 1]`` is token ``i`` in ``content.plain``.
    """

    content: Content
    offsets: tuple[int, ...]

    def with_cursor(self, index: int | None) -> Content:
        """The row with token ``index`` drawn in ``CURSOR_STYLE`` (unchanged for ``None`` or out of range)."""
        if index is None or not 0 <= index < len(self.offsets) - 1:
            return self.content
        return self.content.add_spans([Span(self.offsets[index], self.offsets[index + 1], CURSOR_STYLE)])


def layout_tokens(tokens: Sequence[TokenLike], *, show_ids: bool = False) -> TokenLayout:
    """Render a tokenized text: each token on its own background, neighbours always differing.

    Args:
        tokens: the spans of the text, in order.
        show_ids: follow each token by its id in subscript digits (before a line break it ends with).

    >>> from types import SimpleNamespace as T
    >>> layout = layout_tokens([T(id=72, token=b"Hi"), T(id=10, token=b"\\n")], show_ids=True)
    >>> layout.content.plain, layout.offsets
    ('Hi₇₂↵₁₀\\n', (0, 4, 8))
    """
    styles = token_styles(tokens)
    text: list[str] = []
    spans: list[Span] = []
    offsets = [0]
    position = 0
    for item, style in zip(tokens, styles):
        parts = body_parts(item.token)
        special = is_special(item)
        if special:
            parts = tuple((piece, SPECIAL_MARK_STYLE if inner else "") for piece, inner in parts)
        if show_ids:
            label = (subscript(item.id), SPECIAL_MARK_STYLE if special else ID_STYLE)
            parts = (*parts[:-1], label, parts[-1]) if parts and parts[-1][0] == "\n" else (*parts, label)
        inner_spans: list[Span] = []
        token_start = position
        for piece, inner in parts:
            if inner:
                inner_spans.append(Span(position, position + len(piece), inner))
            text.append(piece)
            position += len(piece)
        spans.append(Span(token_start, position, style))  # the background first: inner styles go on top
        spans.extend(inner_spans)
        offsets.append(position)
    return TokenLayout(Content("".join(text), spans, strip_control_codes=False), tuple(offsets))


def tokens_content(
    tokens: Sequence[TokenLike],
    *,
    show_ids: bool = False,
    cursor: int | None = None,
) -> Content:
    """:func:`layout_tokens` as Content, with an optional cursor token.

    >>> from types import SimpleNamespace as T
    >>> tokens_content([T(id=72, token=b"Hi"), T(id=10, token=b"\\n")], show_ids=True).plain
    'Hi₇₂↵₁₀\\n'
    """
    return layout_tokens(tokens, show_ids=show_ids).with_cursor(cursor)


def fold_points(plain: str, width: int) -> list[int]:
    """Offsets where ``plain`` must break so that no line is wider than ``width`` cells.

    Token rows hold no spaces (they are drawn as ``·``), so word wrapping would leave ragged lines or
    wrap inside the hex of split bytes; rows are folded by cells instead, double-width characters
    never cut in half. Existing newlines reset the count and are not listed.

    >>> fold_points("abcde\\nab日本", 3)
    [3, 8, 9]
    """
    points: list[int] = []
    width = max(width, 2)
    used = 0
    for offset, ch in enumerate(plain):
        if ch == "\n":
            used = 0
            continue
        cells = get_character_cell_size(ch)
        if used + cells > width and used:
            points.append(offset)
            used = 0
        used += cells
    return points
