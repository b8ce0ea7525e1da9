"""The numbers lens: which integers are one token, and how digit-grouping pre-tokenisers split numbers instead.

GPT-2 learnt number tokens from whatever numbers its corpus held, so "1990" may be one token while
"1987" is two, and 365 and 366 look unrelated to the model. Later tokenizers cut digits up before BPE
runs: one digit at a time, or groups of up to three as in Llama 3 (``\\p{N}{1,3}``), so every number
of the same length splits the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import regex

from core.analysis.lenses.encoded import EncodedText, encode_text
from core.encode.tokenizer import Tokenizer
from core.errors import SettingsError

GROUPINGS: dict[str, int] = {"digits": 1, "triples": 3}
"""Digit-grouping pre-tokenisers by name: the most digits one piece may hold."""

DEFAULT_EXAMPLES: tuple[int, ...] = (7, 42, 365, 366, 1987, 1990, 2024, 31415, 1234567)
"""Numbers whose splits the lens shows beside the grid."""


def digit_groups(number: str, size: int) -> list[str]:
    """``number``'s digit runs cut into pieces of at most ``size`` digits from the left, as a
    ``\\p{N}{1,size}`` pre-tokeniser cuts them (anything between digits stays a piece of its own).

    >>> digit_groups("1234567", 3), digit_groups("365", 1), digit_groups("-40", 3)
    (['123', '456', '7'], ['3', '6', '5'], ['-', '40'])
    """
    pattern = regex.compile(r"\p{N}{1,%d}|\P{N}+" % size)
    return pattern.findall(number)


@dataclass(frozen=True, slots=True)
class NumberSplit:
    """One number: the tokenizer's tokens, and the pieces each digit-grouping pre-tokeniser makes.

    Attributes:
        number: the number.
        encoded: the number as written (leading zeros kept: ``007`` is not ``7`` to a tokenizer), encoded.
        groups: grouping name -> the pieces it cuts the number into (before any merge).
        grouped_tokens: grouping name -> the tokens the tokenizer gives when each piece is encoded alone,
            as it would be behind that pre-tokeniser.
    """

    number: int
    encoded: EncodedText
    groups: dict[str, tuple[str, ...]]
    grouped_tokens: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "written": self.encoded.text,
            "tokens": self.encoded.to_json()["tokens"],
            "ids": list(self.encoded.ids),
            "groups": {name: list(pieces) for name, pieces in self.groups.items()},
            "grouped_tokens": dict(self.grouped_tokens),
        }


@dataclass(frozen=True, slots=True)
class NumberTokens:
    """Token counts of the integers below ``limit``, written plainly with no space.

    Attributes:
        limit: the numbers are ``0 .. limit - 1``.
        token_counts: the tokens each number costs, by number.
        single_piece: grouping name -> how many of the numbers that grouping leaves as one piece.
        examples: splits of a few chosen numbers.
    """

    limit: int
    token_counts: tuple[int, ...]
    single_piece: dict[str, int]
    examples: tuple[NumberSplit, ...]

    @property
    def single_token(self) -> list[int]:
        """The numbers that are one token, ascending."""
        return [number for number, count in enumerate(self.token_counts) if count == 1]

    def to_json(self) -> dict[str, Any]:
        single = self.single_token
        return {
            "single_token": single,
            "count": len(single),
            "limit": self.limit,
            "token_counts": list(self.token_counts),
            "single_piece": dict(self.single_piece),
            "examples": [example.to_json() for example in self.examples],
        }


def split_number(tokenizer: Tokenizer, number: int | str) -> NumberSplit:
    """How ``tokenizer`` and each digit grouping split ``number`` (an int, or its digits as written).

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"12"}
    >>> split = split_number(Tokenizer(vocab, [(b"1", b"2")]), 1212)
    >>> split.encoded.tokens, split.groups["triples"], split.grouped_tokens
    ((b'12', b'12'), ('121', '2'), {'digits': 4, 'triples': 3})
    """
    written = number if isinstance(number, str) else str(number)
    groups = {name: tuple(digit_groups(written, size)) for name, size in GROUPINGS.items()}
    grouped = {name: sum(len(tokenizer.encode_ordinary(piece)) for piece in pieces) for name, pieces in groups.items()}
    return NumberSplit(number=int(written), encoded=encode_text(tokenizer, written), groups=groups, grouped_tokens=grouped)


def number_tokens(
    tokenizer: Tokenizer, *, limit: int = 1000, examples: tuple[int | str, ...] | list[int | str] = DEFAULT_EXAMPLES
) -> NumberTokens:
    """Which integers ``0 .. limit - 1`` ``tokenizer`` encodes as one token, and how numbers split.

    ``examples`` are ints or strings of ASCII digits, split as written (``"007"`` keeps its zeros).

    Raises:
        SettingsError: ``limit`` is not a whole number from 1 to 1,000,000, or an example is negative.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"10"}
    >>> result = number_tokens(Tokenizer(vocab, [(b"1", b"0")]), limit=12, examples=[100])
    >>> result.single_token, result.single_piece
    ([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], {'digits': 10, 'triples': 12})
    >>> result.examples[0].encoded.tokens
    (b'10', b'0')
    """
    if type(limit) is not int or not 1 <= limit <= 1_000_000:
        raise SettingsError(f"the numbers lens counts up to a limit from 1 to 1000000, got {limit!r:.40}")
    def whole(number: object) -> bool:
        if isinstance(number, str):
            return number.isascii() and number.isdigit()
        return type(number) is int and number >= 0

    if not all(map(whole, examples)):
        raise SettingsError("example numbers must be whole numbers of at least 0")
    counts = tuple(len(tokenizer.encode_ordinary(str(number))) for number in range(limit))
    single_piece = {
        name: sum(len(digit_groups(str(number), size)) == 1 for number in range(limit)) for name, size in GROUPINGS.items()
    }
    splits = tuple(split_number(tokenizer, number) for number in examples)
    return NumberTokens(limit=limit, token_counts=counts, single_piece=single_piece, examples=splits)
