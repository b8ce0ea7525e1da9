"""Pre-tokenisation: the GPT-2 split pattern and splitting text on special tokens.

Both training and encoding go through these helpers, so a pre-token is defined in exactly one place.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import regex

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
"""The GPT-2 pre-tokenisation regex (CS336 assignment 1, tiktoken's ``gpt2``)."""

_compiled: dict[str, regex.Pattern[str]] = {}


def compile_pattern(pattern: str = GPT2_PATTERN) -> regex.Pattern[str]:
    """Compile (and cache) a split pattern.

    >>> compile_pattern().findall("Hello, world")
    ['Hello', ',', ' world']
    """
    compiled = _compiled.get(pattern)
    if compiled is None:
        import regex  # here: slow to import, and training an ASCII corpus never needs it

        compiled = _compiled[pattern] = regex.compile(pattern)
    return compiled


def special_token_pattern(special_tokens: Iterable[str]) -> re.Pattern[str] | None:
    """A regex matching any special token, longest first, so that overlapping tokens resolve to the longer one.

    An alternation of literal strings, so the stdlib ``re`` matches exactly as ``regex`` would.

    >>> special_token_pattern(["<a>", "<a><a>"]).findall("<a><a><a>")
    ['<a><a>', '<a>']
    """
    tokens = sorted(set(special_tokens), key=lambda t: (-len(t), t))
    if not tokens:
        return None
    return re.compile("|".join(re.escape(t) for t in tokens))


def split_documents(text: str, special_tokens: Iterable[str]) -> list[str]:
    """Split text into documents at special tokens, dropping the special tokens themselves.

    >>> split_documents("a<|endoftext|>b", ["<|endoftext|>"])
    ['a', 'b']
    """
    specials = special_token_pattern(special_tokens)
    if specials is None:
        return [text]
    return specials.split(text)


def pretokenize(text: str, special_tokens: Iterable[str] = (), pattern: str = GPT2_PATTERN) -> Iterator[str]:
    """Yield the pre-tokens of ``text``: the pattern applied to each document between special tokens.

    >>> list(pretokenize("low lower<|endoftext|> newest", ["<|endoftext|>"]))
    ['low', ' lower', ' newest']
    """
    compiled = compile_pattern(pattern)
    for document in split_documents(text, special_tokens):
        yield from compiled.findall(document)
