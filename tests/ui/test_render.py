"""bpe_tui.render: token spans to Content, glyphs and escapes styled, colours that never repeat between neighbours."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.content import Span

from bpe_tui.render import (
    CURSOR_STYLE,
    ESCAPE_STYLE,
    GLYPH_STYLE,
    ID_STYLE,
    PALETTE,
    SPLIT_PALETTE,
    layout_tokens,
    pick_style,
    token_body,
    token_styles,
    tokens_content,
)
from bpe_tui.text import cell_width


@dataclass(frozen=True)
class T:
    id: int
    token: bytes


def test_token_body_styles_glyphs_and_escapes() -> None:
    body = token_body(b" a\x07\n")
    assert body.plain == "·a\\x07↵\n"
    assert list(body.spans) == [Span(0, 1, GLYPH_STYLE), Span(2, 6, ESCAPE_STYLE), Span(6, 7, GLYPH_STYLE)]


def test_token_body_shows_stray_bytes_in_hex() -> None:
    assert token_body(b"\xe3\x81").plain == "e3 81"
    assert token_body("は".encode()[2:] + "い".encode()).plain == "af い"


def test_styles_follow_ids_and_skip_a_repeat() -> None:
    tokens = [T(0, b"a"), T(6, b"b"), T(12, b"c"), T(3, b"d")]
    # 0 -> PALETTE[0]; 6 -> PALETTE[0] again, so PALETTE[1]; 12 -> PALETTE[0] (differs from [1]); 3 -> [3]
    assert token_styles(tokens) == [PALETTE[0], PALETTE[1], PALETTE[0], PALETTE[3]]


def test_split_tokens_use_the_split_palette() -> None:
    tokens = [T(300, b"\xe3\x81"), T(302, b"\x82\xe3"), T(7, "の".encode())]
    assert token_styles(tokens) == [SPLIT_PALETTE[0], SPLIT_PALETTE[1], PALETTE[1]]


@given(st.lists(st.tuples(st.integers(0, 60), st.binary(min_size=1, max_size=4)), max_size=40))
def test_neighbours_never_share_a_colour(items: list[tuple[int, bytes]]) -> None:
    styles = token_styles([T(token_id, token) for token_id, token in items])
    assert all(a != b for a, b in zip(styles, styles[1:]))


def test_tokens_content_exact() -> None:
    content = tokens_content([T(72, b"Hi"), T(220, b" "), T(10, b"\n"), T(1, "日".encode())])
    assert content.plain == "Hi·↵\n日"
    assert list(content.spans) == [
        Span(0, 2, PALETTE[0]),
        Span(2, 3, PALETTE[4]),
        Span(2, 3, GLYPH_STYLE),
        Span(3, 5, PALETTE[5]),  # id 10 -> 4 would repeat the previous colour
        Span(3, 4, GLYPH_STYLE),
        Span(5, 6, PALETTE[1]),
    ]
    assert content.cell_length == cell_len("Hi·↵") + cell_len("日")


def test_tokens_content_ids_and_cursor() -> None:
    content = tokens_content([T(72, b"Hi"), T(10, b"\n"), T(99, b"x")], show_ids=True, cursor=2)
    assert content.plain == "Hi₇₂↵₁₀\nx₉₉"
    assert Span(2, 4, ID_STYLE) in content.spans
    assert Span(8, 11, CURSOR_STYLE) in content.spans


def test_japanese_is_double_width() -> None:
    content = tokens_content([T(1000, "日本語".encode())])
    assert content.cell_length == 6


@pytest.mark.parametrize("mark", ["\u0e31", "\u094d", "\u0301", "\u1161", "\u0301\u0301"])
def test_a_token_starting_with_a_zero_width_mark_takes_a_cell(mark: str) -> None:
    # "สวัสดี" as GPT-2-like tokens: the lone mark took no cell, so the terminal drew it on the token before
    # and the cursor on it showed nowhere. It sits on a dotted circle, as in code charts.
    tokens = [T(1, "สว".encode()), T(2, mark.encode()), T(3, ("สด" + mark).encode())]
    layout = layout_tokens(tokens)
    middle = layout.content[layout.offsets[1] : layout.offsets[2]]
    assert middle.plain == "◌" + mark and middle.cell_length == 1
    assert layout.content[layout.offsets[2] :].plain == "สด" + mark  # a mark inside a token stays on its letter
    cursor = layout.with_cursor(1).spans[-1]
    assert layout.content.plain[cursor.start : cursor.end] == "◌" + mark


def test_a_token_starting_with_a_spacing_vowel_sign_has_its_own_cell() -> None:
    # Devanagari ि is a spacing mark: a terminal gives it a cell of its own, so it needs no dotted circle.
    layout = layout_tokens([T(1, "ह".encode()), T(2, "\u093f".encode())])
    middle = layout.content[layout.offsets[1] :]
    assert middle.plain == "\u093f" and middle.cell_length == 1


def test_an_emoji_presentation_selector_is_written_out() -> None:
    # ❤️ took one cell in tmux and two in Rich's count, so a folded line holding it lost its last cells.
    layout = layout_tokens([T(1, "❤️".encode()), T(2, "\ufe0f".encode())])
    assert layout.content.plain == "❤\\ufe0f\\ufe0f"
    assert layout.content.cell_length == cell_width(layout.content.plain) == 13


def test_markup_is_never_parsed() -> None:
    content = tokens_content([T(1, b"[red]x[/red]")])
    assert content.plain == "[red]x[/red]"


def test_layout_offsets_and_cursor_overlay() -> None:
    layout = layout_tokens([T(72, b"Hi"), T(10, b"\n"), T(99, b"x")])
    assert layout.content.plain == "Hi↵\nx"
    assert layout.offsets == (0, 2, 4, 5)
    assert layout.with_cursor(1).spans[-1] == Span(2, 4, CURSOR_STYLE)
    assert layout.with_cursor(None) is layout.content
    assert layout.with_cursor(7) is layout.content


def test_pick_style() -> None:
    assert pick_style(7, False, previous="") == PALETTE[1]
    assert pick_style(7, False, previous=PALETTE[1]) == PALETTE[2]
    assert pick_style(5, False, previous=PALETTE[5]) == PALETTE[0]
    assert pick_style(1, True, previous=SPLIT_PALETTE[1]) == SPLIT_PALETTE[0]
