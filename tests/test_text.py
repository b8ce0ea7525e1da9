"""bpe_tui.text: the one token escaper, byte sizes, rates and ETAs that the CLI and the app share."""

from __future__ import annotations

import ast
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from bpe_tui.text import (
    escape_char,
    escape_token,
    eta,
    format_bytes,
    format_duration,
    format_eta,
    format_rate,
    hex_bytes,
    is_split,
    rate,
    token_pieces,
)

UNSHOWABLE = {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"}


def test_hex_bytes() -> None:
    assert hex_bytes(b"\xe3\x81") == "e3 81"
    assert hex_bytes(b"") == ""


def test_token_pieces_split_character_both_ends() -> None:
    # "のは": e3 81 ae | e3 81 af ; a token [81 ae e3] holds the tail of の and the head of は.
    assert token_pieces(b"\x81\xae\xe3") == [("bytes", b"\x81\xae\xe3")]
    assert token_pieces(b"\xaeX\xe3\x81") == [("bytes", b"\xae"), ("text", "X"), ("bytes", b"\xe3\x81")]
    assert token_pieces(b"\xff") == [("bytes", b"\xff")]
    assert token_pieces(b"") == []


def test_token_pieces_emoji_and_japanese_whole() -> None:
    assert token_pieces("😀日".encode()) == [("text", "😀日")]
    assert not is_split("😀日".encode()) and is_split("😀".encode()[:3])


def test_escape_char() -> None:
    assert escape_char("\x07") == "\\x07"
    assert escape_char("\x1b") == "\\x1b"
    assert escape_char("\r") == "\\r"
    assert escape_char("\n") == "\\n" and escape_char("\t") == "\\t"
    assert escape_char("\x00") == "\\x00"  # not "\0": followed by a digit it would read as an octal escape
    assert escape_char("\x85") == "\\u0085"  # C1 control: a code point, not the stray byte \x85
    assert escape_char("\u200b") == "\\u200b"  # zero-width space, invisible otherwise
    assert escape_char("\u202e") == "\\u202e"  # right-to-left override: would reorder the terminal line
    assert escape_char("\u2028") == "\\u2028"
    for ch in (" ", "a", "あ", "😀", "\\", '"'):
        assert escape_char(ch) is None


def test_escape_token_for_people() -> None:
    assert escape_token(b" the") == "·the"
    assert escape_token("日本".encode()) == "日本"
    assert escape_token(b"\xe3\x81") == "\\xe3\\x81"
    assert escape_token(b"\x82 x") == "\\x82·x"
    assert escape_token(b"\n\n") == "↵↵"
    assert escape_token(b"\r\n\t ") == "\\r↵→·"
    assert escape_token(b"\x1b[31m") == "\\x1b[31m"
    assert escape_token(b"[bold]x[/bold]") == "[bold]x[/bold]"  # no markup anywhere
    assert escape_token("a b\tc\nd\x07") == "a·b→c↵d\\x07"  # text as well as bytes


def test_escape_token_quoted_for_scripts() -> None:
    assert escape_token(b" the", glyphs=False, quote=True) == '" the"'
    assert escape_token(b"a\nb", glyphs=False, quote=True) == '"a\\nb"'
    assert escape_token('"q"\\'.encode(), glyphs=False, quote=True) == '"\\"q\\"\\\\"'
    assert escape_token("日".encode()[:1], glyphs=False, quote=True) == '"\\xe6"'
    assert escape_token("\u202e".encode(), glyphs=False, quote=True) == '"\\u202e"'


def test_escape_token_limit_never_cuts_an_escape() -> None:
    assert escape_token("日本語".encode()[:-1], limit=32) == "日本\\xe8\\xaa"
    assert escape_token(b"x" * 100, limit=8) == "xxxxxxx…"
    assert escape_token(b"ab\xe3\x81", limit=6) == "ab…"
    assert escape_token(b"x" * 10, glyphs=False, quote=True, limit=4) == '"xxx…"'


@given(st.binary(max_size=40))
def test_escaped_tokens_hold_nothing_a_terminal_would_act_on(token: bytes) -> None:
    for shown in (escape_token(token), escape_token(token, glyphs=False, quote=True)):
        assert not any(unicodedata.category(ch) in UNSHOWABLE for ch in shown)


@given(st.binary(max_size=40), st.integers(min_value=1, max_value=12))
def test_a_limited_token_fits_and_starts_like_the_whole(token: bytes, limit: int) -> None:
    whole, cut = escape_token(token), escape_token(token, limit=limit)
    assert len(cut) <= limit
    assert cut == whole or (cut.endswith("…") and whole.startswith(cut[:-1]))


@given(st.text(max_size=40))
def test_quoted_text_reads_back_as_a_python_string(text: str) -> None:
    # The quoted form is unambiguous: Python's own string syntax gives back exactly the text.
    assert ast.literal_eval(escape_token(text, glyphs=False, quote=True)) == text


def test_format_bytes_uses_binary_units() -> None:
    assert format_bytes(0) == "0 B"
    assert format_bytes(1023) == "1023 B"
    assert format_bytes(1024) == "1.0 KiB"
    assert format_bytes(48 << 20) == "48.0 MiB"
    assert format_bytes(3 << 30) == "3.0 GiB"
    assert format_bytes(2048 << 40) == "2048.0 TiB"


def test_rates() -> None:
    assert rate(10, 2.0) == 5.0
    assert rate(0, 2.0) is None and rate(10, 0.0) is None
    assert format_rate(1_000.0, "merges") == "1,000 merges/s"
    assert format_rate(1536.0, "B") == "1.5 KiB/s"
    assert format_rate(None, "B") == "— B/s"


def test_eta_and_its_wording() -> None:
    assert eta(50, 100, 10.0) == 10.0
    assert eta(100, 100, 10.0) == 0.0
    assert eta(0, 100, 10.0) is None and eta(10, 0, 10.0) is None
    assert format_eta(9.0) == "ETA 9.0 s"
    assert format_eta(3725.0) == "ETA 1h 02m"
    assert format_eta(None) == "ETA —"
    assert format_duration(59.94) == "59.9 s" and format_duration(60) == "1m 00s"


def test_spaces_other_than_the_space_are_written_out_for_people() -> None:
    """An ideographic space (U+3000, 19 of them in the Japanese sample) or a no-break space was a blank in
    the merge table, the vocabulary and the longest tokens: it could not be told from a space, or seen.
    Drawn for people it is its code point; for scripts (``glyphs=False``) it stays itself."""
    from bpe_tui.text import escape_token

    assert escape_token("\u3000猫".encode()) == "\\u3000猫"
    assert escape_token("a\u00a0b\u2009c") == "a\\u00a0b\\u2009c"
    assert escape_token(" x") == "·x"
    assert escape_token("\u3000\u00a0", glyphs=False) == "\u3000\u00a0"


def test_presentation_selectors_are_written_out_for_people() -> None:
    """U+FE0F after ❤ made it one cell in xterm, VTE and tmux, two in kitty and Rich's count: a table row
    holding one lined up in neither. Drawn for people it is its code point; scripts get it as it is."""
    from bpe_tui.text import escape_token

    assert escape_token("❤️".encode()) == "❤\\ufe0f"
    assert escape_token(" ☺\ufe0e") == "·☺\\ufe0e"
    assert escape_token("❤️".encode(), glyphs=False, quote=True) == '"❤️"'


def test_variation_selectors_are_written_out_for_people() -> None:
    """A variation selector shows as nothing on a terminal: a token of one alone (U+E0100, learnt from the
    names in legal or address text) was a blank in the longest tokens and the vocabulary, and ``葛`` +
    U+E0100 or ``☺`` + U+FE0F passed for ``葛`` or ``☺``. Drawn for people each is its code point; for
    scripts (``glyphs=False``) it stays itself."""
    from bpe_tui.text import escape_token

    assert escape_token("\U000e0100".encode()) == "\\U000e0100"
    assert escape_token("葛\U000e0100飾") == "葛\\U000e0100飾"
    assert escape_token("\u263a\ufe0f") == "\u263a\\ufe0f"
    assert escape_token("葛\U000e0100", glyphs=False, quote=True) == '"葛\U000e0100"'
