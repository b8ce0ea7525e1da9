"""Context coverage: hand-counted windows, windows that cut a character, GPT-2 windows against tiktoken's decoding."""

from __future__ import annotations

import pytest

from core.analysis.coverage import DEFAULT_WINDOWS, Coverage, context_coverage, parse_windows
from core.errors import SettingsError
from tests.core.encode.tokenizer_cases import tiktoken_gpt2


def test_hand_counted_english() -> None:
    # "the cat sat" as the tokens "the", " cat", " sat": 3, 4 and 4 bytes, one byte a character.
    text = "the cat sat"
    assert context_coverage(text, [3, 4, 4], [1, 2, 3, 4]) == [
        Coverage(window=1, tokens=1, chars=3, bytes=3, whole=False),
        Coverage(window=2, tokens=2, chars=7, bytes=7, whole=False),
        Coverage(window=3, tokens=3, chars=11, bytes=11, whole=True),
        Coverage(window=4, tokens=3, chars=11, bytes=11, whole=True),
    ]


def test_a_window_ending_inside_a_character_does_not_cover_it() -> None:
    # 日 is e6 97 a5, 本 is e6 9c ac. Tokens: e6 97 | a5 e6 | 9c ac. The first window holds two bytes of
    # 日 and no character; the second holds 日 whole and one byte of 本.
    coverage = context_coverage("日本", [2, 2, 2], [1, 2, 3])
    assert [(c.chars, c.bytes) for c in coverage] == [(0, 2), (1, 4), (2, 6)]


def test_empty_text_is_covered_whole_by_any_window() -> None:
    assert context_coverage("", [], [128]) == [Coverage(window=128, tokens=0, chars=0, bytes=0, whole=True)]


def test_token_lengths_must_add_up_to_the_text() -> None:
    with pytest.raises(ValueError, match="add up to 3 bytes, the text has 2"):
        context_coverage("ab", [1, 2], [1])
    with pytest.raises(ValueError, match="at least one token"):
        context_coverage("ab", [2], [0])


@pytest.mark.parametrize("text", ["Hello, world! " * 300, "吾輩は猫である。名前はまだ無い。" * 200, "a\tb\n  c 🗼" * 150])
def test_gpt2_windows_cover_what_tiktoken_decodes(text: str) -> None:
    # The reference: decode the first N of tiktoken's GPT-2 ids; a partial character at the end is not covered.
    encoding = tiktoken_gpt2()
    ids = encoding.encode_ordinary(text)
    lengths = [len(encoding.decode_single_token_bytes(token)) for token in ids]
    for coverage in context_coverage(text, lengths, [1, 7, 128, 1024, 8192]):
        window_bytes = b"".join(encoding.decode_tokens_bytes(ids[: coverage.window]))
        assert coverage.bytes == len(window_bytes)
        assert coverage.chars == len(window_bytes.decode("utf-8", errors="ignore"))
        assert coverage.whole == (coverage.window >= len(ids))


def test_parse_windows() -> None:
    assert parse_windows("128 1024 8192") == DEFAULT_WINDOWS
    assert parse_windows("128,1024, 8k") == (128, 1024, 8192)  # k as in "an 8k context"
    assert parse_windows("2,048 1.5k 1m 2048") == (2048, 1536, 1_048_576)


@pytest.mark.parametrize(
    ("spec", "windows"),
    [
        ("4096,512", (4096, 512)),  # was one window of 4,096,512 tokens: 4096 is no group of thousands
        ("1024,128,8k", (1024, 128, 8192)),  # was 1,024,128 and 8k
        ("128,256,512", (128, 256, 512)),  # as one number it is past the largest window: a list
        ("1,024,2,048", (1024, 2048)),
        ("1,048,576 1,024k", (1_048_576,)),
    ],
)
def test_commas_group_thousands_only_in_a_grouped_number(spec: str, windows: tuple[int, ...]) -> None:
    assert parse_windows(spec) == windows


@pytest.mark.parametrize("spec", ["64,128", "128,256 8k", "8,192"])
def test_a_number_that_may_be_one_window_or_two_is_refused_not_guessed(spec: str) -> None:
    # "64,128" was silently one window of 64,128 tokens; as typed to --windows it means two windows.
    with pytest.raises(SettingsError, match=r"could be one window \(\d+ tokens\) or 2: type \d+, or \d+ \d+"):
        parse_windows(spec)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "no context window given"),
        ("128 lots", "'lots' is not a number of tokens"),
        ("0", "from 1 to 10,000,000"),
        ("1.001k 1", "'1.001k' must be"),
        ("20m", "'20m' must be"),
        ("1 2 3 4 5", "5 context windows given: at most 4"),
        pytest.param("1" * 400, "must be a whole number of tokens", id="400 digits"),  # int(inf): OverflowError
    ],
)
def test_parse_windows_refuses_with_one_line(spec: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message) as caught:
        parse_windows(spec)
    assert "\n" not in str(caught.value)
