"""Lens 4, vocab: a vocabulary's size as 256 bytes + merges + special tokens, beside the shipped tokenizers'.

Every byte-level BPE vocabulary is built the same way: the 256 single bytes, one token per merge, and
the special tokens. GPT-2's 50,257 is 256 + 50,000 + 1. Larger shipped vocabularies are listed as
published facts (:data:`LADDER`); cl100k and o200k also hold ids that no string was assigned to (ids
past the last merge kept free around the special tokens). Those are counted from the rank files only
where tiktoken already has them in its local cache: this module never downloads anything.
"""

from __future__ import annotations

import base64
import hashlib
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.analysis.vocab_stats import vocab_split
from core.model import BYTE_BASE, CHAR_BASE, BPEModel


@dataclass(frozen=True)
class ShippedVocab:
    """A published tokenizer's vocabulary size, and for tiktoken encodings, where its rank file comes from.

    Attributes:
        name: what it is called.
        vocab: the number of ids (tiktoken's ``n_vocab``, one more than the largest id).
        special_ids: the ids of its special tokens, as published with it.
        rank_file: the URL tiktoken loads its ranks from (the key of tiktoken's local cache), or ``""``.
        rank_sha256: the published SHA-256 of that file: a cached copy counts only if it matches.
    """

    name: str
    vocab: int
    special_ids: tuple[int, ...] = ()
    rank_file: str = ""
    rank_sha256: str = ""


