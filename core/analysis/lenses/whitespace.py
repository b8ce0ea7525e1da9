"""The whitespace lens: the same two words spaced four ways, and what each spacing costs in tokens.

GPT-2's pattern glues one space to the front of the following word, so ``"a b"`` and ``"a  b"`` differ
by more than a space: the extra space becomes its own token, and a trailing space dangles alone. A
prompt ending in a space asks the model to continue from a token it rarely saw there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.analysis.lenses.encoded import EncodedText, encode_text
from core.encode.tokenizer import Tokenizer
from core.errors import SettingsError

SPACINGS: tuple[str, ...] = ("plain", "trailing space", "leading space", "double space")
"""The four spacings, in display order."""


def spaced(first: str, second: str) -> tuple[str, str, str, str]:
    """The two words in each spacing of :data:`SPACINGS`.

    >>> spaced("hello", "world")
    ('hello world', 'hello world ', ' hello world', 'hello  world')
    """
    return (f"{first} {second}", f"{first} {second} ", f" {first} {second}", f"{first}  {second}")


@dataclass(frozen=True, slots=True)
class WhitespaceVariants:
    """Two words in four spacings, each encoded.

    Attributes:
        words: the two words.
        variants: one encoded text per spacing, in the order of :data:`SPACINGS`.
    """

    words: tuple[str, str]
    variants: tuple[EncodedText, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "words": list(self.words),
            "variants": [{"spacing": name} | variant.to_json() for name, variant in zip(SPACINGS, self.variants)],
        }


def whitespace_variants(tokenizer: Tokenizer, first: str, second: str) -> WhitespaceVariants:
    """Encode ``first`` and ``second`` in the four spacings.

    Raises:
        SettingsError: a word is empty or holds whitespace.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b" b"}
    >>> result = whitespace_variants(Tokenizer(vocab, [(b" ", b"b")]), "a", "b")
    >>> [(v.text, v.count) for v in result.variants]
    [('a b', 2), ('a b ', 3), (' a b', 3), ('a  b', 3)]
    """
    for word in (first, second):
        if not word or any(ch.isspace() for ch in word):
            raise SettingsError(f"give two words without spaces for the whitespace lens, not {word!r:.40}")
    texts = spaced(first, second)
    return WhitespaceVariants(words=(first, second), variants=tuple(encode_text(tokenizer, text) for text in texts))
