"""Character-level BPE's base: a corpus's alphabet, and pre-tokens written as character tokens.

With ``base="chars"`` training starts from the characters of the corpus instead of the 256 bytes, as
character-level BPE tutorials (and SentencePiece) do. The vocabulary still holds the 256 bytes, for byte
fallback: a character seen fewer than ``min_char_count`` times gets no token and is written as its UTF-8
bytes, so encoding stays lossless. Those bytes never take part in a merge: in training a rare character
cuts its pre-token in two, and encoding finds no merge that names them.

These are the fast helpers :class:`core.train.run.TrainingRun` uses; :func:`core.reference.train` spells the
same rules out plainly and the two must agree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

CUT = chr(0x10FFFF)
"""Stands in for a character without a token while pre-tokens are cut; never a token character."""


def char_counts(word_counts: Mapping[str, int]) -> Counter[str]:
    """How often each character occurs in the pre-tokens, weighted by how often each pre-token occurs.

    >>> char_counts({"ab": 2, "b": 1})
    Counter({'b': 3, 'a': 2})
    """
    counts: Counter[str] = Counter("".join(word for word, n in word_counts.items() if n == 1))
    for word, n in word_counts.items():
        if n != 1:
            for char, k in Counter(word).items():
                counts[char] += k * n
    return counts


def alphabet(counts: Mapping[str, int], min_char_count: int) -> list[str]:
    """The characters that get a token beyond the 256 bytes: those of two or more UTF-8 bytes seen at least
    ``min_char_count`` times, by code point (a one-byte character is its byte's token already).

    >>> alphabet({"a": 5, "é": 2, "あ": 1}, 2)
    ['é']
    """
    return sorted(char for char, n in counts.items() if n >= min_char_count and ord(char) >= 0x80)


def token_words(word_counts: Mapping[str, int], kept: Mapping[str, int]) -> dict[str, int]:
    """Each pre-token as a string of ``chr(token id)``, one a character, cut where a character is not in
    ``kept`` (character -> token id); pieces of one token, which hold no pair, are left out.

    >>> token_words({"aéb": 2}, {"a": 97, "b": 98})
    {}
    >>> token_words({"abé": 2, "ab": 1}, {"a": 97, "b": 98, "é": 300}) == {"ab" + chr(300): 2, "ab": 1}
    True
    >>> token_words({"abéab": 1}, {"a": 97, "b": 98})
    {'ab': 2}
    """
    table: dict[int, str] = {}
    for word in word_counts:
        for char in word:
            if ord(char) not in table:
                token_id = kept.get(char)
                table[ord(char)] = CUT if token_id is None else chr(token_id)
    words: dict[str, int] = {}
    get = words.get
    for word, n in word_counts.items():
        for piece in word.translate(table).split(CUT):
            if len(piece) > 1:
                words[piece] = get(piece, 0) + n
    return words


def char_token_ids(vocab: Mapping[int, bytes]) -> dict[str, int]:
    """Each character that has a token of exactly its bytes, with that token's id (the lowest, if several).

    >>> char_token_ids({97: b"a", 256: "é".encode(), 257: b"ab", 258: b"\\xe3"})
    {'a': 97, 'é': 256}
    """
    ids: dict[str, int] = {}
    for token_id in sorted(vocab):
        token = vocab[token_id]
        if len(token) > 4:
            continue
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(text) == 1:
            ids.setdefault(text, token_id)
    return ids
