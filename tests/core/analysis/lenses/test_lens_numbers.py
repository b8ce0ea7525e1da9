"""The numbers lens against tiktoken's GPT-2, and its digit groupings against Hugging Face's pre-tokenisers."""

from __future__ import annotations

import pytest
from tokenizers import Regex, pre_tokenizers

from core.analysis.lenses.numbers import GROUPINGS, digit_groups, number_tokens, split_number
from core.errors import SettingsError
from tests.core.encode.tokenizer_cases import gpt2_tokenizer, tiktoken_gpt2, tokenizer_from_merges


def test_single_token_numbers_match_tiktoken_gpt2() -> None:
    reference = tiktoken_gpt2()
    expected = [n for n in range(1000) if len(reference.encode_ordinary(str(n))) == 1]
    result = number_tokens(gpt2_tokenizer())
    assert result.single_token == expected
    assert result.to_json()["count"] == len(expected)
    assert result.token_counts == tuple(len(reference.encode_ordinary(str(n))) for n in range(1000))
    # GPT-2 learnt some three-digit numbers and not others: the grid is neither empty nor full.
    assert 110 < len(expected) < 1000


HF_GROUPERS = {
    "digits": pre_tokenizers.Digits(individual_digits=True),
    "triples": pre_tokenizers.Split(Regex(r"\p{N}{1,3}"), behavior="isolated"),  # Llama 3's number rule
}


@pytest.mark.parametrize("text", ["0", "42", "999", "1000", "1234567", "-40", "3.14159", "2024-12-01"])
@pytest.mark.parametrize("name", sorted(GROUPINGS))
def test_digit_groups_match_hugging_face(text: str, name: str) -> None:
    expected = [piece for piece, _ in HF_GROUPERS[name].pre_tokenize_str(text)]
    assert digit_groups(text, GROUPINGS[name]) == expected


def test_grouped_tokens_encode_each_piece_alone() -> None:
    reference = tiktoken_gpt2()
    split = split_number(gpt2_tokenizer(), 1234567)
    assert split.groups == {"digits": tuple("1234567"), "triples": ("123", "456", "7")}
    assert split.grouped_tokens["triples"] == sum(len(reference.encode_ordinary(p)) for p in ("123", "456", "7"))
    assert split.grouped_tokens["digits"] == 7
    assert list(split.encoded.ids) == reference.encode_ordinary("1234567")


def test_single_piece_counts_by_hand() -> None:
    # Below 1000: one digit at a time leaves only 0-9 whole; groups of three leave every number whole.
    result = number_tokens(tokenizer_from_merges([]), examples=[])
    assert result.single_piece == {"digits": 10, "triples": 1000}
    assert result.single_token == list(range(10))  # no merges: only single digits are one token


def test_toy_merges_by_hand() -> None:
    result = number_tokens(tokenizer_from_merges([(b"4", b"2"), (b"1", b"0"), (b"10", b"0")]), limit=200, examples=[])
    assert result.single_token == [*range(10), 10, 42, 100]


@pytest.mark.parametrize("limit", [0, 2_000_000, 10.0])
def test_bad_limit_is_named(limit) -> None:
    with pytest.raises(SettingsError, match="limit"):
        number_tokens(gpt2_tokenizer(), limit=limit)
