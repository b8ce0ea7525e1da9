"""The case, whitespace and spelling lenses against tiktoken's GPT-2 (built offline from the bundled files)."""

from __future__ import annotations

import pytest

from core.analysis.lenses.case import case_variants
from core.analysis.lenses.spelling import spelling
from core.analysis.lenses.whitespace import SPACINGS, whitespace_variants
from core.errors import SettingsError
from tests.core.encode.tokenizer_cases import gpt2_tokenizer, tiktoken_gpt2


@pytest.mark.parametrize("word", ["hello", "Hello", "tokenizer", "naïve", "東京"])
def test_case_variants_match_tiktoken(word: str) -> None:
    result = case_variants(gpt2_tokenizer(), word)
    reference = tiktoken_gpt2()
    texts = [variant.text for variant in result.variants]
    lower, upper = word[0].lower() + word[1:], word[0].upper() + word[1:]
    assert texts == [" " + lower, lower, " " + upper, upper]
    for variant in result.variants:
        assert list(variant.ids) == reference.encode_ordinary(variant.text)
        assert list(variant.tokens) == reference.decode_tokens_bytes(list(variant.ids))


def test_case_json_lists_ids_per_variant() -> None:
    variants = case_variants(gpt2_tokenizer(), "hello").to_json()["variants"]
    # GPT-2: " hello" 23748, "hello" 31373, " Hello" 18435, "Hello" 15496: four unrelated ids.
    assert [(v["text"], v["ids"]) for v in variants] == [
        (" hello", [23748]),
        ("hello", [31373]),
        (" Hello", [18435]),
        ("Hello", [15496]),
    ]


def test_whitespace_variants_match_tiktoken() -> None:
    result = whitespace_variants(gpt2_tokenizer(), "hello", "world")
    reference = tiktoken_gpt2()
    assert [v.text for v in result.variants] == ["hello world", "hello world ", " hello world", "hello  world"]
    assert [v.count for v in result.variants] == [len(reference.encode_ordinary(v.text)) for v in result.variants]
    # By hand: the dangling space and the doubled space are one token more; " hello" stays one token.
    assert [v.count for v in result.variants] == [2, 3, 2, 3]
    rows = result.to_json()["variants"]
    assert [row["spacing"] for row in rows] == list(SPACINGS)
    assert rows[3]["tokens"] == ["hello", " ", " world"]


def test_spelling_matches_tiktoken_and_keeps_characters() -> None:
    words = ["strawberry", "Mississippi", "日本語"]
    reference = tiktoken_gpt2()
    for leading_space in (False, True):
        result = spelling(gpt2_tokenizer(), words, leading_space=leading_space)
        for row, word in zip(result.words, words):
            text = (" " if leading_space else "") + word
            assert row.chars == tuple(word)
            assert list(row.encoded.ids) == reference.encode_ordinary(text)
            assert b"".join(row.encoded.tokens) == text.encode("utf-8")
    row = spelling(gpt2_tokenizer(), ["strawberry"]).to_json()["words"][0]
    assert row["char_count"] == 10 and row["token_count"] == len(row["tokens"]) < 10


def test_spelling_counts_characters_as_a_reader_sees_them() -> None:
    # Code points made "café" (decomposed) five letters with a lone accent, and a family emoji five characters.
    words = ["cafe\u0301", "\U0001F469\u200d\U0001F469\u200d\U0001F467", "\U0001F1EF\U0001F1F5"]
    rows = spelling(gpt2_tokenizer(), words).to_json()["words"]
    assert [row["chars"] for row in rows] == [["c", "a", "f", "e\u0301"], [words[1]], [words[2]]]
    assert [row["char_count"] for row in rows] == [4, 1, 1]
    assert [row["token_count"] for row in rows] == [len(tiktoken_gpt2().encode_ordinary(word)) for word in words]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda tok: case_variants(tok, ""), "one word"),
        (lambda tok: case_variants(tok, "two words"), "one word"),
        (lambda tok: whitespace_variants(tok, "a", ""), "two words"),
        (lambda tok: spelling(tok, []), "at least one"),
        (lambda tok: spelling(tok, "word"), "list of words"),
        (lambda tok: spelling(tok, ["a b"]), "without spaces"),
    ],
)
def test_bad_words_are_named(call, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        call(gpt2_tokenizer())
