"""The special-token pattern: the tokens' trie finds exactly what the plain longest-first alternation does.

Training cuts every document at special tokens with this pattern, and encoding finds them with it; the
trie only makes ``re`` try one token's characters at a time instead of every token at every character.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from core import reference
from core.pretokenize.patterns import special_token_pattern


def plain_alternation(tokens: list[str]) -> re.Pattern[str]:
    """The definition: every token, longest first, so the first that matches is the longest."""
    return re.compile("|".join(re.escape(t) for t in sorted(set(tokens), key=lambda t: (-len(t), t))))


TOKEN_TEXT = "ab<|>(\\$. é日\n"
"""Few characters, so tokens share prefixes, contain one another and overlap in the text; regex
metacharacters, a space, a line break and non-ASCII ones."""


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(
    tokens=st.lists(st.text(alphabet=TOKEN_TEXT, min_size=1, max_size=6), min_size=1, max_size=12),
    pieces=st.lists(st.text(alphabet=TOKEN_TEXT, max_size=4), max_size=20),
    picks=st.lists(st.integers(0, 11), max_size=20),
)
def test_the_trie_finds_what_the_plain_alternation_does(tokens: list[str], pieces: list[str], picks: list[int]) -> None:
    text = "".join(piece + tokens[pick % len(tokens)] for piece, pick in zip(pieces, picks))
    pattern = special_token_pattern(tokens)
    assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in plain_alternation(tokens).finditer(text)]
    assert pattern.split(text) == reference.split_on_special_tokens(text, tokens)[::2]


def test_tokens_that_share_a_beginning_are_tried_once() -> None:
    # The plain alternation tried all thousand tokens at every character of the corpus: reading with a
    # thousand special tokens that begin with different letters took over a second a megabyte.
    tokens = [f"[unused{n}]" for n in range(1000)] + [f"{chr(97 + n % 26)}word{n}" for n in range(1000)]
    pattern = special_token_pattern(tokens)
    assert pattern.pattern.count("unused") == 1
    assert pattern.findall("[unused12] aword0 [unused1]x zword25 bword") == ["[unused12]", "aword0", "[unused1]", "zword25"]


def test_tokens_nested_deeper_than_a_hundred_still_match_longest_first() -> None:
    tokens = ["a" * n for n in range(2, 300)]  # each a prefix of the next: the plain alternation is used
    assert special_token_pattern(tokens).findall("a" * 301 + "b" + "aaa") == ["a" * 299, "aa", "aaa"]