LADDER: tuple[ShippedVocab, ...] = (
    ShippedVocab("GPT-2", 50_257, (50_256,)),
    ShippedVocab("cl100k_base", 100_277, (100_257, 100_258, 100_259, 100_260, 100_276),
                 "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
                 "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
    ShippedVocab("o200k_base", 200_019, (199_999, 200_018),
                 "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
                 "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
    ShippedVocab("Gemma", 256_000),
)
"""Shipped vocabularies, smallest first: sizes and special-token ids as their makers published them."""


@dataclass(frozen=True)
class LadderRung:
    """One shipped vocabulary, with the ids no string was assigned to when they could be counted."""

    name: str
    vocab: int
    unassigned: tuple[int, ...] | None = None

    @property
    def note(self) -> str:
        """The unassigned ids in words: ``16 ids with no string (100256, 100261, …)``, or ``""`` if not counted.

        >>> LadderRung("x", 9, (3, 5)).note, LadderRung("x", 9).note
        ('2 ids with no string (3, 5)', '')
        """
        if self.unassigned is None:
            return ""
        if not self.unassigned:
            return "every id has a string"
        shown = ", ".join(map(str, self.unassigned[:4])) + (", …" if len(self.unassigned) > 4 else "")
        return f"{len(self.unassigned)} ids with no string ({shown})"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "vocab": self.vocab}
        if self.unassigned is not None:
            data["unassigned"] = list(self.unassigned)
        return data


@dataclass(frozen=True)
class VocabResult:
    """The arithmetic of one vocabulary, and the ladder of shipped ones.

    Attributes:
        name: the tokenizer's name.
        bytes: single-byte tokens (256 for a complete byte-level vocabulary).
        merges: merge rules.
        specials: special tokens.
        other: entries none of those explain (tokenizers from other tools may carry some); for a
            character-base model, its characters of two or more bytes.
        total: the vocabulary size.
        ladder: the shipped vocabularies of :data:`LADDER`.
        count_curve: ``(rank, count)`` of the merges' recorded training counts at evenly spaced ranks
            (empty when the file recorded none), for a plot of count against rank on a log scale.
    """

    name: str
    bytes: int
    merges: int
    specials: int
    other: int
    total: int
    ladder: tuple[LadderRung, ...] = field(default=())
    count_curve: tuple[tuple[int, int], ...] = ()
    base: str = BYTE_BASE
    """What encoding starts from: ``"bytes"``, or ``"chars"``, whose ``other`` entries are its characters."""

    @property
    def sum_text(self) -> str:
        """``256 bytes + 50,000 merges + 1 special = 50,257`` (with any entries none of those explain).

        >>> VocabResult("x", 256, 10, 0, 30, 296, base=CHAR_BASE).sum_text
        '256 bytes + 10 merges + 0 special + 30 characters = 296'
        """
        line = f"{self.bytes} bytes + {self.merges:,} merges + {self.specials} special"
        if self.other:
            line += f" + {self.other:,} {'characters' if self.base == CHAR_BASE else 'other'}"
        return f"{line} = {self.total:,}"

    def to_json(self) -> dict[str, Any]:
        return {"bytes": self.bytes, "merges": self.merges, "specials": self.specials, "total": self.total,
                "other": self.other, "ladder": [rung.to_json() for rung in self.ladder],
                "count_curve": [list(point) for point in self.count_curve]}


def unassigned_ids(ranks: set[int], vocab: int, special_ids: tuple[int, ...]) -> tuple[int, ...]:
    """The ids below ``vocab`` that are neither a rank (a token's string) nor a special token.

    >>> unassigned_ids({0, 1, 2}, 7, (4, 6))
    (3, 5)
    """
    taken = ranks | set(special_ids)
    return tuple(token_id for token_id in range(vocab) if token_id not in taken)


def tiktoken_cache_dir() -> Path | None:
    """Where tiktoken caches rank files (``TIKTOKEN_CACHE_DIR``, ``DATA_GYM_CACHE_DIR`` or the temp folder's
    ``data-gym-cache``), ``None`` when caching is switched off (an empty setting)."""
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            return Path(os.environ[variable]) if os.environ[variable] else None
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def cached_ranks(shipped: ShippedVocab, cache_dir: Path | None) -> set[int] | None:
    """The ranks in ``shipped``'s rank file if tiktoken's cache holds an intact copy, else ``None`` (never fetched).

    >>> cached_ranks(LADDER[0], None) is None
    True
    """
    if not shipped.rank_file or cache_dir is None:
        return None
    path = cache_dir / hashlib.sha1(shipped.rank_file.encode()).hexdigest()
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != shipped.rank_sha256:
        return None
    ranks: set[int] = set()
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            base64.b64decode(token)  # an intact file decodes; the hash has already vouched for it
            ranks.add(int(rank))
    return ranks


CURVE_POINTS = 40
"""How many ranks the merge-count curve samples."""


def count_curve(model: BPEModel, points: int = CURVE_POINTS) -> tuple[tuple[int, int], ...]:
    """The recorded count of the merges at ``points`` + 1 evenly spaced ranks (first and last included).

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"abc"}
    >>> count_curve(BPEModel(vocab, [(b"a", b"b"), (b"ab", b"c")], merge_counts=[9, 4]), 4)
    ((0, 9), (1, 4))
    """
    counts = model.merge_counts
    if not counts or any(count is None for count in counts):
        return ()
    last = len(counts) - 1
    ranks = sorted({round(last * i / points) for i in range(points + 1)})
    return tuple((rank, counts[rank]) for rank in ranks)  # type: ignore[misc]


def vocab_arithmetic(model: BPEModel, cache_dir: Path | None = None,
                     rank_sets: Mapping[str, set[int]] | None = None) -> VocabResult:
    """``model``'s size as bytes + merges + specials, and the ladder of shipped vocabularies.

    ``rank_sets`` (name -> ranks) stands in for the rank files; otherwise they are read from ``cache_dir``
    (tiktoken's cache), and a vocabulary whose file is not there is listed without its unassigned ids.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"<|endoftext|>", 257: b"ab"}
    >>> result = vocab_arithmetic(BPEModel(vocab, [(b"a", b"b")], ["<|endoftext|>"]))
    >>> result.bytes, result.merges, result.specials, result.total
    (256, 1, 1, 258)
    >>> [(rung.name, rung.vocab) for rung in result.ladder][0]
    ('GPT-2', 50257)
    """
    split = vocab_split(model)
    rungs = []
    for shipped in LADDER:
        ranks = rank_sets.get(shipped.name) if rank_sets is not None else cached_ranks(shipped, cache_dir)
        unassigned = unassigned_ids(ranks, shipped.vocab, shipped.special_ids) if ranks is not None else None
        rungs.append(LadderRung(shipped.name, shipped.vocab, unassigned))
    return VocabResult(model.name, split.byte_tokens, split.merges, split.specials, split.other,
                       model.vocab_size, tuple(rungs), count_curve(model), model.base)
