"""Encoding text that holds no special token: pre-tokenise, then look each pre-token up in a cache.

This is the inner part of :func:`core.reference.encode`: split by the model's pattern, then merge each
pre-token by rank. The hot loop is ``findall`` plus one dict lookup per pre-token, so English runs near the
speed of the regex alone; a pre-token not seen before is merged on token ids by
:mod:`core.encode.piece_merge`. Huge texts are split a slice at a time, so their pre-tokens are never all
in memory at once.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from operator import iadd

from core.encode.piece_cache import PieceCache, worth_caching
from core.encode.piece_merge import MergeEngine

SPLIT_CHARS = 1 << 20
"""Longer special-free text is pre-tokenised in slices of this many characters."""

SHORT_SLICE_CHARS = 1 << 15
"""The slice for a pattern known to settle within the held pieces (``SETTLING_PATTERNS`` of
:mod:`core.pretokenize.patterns`: GPT-2's, cl100k's, o200k's, Llama 3's, Qwen2's): about 10,000 pre-tokens, whose
strings stay in the CPU's caches from the split to the lookups, where a split of a whole 1 MB text makes
300,000 of them first. Encoding English (cold and warm) and Japanese took 5-15% less time than in slices of
``SPLIT_CHARS``; sizes from 8,192 to 65,536 characters measured alike."""

HELD_PIECES = 3
"""A slice's last pieces may still change with the text after it; two suffice for the patterns of
``SETTLING_PATTERNS`` (a run cut short, ``'l`` of ``'ll`` split as ``'`` and ``l``, a space that would begin
the next word), and a test finds a case where one does not."""


class PlainTextEncoder:
    """Ids of special-free text for one vocabulary and split pattern.

    Args:
        engine: merges one pre-token at a time.
        split: the pattern's ``findall``: text -> pre-tokens.
        tiles: the pattern's pre-tokens always join back into the text (else that is checked where it matters).
        short_slices: long text may be split in slices of ``SHORT_SLICE_CHARS``: only for a pattern whose pieces
            are known to change at most ``HELD_PIECES`` from a slice's end (others keep slices of ``SPLIT_CHARS``).
    """

    def __init__(
        self, engine: MergeEngine, split: Callable[[str], list[str]], tiles: bool = False, short_slices: bool = False
    ) -> None:
        self.engine = engine
        self.split = split
        self.tiles = tiles
        self.short_slices = short_slices
        self.cache = PieceCache(engine.encode_piece, keep=worth_caching)
        """Pre-token -> ids for pre-tokens of up to 64 bytes."""

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``, which must hold no special token that should count as one."""
        slice_chars = min(SPLIT_CHARS, SHORT_SLICE_CHARS) if self.short_slices else SPLIT_CHARS
        if len(text) <= slice_chars:
            return self.encode_split(text, self.split(text))
        out: list[int] = []
        start, size = 0, slice_chars
        while len(text) - start > size:
            ids, cut = self.encode_settled(text, start, start + size)
            out += ids
            size = slice_chars if cut > start else 2 * size  # one piece longer than the slice: widen
            start = cut
        out += self.encode_split(text[start:], self.split(text[start:]))
        return out

    def encode_settled(self, text: str, start: int, end: int) -> tuple[list[int], int]:
        """Ids of ``text[start:cut]``, the longest prefix of ``text[start:end]`` whose pre-tokens cannot
        change whatever follows ``end`` (all but the last few), and ``cut``; ``text[start]`` must begin one."""
        pieces = self.split(text[start:end])
        if len(pieces) > HELD_PIECES and (self.tiles or sum(map(len, pieces)) == end - start):
            cut = end - sum(map(len, pieces[-HELD_PIECES:]))
            del pieces[-HELD_PIECES:]
            return self.encode_split(text[start:cut], pieces), cut
        return [], start

    def encode_split(self, text: str, pieces: list[str]) -> list[int]:
        """Ids for ``text``, given its pre-tokens."""
        # Text of mostly wide characters: pre-tokens rarely repeat, their characters do.
        if len(pieces) > 32 and not text.isascii() and len(text.encode("utf-8")) > 2 * len(text):
            ids = self.engine.encode_text(text, pieces, self.cache, tiled=self.tiles)
            if ids is not None:
                return ids
        return self.encode_pieces(pieces)

    def encode_pieces(self, pieces: list[str]) -> list[int]:
        """Ids of pre-tokens, one C-level dict lookup each; misses go to ``PieceCache.__missing__``.

        The ids are gathered by ``list += ids`` through ``reduce``, all in C, which copies each tuple of ids
        without making an iterator for it (``chain.from_iterable`` does): about a tenth less time.
        """
        return reduce(iadd, map(self.cache.__getitem__, pieces), [])
