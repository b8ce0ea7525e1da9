"""Token spans: byte and character ranges that rebuild the text, and honest flags on split characters."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.encode.spans import TokenSpan, token_spans
from core.encode.tokenizer import replace_surrogates
from tests.core.encode.tokenizer_cases import EOT, gpt2_tokenizer, small_tokenizer

JAPANESE = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。"


def check_spans(text: str, spans: list[TokenSpan]) -> None:
    """Everything a display relies on, checked against offsets computed directly from the text."""
    data = text.encode("utf-8")
    char_of_byte = [i for i, ch in enumerate(text) for _ in ch.encode("utf-8")]  # byte -> its character
    starts = {len(text[:i].encode("utf-8")) for i in range(len(text) + 1)}  # bytes where a character starts
    assert b"".join(span.token for span in spans) == data
    position = 0
    for span in spans:
        assert span.byte_start == position and span.byte_end == position + len(span.token)
        assert data[span.byte_start : span.byte_end] == span.token
        assert span.char_start == char_of_byte[span.byte_start]
        assert span.char_end == char_of_byte[span.byte_end - 1] + 1
        assert span.char_start < span.char_end
        assert span.starts_mid_char == (span.byte_start not in starts)
        assert span.ends_mid_char == (span.byte_end not in starts)
        assert span.splits_char == (span.starts_mid_char or span.ends_mid_char)
        # The token's bytes lie within the characters it is said to touch.
        assert span.token in text[span.char_start : span.char_end].encode("utf-8")
        position = span.byte_end
    assert position == len(data)


def test_japanese_with_gpt2_splits_characters() -> None:
    tok = gpt2_tokenizer()
    spans = token_spans(tok, JAPANESE)
    check_spans(JAPANESE, spans)
    split = [span for span in spans if span.splits_char]
    assert split, "GPT-2 is expected to cut some of these characters"
    # A split character is covered by consecutive tokens that all name it, and they rebuild it.
    first = next(i for i, span in enumerate(spans) if span.ends_mid_char)
    char = spans[first].char_end - 1
    covering = [span for span in spans if span.char_start <= char < span.char_end]
    assert len(covering) >= 2 and covering[-1].starts_mid_char
    assert b"".join(span.token for span in covering).decode("utf-8").find(JAPANESE[char]) >= 0


def test_ascii_spans_have_equal_byte_and_char_offsets() -> None:
    text = "Hello world, it's fine.\n"
    spans = gpt2_tokenizer().encode_with_spans(text)
    check_spans(text, spans)
    assert all(s.byte_start == s.char_start and s.byte_end == s.char_end and not s.splits_char for s in spans)
    assert [s.id for s in spans[:2]] == [15496, 995] and spans[1].token == b" world"


def test_special_tokens_are_flagged() -> None:
    tok = small_tokenizer([EOT])
    spans = token_spans(tok, "the" + EOT + "の")
    check_spans("the" + EOT + "の", spans)
    assert [s.is_special for s in spans] == [False, True, False]
    assert spans[1].char_start == 3 and spans[1].char_end == 3 + len(EOT)


def test_token_inside_one_character_gets_that_character() -> None:
    # The small vocab merges e3 81 but not the third byte of "あ" (e3 81 82): a 2+1 split.
    spans = token_spans(small_tokenizer(), "xあ")
    assert [(s.token, s.char_start, s.char_end, s.starts_mid_char, s.ends_mid_char) for s in spans] == [
        (b"x", 0, 1, False, False),
        (b"\xe3\x81", 1, 2, False, True),
        (b"\x82", 1, 2, True, False),
    ]


def test_empty_text() -> None:
    assert token_spans(small_tokenizer(), "") == []


def test_span_is_frozen() -> None:
    span = token_spans(small_tokenizer(), "a")[0]
    with pytest.raises(AttributeError):
        span.id = 3  # type: ignore[misc]


@settings(max_examples=200, deadline=None)
@given(text=st.text())
def test_spans_rebuild_any_text_gpt2(text) -> None:
    check_spans(text, token_spans(gpt2_tokenizer(), text))


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("aのあ🙂é \n") | st.characters()))
def test_spans_rebuild_any_text_small(text) -> None:
    # st.characters() includes surrogates, which spans (like encode) read as U+FFFD.
    check_spans(replace_surrogates(text), token_spans(small_tokenizer([EOT]), text))
