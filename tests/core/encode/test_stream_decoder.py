"""The streaming decoder: whole characters as soon as they form, held-back bytes visible, same text as decode."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.encode.stream_decoder import StreamDecoder
from core.encode.tokenizer import InvalidTokenIdError
from tests.core.encode.tokenizer_cases import gpt2_tokenizer, small_tokenizer

TEXTS = ["吾輩は猫である。名前はまだ無い。", "I 🙂 Python 🐍, 👩‍👩‍👧 and 🇯🇵!", "mixed: é, ß, の, 😀😀"]


@pytest.mark.parametrize("text", TEXTS)
def test_feeding_gpt2_ids_one_at_a_time_gives_the_text(text) -> None:
    tok = gpt2_tokenizer()
    ids = tok.encode(text)
    data = text.encode("utf-8")
    decoder = StreamDecoder(tok)
    shown = ""
    held_somewhere = False
    position = 0
    for token_id in ids:
        shown += decoder.feed(token_id)
        position += len(tok.decode_single_token_bytes(token_id))
        # What is shown is exactly the whole characters so far; the rest is pending, as bytes.
        done = len(data[:position].decode("utf-8", errors="ignore").encode("utf-8"))
        assert shown.encode("utf-8") == data[:done]
        assert decoder.pending == data[done:position]
        held_somewhere |= bool(decoder.pending)
    assert shown + decoder.flush() == text
    assert held_somewhere, "these texts have characters split across GPT-2 tokens"


def test_pending_shows_the_bytes_of_a_split_character() -> None:
    tok = small_tokenizer()
    decoder = StreamDecoder(tok)
    first, second = tok.encode("あ")  # e3 81 | 82
    assert decoder.feed(first) == "" and decoder.pending == b"\xe3\x81"
    assert decoder.feed(second) == "あ" and decoder.pending == b""


def test_flush_turns_leftovers_into_replacement_and_restarts() -> None:
    decoder = StreamDecoder(small_tokenizer())
    assert decoder.feed_many([104, 0xE3, 0x81]) == "h"
    assert decoder.flush() == "\ufffd"
    assert decoder.pending == b"" and decoder.feed(105) == "i"


def test_reset_drops_pending_bytes() -> None:
    decoder = StreamDecoder(small_tokenizer())
    decoder.feed(0xE3)
    decoder.reset()
    assert decoder.pending == b"" and decoder.flush() == ""


def test_invalid_id_raises_and_keeps_the_stream() -> None:
    decoder = StreamDecoder(small_tokenizer())
    decoder.feed(0xE3)
    with pytest.raises(InvalidTokenIdError, match="99999"):
        decoder.feed(99999)
    assert decoder.pending == b"\xe3"


@settings(max_examples=300, deadline=None)
@given(ids=st.lists(st.integers(0, 255 + 12), max_size=40))
def test_stream_equals_decode_even_for_invalid_utf8(ids) -> None:
    tok = small_tokenizer()
    decoder = StreamDecoder(tok)
    assert "".join(decoder.feed(i) for i in ids) + decoder.flush() == tok.decode(ids)


@settings(max_examples=100, deadline=None)
@given(text=st.text())
def test_stream_round_trips_any_text(text) -> None:
    tok = gpt2_tokenizer()
    decoder = StreamDecoder(tok)
    assert decoder.feed_many(tok.encode(text)) + decoder.flush() == text
