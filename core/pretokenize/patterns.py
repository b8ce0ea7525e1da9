"""Pre-tokenisation: the GPT-2 split pattern and splitting text on special tokens.

Both training and encoding go through these helpers, so a pre-token is defined in exactly one place.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import regex

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
"""The GPT-2 pre-tokenisation regex (CS336 assignment 1, tiktoken's ``gpt2``)."""

CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
"""tiktoken's ``cl100k_base`` pattern."""

O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
"""tiktoken's ``o200k_base`` pattern."""

LLAMA3_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
"""Llama 3's split pattern as its ``tokenizer.json`` writes it (Qwen2's has ``\\p{N}`` for ``\\p{N}{1,3}``)."""

SETTLING_PATTERNS = frozenset(
    [GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN, LLAMA3_PATTERN, LLAMA3_PATTERN.replace(r"\p{N}{1,3}", r"\p{N}")]
)
"""Patterns whose pieces of a text cut anywhere differ from the whole text's only in the last two: encoding
splits long text under them in short slices (``core.encode.plain_text``). A test checks each on text made to
straddle the cuts; a pattern not listed keeps the long slices, where a wrong guess would be rarer."""

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


_TRIE_MAX_DEPTH = 100
"""Most groups nested in a special-token pattern (one per branching or per token that is a prefix of
another, along one path); tokens nested deeper (``aa``, ``aaa``, ``aaaa``, ...) get the plain alternation,
which nests none (``re`` parses groups recursively)."""


def special_token_pattern(special_tokens: Iterable[str]) -> re.Pattern[str] | None:
    """A regex matching any special token, longest first, so that overlapping tokens resolve to the longer one.

    Literal strings only, so the stdlib ``re`` matches exactly as ``regex`` would. It is the tokens' trie
    (``<|a|>`` and ``<|b|>`` make ``<\\|(?:a|b)\\|>``), not the alternation ``longest|...|shortest``, which
    means the same but is tried token by token at every character: with a thousand special tokens that
    begin with different letters, cutting text at them took over a second a megabyte.

    >>> special_token_pattern(["<a>", "<a><a>"]).findall("<a><a><a>")
    ['<a><a>', '<a>']
    >>> special_token_pattern(["ab", "ac", "abd"]).pattern
    'a(?:b(?:d)?|c)'
    """
    tokens = tuple(sorted(set(special_tokens), key=lambda t: (-len(t), t)))
    if not tokens:
        return None
    return _compiled_special_pattern(tokens)


@lru_cache(maxsize=64)
def _compiled_special_pattern(tokens: tuple[str, ...]) -> re.Pattern[str]:
    if "" not in tokens:
        trie: dict[str, dict] = {}
        for token in tokens:
            node = trie
            for char in token:
                node = node.setdefault(char, {})
            node[""] = {}  # a token ends here
        try:
            return re.compile(_trie_body(trie, 0))
        except _TooDeep:
            pass
    return re.compile("|".join(re.escape(t) for t in tokens))  # longest first: the first match is the longest


class _TooDeep(Exception):
    """The trie nests more groups than :data:`_TRIE_MAX_DEPTH`."""


def _trie_body(node: dict[str, dict], depth: int) -> str:
    """The regex of the tokens' endings below ``node``: at most one branch can match the next character,
    and a token ending here is the optional group's fallback, so the longest token matches."""
    if depth > _TRIE_MAX_DEPTH:
        raise _TooDeep
    literal = []
    while len(node) == 1 and "" not in node:  # one way on: plain characters, no group
        (char, node), = node.items()
        literal.append(re.escape(char))
    branches = [re.escape(char) + _trie_body(rest, depth + 1) for char, rest in sorted(node.items()) if char]
    if not branches:
        return "".join(literal)
    group = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if "" in node:
        group = "(?:" + group + ")?"
    return "".join(literal) + group


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
