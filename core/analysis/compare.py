"""Comparing tokenizations of one text: where boundaries differ, tokens and bytes/token per script, vocab overlap.

The compare pane runs several tokenizers over the same text and the boundaries pane contrasts English
with Japanese; both need the same few numbers, computed here from token spans so they can be tested
without a UI. Spans are anything with ``byte_start``/``byte_end`` (and optionally ``is_special``), in
order and covering the text, as ``core.encode.spans.token_spans`` returns them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from core.model import BPEModel
from core.analysis.script_mix import SCRIPTS, classify_char

LETTER_SCRIPTS = ("latin", "kana", "kanji")
"""Scripts a token can be credited to by its letters; a token with none of them counts as ``other``."""


class Span(Protocol):
    """The part of ``core.encode.spans.TokenSpan`` this module reads."""

    @property
    def byte_start(self) -> int: ...

    @property
    def byte_end(self) -> int: ...


@dataclass(frozen=True, slots=True)
class TextStats:
    """Size of a text and of its tokenization.

    >>> TextStats(chars=6, bytes=12, tokens=4).bytes_per_token
    3.0
    """

    chars: int
    bytes: int
    tokens: int

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def chars_per_token(self) -> float:
        return self.chars / self.tokens if self.tokens else 0.0


def text_stats(text: str, spans: Sequence[Span]) -> TextStats:
    """Characters, UTF-8 bytes and tokens of ``text`` tokenized as ``spans``."""
    return TextStats(chars=len(text), bytes=len(text.encode("utf-8")), tokens=len(spans))


def cuts(spans: Sequence[Span]) -> frozenset[int]:
    """Byte offsets strictly inside the text where one token ends and the next begins.

    >>> from types import SimpleNamespace as S
    >>> sorted(cuts([S(byte_start=0, byte_end=2), S(byte_start=2, byte_end=5)]))
    [2]
    """
    return frozenset(span.byte_start for span in spans if span.byte_start > 0)


@dataclass(frozen=True, slots=True)
class BoundaryDiff:
    """Token boundaries of several tokenizations of one text.

    Attributes:
        cuts: per tokenization, the byte offsets where it cuts (see :func:`cuts`).
        shared: offsets every tokenization cuts at.
        differing: offsets some but not all tokenizations cut at.
    """

    cuts: tuple[frozenset[int], ...]
    shared: frozenset[int]
    differing: frozenset[int]


def boundary_diff(tokenizations: Sequence[Sequence[Span]]) -> BoundaryDiff:
    """Where the tokenizations agree and disagree on token boundaries.

    >>> from types import SimpleNamespace as S
    >>> a = [S(byte_start=0, byte_end=2), S(byte_start=2, byte_end=4)]
    >>> b = [S(byte_start=0, byte_end=1), S(byte_start=1, byte_end=2), S(byte_start=2, byte_end=4)]
    >>> diff = boundary_diff([a, b])
    >>> sorted(diff.shared), sorted(diff.differing)
    ([2], [1])
    """
    all_cuts = tuple(cuts(spans) for spans in tokenizations)
    if not all_cuts:
        return BoundaryDiff(cuts=(), shared=frozenset(), differing=frozenset())
    union = frozenset().union(*all_cuts)
    shared = frozenset.intersection(*all_cuts)
    return BoundaryDiff(cuts=all_cuts, shared=shared, differing=union - shared)


@dataclass(frozen=True, slots=True)
class ScriptTokens:
    """Tokens credited to one script and the bytes they cover."""

    tokens: int = 0
    bytes: int = 0

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0


def _char_extents(text: str) -> Iterator[tuple[int, int, str]]:
    """``(byte_start, byte_end, script)`` of each character of ``text``."""
    offset = 0
    for ch in text:
        code = ord(ch)
        size = 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
        yield offset, offset + size, classify_char(ch)
        offset += size


def tokens_by_script(text: str, spans: Sequence[Span]) -> dict[str, ScriptTokens]:
    """Count tokens and their bytes per script class.

    A token goes to the letter script (Latin, kana, kanji) holding most of its bytes, ties in that order,
    so ``" the"`` is Latin despite its space and ``"の"`` split over two tokens credits both to kana.
    Tokens without letters (spaces, digits, punctuation) and special tokens count as ``other``.

    >>> from types import SimpleNamespace as S
    >>> text = "a 日本"  # bytes: a=0, space=1, 日=2..5, 本=5..8
    >>> spans = [S(byte_start=0, byte_end=1), S(byte_start=1, byte_end=5), S(byte_start=5, byte_end=8)]
    >>> {k: (v.tokens, v.bytes) for k, v in tokens_by_script(text, spans).items()}
    {'latin': (1, 1), 'kana': (0, 0), 'kanji': (2, 7), 'other': (0, 0)}
    """
    extents = list(_char_extents(text))
    totals = {script: [0, 0] for script in SCRIPTS}
    first = 0  # the first character not wholly before the current token
    for span in spans:
        start, end = span.byte_start, span.byte_end
        while first < len(extents) and extents[first][1] <= start:
            first += 1
        weights = dict.fromkeys(SCRIPTS, 0)
        index = first
        while index < len(extents) and extents[index][0] < end:
            char_start, char_end, char_script = extents[index]
            weights[char_script] += min(char_end, end) - max(char_start, start)
            index += 1
        best = max(LETTER_SCRIPTS, key=weights.__getitem__)  # max keeps the first of equals
        script = best if weights[best] and not getattr(span, "is_special", False) else "other"
        totals[script][0] += 1
        totals[script][1] += end - start
    return {script: ScriptTokens(tokens=t, bytes=b) for script, (t, b) in totals.items()}


@dataclass(frozen=True, slots=True)
class VocabOverlap:
    """How two vocabularies overlap, compared by token bytes (ids differ between tokenizers).

    Attributes:
        shared: tokens in both.
        only_a: tokens only in A.
        only_b: tokens only in B.
        examples_a: a few tokens only in A, the earliest (lowest id, so most frequent in training) first.
        examples_b: the same for B.
    """

    shared: int
    only_a: int
    only_b: int
    examples_a: tuple[bytes, ...] = ()
    examples_b: tuple[bytes, ...] = ()

    @property
    def jaccard(self) -> float:
        """Shared tokens over all distinct tokens (1.0 for identical vocabularies)."""
        union = self.shared + self.only_a + self.only_b
        return self.shared / union if union else 1.0


def _earliest(vocab: dict[int, bytes], tokens: set[bytes], n: int) -> tuple[bytes, ...]:
    picked: list[bytes] = []
    for token_id in sorted(vocab):
        token = vocab[token_id]
        if token in tokens and token not in picked:
            picked.append(token)
            if len(picked) == n:
                break
    return tuple(picked)


def vocab_overlap(a: BPEModel, b: BPEModel, *, examples: int = 5) -> VocabOverlap:
    """Compare the vocabularies of ``a`` and ``b`` by token bytes.

    >>> base = {i: bytes([i]) for i in range(256)}
    >>> a = BPEModel(vocab=base | {256: b"th", 257: b"the"}, merges=[])
    >>> b = BPEModel(vocab=base | {256: b"th", 257: b"er"}, merges=[])
    >>> vocab_overlap(a, b)
    VocabOverlap(shared=257, only_a=1, only_b=1, examples_a=(b'the',), examples_b=(b'er',))
    """
    tokens_a = set(a.vocab.values())
    tokens_b = set(b.vocab.values())
    only_a = tokens_a - tokens_b
    only_b = tokens_b - tokens_a
    return VocabOverlap(
        shared=len(tokens_a & tokens_b),
        only_a=len(only_a),
        only_b=len(only_b),
        examples_a=_earliest(a.vocab, only_a, examples),
        examples_b=_earliest(b.vocab, only_b, examples),
    )
