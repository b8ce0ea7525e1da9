"""``<|name|>`` markers in a corpus that are not among its special tokens, counted in bounded memory.

Corpora made for language models separate documents with markers such as ``<|endoftext|>`` or
``<|im_start|>`` (DeepSeek's ``<｜end▁of▁sentence｜>``, between full-width bars). Given as special tokens they split the text and are never merged; forgotten, they are
trained as ordinary text and the vocabulary fills with pieces of them (``<|``, ``endoftext``). The corpus
pane and ``bpe-tui train`` use this module to warn about the forgotten ones before training.

A corpus can be gigabytes, so it is read in blocks; a marker or special token cut by a block boundary
is found whole, because the end of each block that could still start one is held back for the next.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

import regex

MARKER_NAME_MAX = 64
"""Longest marker name recognised; a longer ``<|...|>`` stretch is taken for text, not a marker."""

MARKER = regex.compile(
    (
        r"<\|[A-Za-z0-9_][A-Za-z0-9_.:-]{0,%d}\|>|<｜[A-Za-z0-9_](?:[A-Za-z0-9_.:-]|▁){0,%d}｜>"
        % (MARKER_NAME_MAX - 1, MARKER_NAME_MAX - 1)
    ).encode("utf-8")
)
"""A marker: ``<|``, a name of letters, digits and ``_.:-`` (starting with a letter, digit or ``_``), ``|>``;
or DeepSeek's form, between full-width bars (U+FF5C) with ``▁`` (U+2581) for a space in the name, as in
``<｜end▁of▁sentence｜>`` and ``<｜User｜>`` (its chat logs hold them, as ChatML's hold ``<|im_start|>``)."""

MARKER_MAX_BYTES = 3 * MARKER_NAME_MAX + 8
"""The longest marker in UTF-8: a DeepSeek one, each ``▁`` of its name 3 bytes, and 4 for each bar."""

MAX_KINDS = 100
"""Distinct markers counted by name; occurrences of any further ones are only added to the total, so a
hostile file with millions of different markers cannot grow the counts without bound."""

BLOCK_BYTES = 1 << 20
"""How much :func:`count_markers` reads at a time."""


@dataclass(frozen=True, slots=True)
class MarkerCounts:
    """Markers found that are not special tokens.

    Attributes:
        counts: ``(marker, occurrences)``, most frequent first (ties by marker), at most ``MAX_KINDS``.
        total: occurrences of all of them, including any beyond ``MAX_KINDS`` kinds.
        more_kinds: there were more than ``MAX_KINDS`` distinct markers; ``counts`` lists only the first.
    """

    counts: tuple[tuple[str, int], ...] = ()
    total: int = 0
    more_kinds: bool = False

    def __bool__(self) -> bool:
        return self.total > 0

    @property
    def names(self) -> tuple[str, ...]:
        """The markers, most frequent first."""
        return tuple(name for name, _ in self.counts)


NO_MARKERS = MarkerCounts()


class MarkerCounter:
    """Counts markers that are not special tokens in text fed as consecutive blocks of UTF-8 bytes.

    Special tokens are matched first, longest first, as the trainer splits on them: a marker inside a
    special token (``<|a|>`` in a special ``[<|a|>]``) is part of that token, not a forgotten marker.

    >>> counter = MarkerCounter(["<|endoftext|>"])
    >>> counter.feed(b"one<|endoftext|>two<|im_sta")
    >>> counter.feed(b"rt|>three<|im_start|><|im_end|>", final=True)
    >>> counter.result()
    MarkerCounts(counts=(('<|im_start|>', 2), ('<|im_end|>', 1)), total=3, more_kinds=False)
    """

    def __init__(self, special_tokens: Iterable[str] = ()) -> None:
        specials = sorted({t.encode("utf-8") for t in special_tokens if t}, key=lambda t: (-len(t), t))
        if not any(b"<" in t for t in specials):
            # A special token can hide a marker only by covering its "<": one that starts later loses to the
            # marker, which is leftmost, and one that ends earlier leaves it whole. Without a "<" in any, the
            # markers are those the marker pattern finds alone, and the scan does not try every special token
            # at every byte (a thousand word-like special tokens made it take longer than the training).
            specials = []
        alternatives = [regex.escape(t) for t in specials] + [b"(?P<marker>" + MARKER.pattern + b")"]
        self._pattern = regex.compile(b"|".join(alternatives))
        # Any match starting before len(buffer) - hold is wholly inside the buffer, so more text cannot change it.
        self._hold = max([MARKER_MAX_BYTES, *map(len, specials)]) - 1
        self._carry = b""
        self._counts: dict[bytes, int] = {}
        self._total = 0
        self._more_kinds = False

    def feed(self, block: bytes, *, final: bool = False) -> None:
        """Count the markers in ``block``, the bytes following the previous block; ``final`` ends the text."""
        buffer = self._carry + block if self._carry else block
        limit = len(buffer) if final else len(buffer) - self._hold
        resume = 0
        for match in self._pattern.finditer(buffer):
            if match.start() >= limit:
                break
            resume = match.end()
            marker = match.group("marker")
            if marker is not None:
                self._count(marker)
        self._carry = b"" if final else buffer[max(limit, resume, 0) :]

    def _count(self, marker: bytes) -> None:
        self._total += 1
        if marker in self._counts:
            self._counts[marker] += 1
        elif len(self._counts) < MAX_KINDS:
            self._counts[marker] = 1
        else:
            self._more_kinds = True

    def result(self) -> MarkerCounts:
        """The markers counted so far."""
        if not self._total:
            return NO_MARKERS
        ranked = sorted(self._counts.items(), key=lambda item: (-item[1], item[0]))
        return MarkerCounts(
            tuple((marker.decode("utf-8"), count) for marker, count in ranked), self._total, self._more_kinds
        )


def count_markers(
    path: str | os.PathLike[str], special_tokens: Iterable[str] = (), *, block_bytes: int = BLOCK_BYTES,
    max_bytes: int | None = None,
) -> MarkerCounts:
    """The ``<|name|>`` markers in a file that are not ``special_tokens``, read in blocks of ``block_bytes``;
    in its first ``max_bytes`` only, if given (a look at a corpus too large for a second pass).

    Bytes that are not valid UTF-8 are no obstacle: markers are whole UTF-8 and are found between them. The
    count stops at the first NUL byte, which no text holds (the trainer refuses the file there).

    Raises:
        OSError: the file cannot be opened or read.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.txt"
    >>> _ = p.write_text("a<|endoftext|>b<|im_end|>c<|endoftext|>", encoding="utf-8")
    >>> count_markers(p, ["<|endoftext|>"], block_bytes=5).counts
    (('<|im_end|>', 1),)
    >>> count_markers(p).counts, count_markers(p, max_bytes=16).counts
    ((('<|endoftext|>', 2), ('<|im_end|>', 1)), (('<|endoftext|>', 1),))
    """
    counter = MarkerCounter(special_tokens)
    left = max_bytes if max_bytes is not None else -1
    with open(path, "rb") as handle:
        while left and (block := handle.read(block_bytes if left < 0 else min(block_bytes, left))):
            left -= len(block) if left > 0 else 0
            nul = block.find(b"\0")
            if nul >= 0:
                # Text holds no NUL, and training refuses the file at this one: reading on is wasted, and
                # on a sparse or binary file of 100 GB it held the refusal back for minutes.
                counter.feed(block[:nul])
                break
            counter.feed(block)
    counter.feed(b"", final=True)
    return counter.result()
