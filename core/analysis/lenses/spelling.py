"""The spelling lens: the characters of each word against the few tokens a model actually receives.

A model asked how many r's are in "strawberry" never sees the letters: it gets a handful of ids, each
standing for several characters. The lens lines the two up, so the letters each token hides are plain.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import regex

from core.analysis.lenses.encoded import EncodedText, encode_text
from core.encode.tokenizer import Tokenizer
from core.errors import SettingsError

DEFAULT_WORDS: tuple[str, ...] = ("strawberry", "Mississippi", "necessary", "bookkeeper", "onomatopoeia")
"""Words whose letter counts people like to ask a model about."""


@dataclass(frozen=True, slots=True)
class SpelledWord:
    """One word: its characters, and its tokens.

    Attributes:
        word: the word as given.
        encoded: the text encoded (the word, after a space when the lens was asked for one).
    """

    word: str
    encoded: EncodedText

    @property
    def chars(self) -> tuple[str, ...]:
        """The word's characters as a reader counts them, one by one: what the model is asked about but
        never shown. They are grapheme clusters, not code points: ``é`` written as ``e`` + U+0301 is one
        letter, and a family emoji joined by U+200D is one character, not five.

        >>> chars = SpelledWord("cafe\\u0301", EncodedText("", (), ())).chars
        >>> len(chars), chars[-1] == "e\\u0301"
        (4, True)
        """
        return tuple(regex.findall(r"\X", self.word))

    def to_json(self) -> dict[str, Any]:
        return {"word": self.word, "chars": list(self.chars)} | {
            key: value for key, value in self.encoded.to_json().items() if key != "count"
        } | {"char_count": len(self.chars), "token_count": self.encoded.count}


@dataclass(frozen=True, slots=True)
class Spelling:
    """Every word of the list, spelled and tokenized.

    Attributes:
        words: one entry per word, in the order given.
        leading_space: whether each word was encoded after a space, as it would be inside a sentence.
    """

    words: tuple[SpelledWord, ...]
    leading_space: bool

    def to_json(self) -> dict[str, Any]:
        return {"leading_space": self.leading_space, "words": [word.to_json() for word in self.words]}


def spelling(tokenizer: Tokenizer, words: tuple[str, ...] | list[str] = DEFAULT_WORDS, *, leading_space: bool = False) -> Spelling:
    """Each of ``words`` as characters and as tokens.

    Raises:
        SettingsError: the list is empty, or a word is empty or holds whitespace.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"rr", 257: b"rry"}
    >>> tok = Tokenizer(vocab, [(b"r", b"r"), (b"rr", b"y")])
    >>> row = spelling(tok, ["berry"]).words[0]
    >>> row.chars, row.encoded.tokens
    (('b', 'e', 'r', 'r', 'y'), (b'b', b'e', b'rry'))
    """
    if isinstance(words, str):
        raise SettingsError("give the spelling lens a list of words, not one string")
    if not words:
        raise SettingsError("give the spelling lens at least one word")
    for word in words:
        if not word or any(ch.isspace() for ch in word):
            raise SettingsError(f"give words without spaces for the spelling lens, not {word!r:.40}")
    prefix = " " if leading_space else ""
    rows = tuple(SpelledWord(word=word, encoded=encode_text(tokenizer, prefix + word)) for word in words)
    return Spelling(words=rows, leading_space=leading_space)
