"""The data of a byte-level BPE tokenizer, independent of how it was made or which file it came from.

Training returns one, every file format loads into and saves from one, and ``Tokenizer`` is built from one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.pretokenize.patterns import GPT2_PATTERN

TIE_RULE = "count, then lexicographically greater (left bytes, right bytes)"
"""How training breaks ties between equally frequent pairs (CS336 assignment 1)."""

BYTE_BASE = "bytes"
"""Training starts from the 256 bytes and encoding from a pre-token's bytes (GPT-2, CS336)."""

CHAR_BASE = "chars"
"""Training starts from the corpus's characters and encoding from a pre-token's characters; a character
without a token of its own falls back to its UTF-8 bytes (see :mod:`core.char_base`)."""

BASES = (BYTE_BASE, CHAR_BASE)


@dataclass(frozen=True, slots=True)
class TrainingInfo:
    """The parameters and input a tokenizer was trained with, kept so a result can be reproduced.

    Attributes:
        vocab_size: the vocabulary size asked for (the result may be smaller if pairs ran out).
        min_frequency: merges stopped when the best pair's count fell below this.
        corpus_path: the corpus file as given, or ``None`` for in-memory text.
        corpus_bytes: size of the corpus in bytes.
        corpus_sha256: hex SHA-256 of the corpus bytes.
        workers: processes used for pre-tokenisation (does not change the result).
        errors: how invalid UTF-8 was handled (``strict`` or ``replace``).
        stopped_after: the merges made when the user stopped the run, which then kept only those;
            ``None`` for a run that ran to its end. Written to files only when set, so files of complete
            runs are unchanged and older readers, which ignore unknown keys, still load the rest.
        min_char_count: for a character base, the fewest occurrences a character needed to get a token
            (``None`` for a byte base; written only when set, as ``stopped_after``).
        min_count: pre-tokens seen fewer times than this were dropped before merging (``None``: none were,
            min count 1; written only when set).
        pretokens_pruned: how many unique pre-tokens ``min_count`` dropped (with ``min_count`` only).

    >>> TrainingInfo(1000, stopped_after=212).to_json()["stopped_after"]
    212
    >>> "stopped_after" in TrainingInfo(1000).to_json()
    False
    """

    vocab_size: int
    min_frequency: int = 0
    corpus_path: str | None = None
    corpus_bytes: int = 0
    corpus_sha256: str = ""
    workers: int = 1
    errors: str = "strict"
    stopped_after: int | None = None
    min_char_count: int | None = None
    min_count: int | None = None
    pretokens_pruned: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "vocab_size": self.vocab_size,
            "min_frequency": self.min_frequency,
            "corpus_path": self.corpus_path,
            "corpus_bytes": self.corpus_bytes,
            "corpus_sha256": self.corpus_sha256,
            "workers": self.workers,
            "errors": self.errors,
        }
        if self.stopped_after is not None:
            data["stopped_after"] = self.stopped_after
        if self.min_char_count is not None:
            data["min_char_count"] = self.min_char_count
        if self.min_count is not None:
            data["min_count"] = self.min_count
        if self.pretokens_pruned is not None:
            data["pretokens_pruned"] = self.pretokens_pruned
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainingInfo:
        """The inverse of :meth:`to_json`, checking every field's type (files may be hand-edited).

        Raises:
            ValueError: a field has the wrong type or a negative count; the message names the field.

        >>> TrainingInfo.from_json({"vocab_size": 300, "workers": 2}).workers
        2
        >>> TrainingInfo.from_json({"vocab_size": "300"})
        Traceback (most recent call last):
        ValueError: 'vocab_size' must be a whole number from 0 below 2**63, got '300'
        """
        if "vocab_size" not in data:
            raise ValueError("'vocab_size' is missing")

        def count(key: str, default: int) -> int:
            value = data.get(key, default)
            if type(value) is not int or not 0 <= value < 1 << 63:  # beyond, float() of it would overflow
                raise ValueError(f"{key!r} must be a whole number from 0 below 2**63, got {value!r:.40}")
            return value

        def text(key: str, default: str | None, *, optional: bool = False) -> Any:
            value = data.get(key, default)
            if not (isinstance(value, str) or (optional and value is None)):
                raise ValueError(f"{key!r} must be a string{' or null' if optional else ''}, got {value!r:.40}")
            if isinstance(value, str) and not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    raise ValueError(f"{key!r} holds a lone surrogate, which is not text: {value!r:.40}") from None
            return value

        return cls(
            vocab_size=count("vocab_size", 0),
            min_frequency=count("min_frequency", 0),
            corpus_path=text("corpus_path", None, optional=True),
            corpus_bytes=count("corpus_bytes", 0),
            corpus_sha256=text("corpus_sha256", ""),
            workers=count("workers", 1),
            errors=text("errors", "strict"),
            stopped_after=None if data.get("stopped_after") is None else count("stopped_after", 0),
            min_char_count=None if data.get("min_char_count") is None else count("min_char_count", 1),
            min_count=None if data.get("min_count") is None else count("min_count", 1),
            pretokens_pruned=None if data.get("pretokens_pruned") is None else count("pretokens_pruned", 0),
        )


@dataclass(frozen=True)
class BPEModel:
    """A complete byte-level BPE tokenizer as data.

    Attributes:
        vocab: id -> token bytes. Ids 0-255 are single bytes for trained tokenizers; files from elsewhere
            (GPT-2) may order them differently, which is why merges are stored as bytes, not ids.
        merges: merge rules in rank order, as (left bytes, right bytes).
        special_tokens: special token strings, each also present in ``vocab`` (as UTF-8 bytes).
        pattern: the pre-tokenisation regex.
        merge_counts: the pair count each merge had when training made it (``None`` where unknown).
        merge_runner_ups: for each merge, the best count among the other pairs at that moment (``None``
            where unknown: files saved before bpe-tui recorded it, and every other format). A runner-up
            equal to the merge's count means the tie rule, not the count, chose the merge.
        training: how it was trained, when known.
        name: a short label for display (usually the file stem).
        base: what encoding starts from: ``"bytes"`` (byte-level BPE) or ``"chars"`` (character-level BPE,
            whose vocab also holds the 256 bytes for byte fallback). Part of the model's identity.
        fingerprint_verified: for a model loaded from a bpe-tui file, whether its recorded fingerprint was
            checked (``True``) or the file had none, so an edit may have gone unnoticed (``False``);
            ``None`` for other formats, which record none, and for models made in memory. Not part of
            the model's identity: it is left out of comparisons and of the fingerprint.
        normalizer: the Unicode normal form the text between special tokens is put in before it is split
            (``"NFC"`` for Qwen2's tokenizer.json; see :mod:`core.encode.normalizer`), or ``None``: the
            text as it is (every tokenizer bpe-tui trains). Part of the model's identity.
        plain_added_tokens: those of ``special_tokens`` that a tokenizer.json marked ``"special": false``
            (Qwen2.5's ``<tool_call>``): found in text whole like the others, but not special to Hugging Face
            (``decode(..., skip_special_tokens=True)`` keeps them). Kept so that saving marks them so again;
            it changes no id, so it is left out of the fingerprint.
    """

    vocab: dict[int, bytes]
    merges: list[tuple[bytes, bytes]]
    special_tokens: list[str] = field(default_factory=list)
    pattern: str = GPT2_PATTERN
    merge_counts: list[int | None] | None = None
    merge_runner_ups: list[int | None] | None = None
    training: TrainingInfo | None = None
    name: str = ""
    fingerprint_verified: bool | None = field(default=None, compare=False)
    base: str = BYTE_BASE
    normalizer: str | None = None
    plain_added_tokens: tuple[str, ...] = ()

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def merge_count(self, rank: int) -> int | None:
        """The recorded count of merge ``rank``, or ``None`` when the file did not record it."""
        if self.merge_counts is None or rank >= len(self.merge_counts):
            return None
        return self.merge_counts[rank]

    def merge_runner_up(self, rank: int) -> int | None:
        """The recorded runner-up count of merge ``rank``, or ``None`` when it was not recorded."""
        if self.merge_runner_ups is None or rank >= len(self.merge_runner_ups):
            return None
        return self.merge_runner_ups[rank]

    def merge_was_tie(self, rank: int) -> bool | None:
        """Whether merge ``rank`` was decided by the tie rule, or ``None`` when the file does not say.

        >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"cd"}
        >>> model = BPEModel(vocab, [(b"a", b"b"), (b"c", b"d")], merge_counts=[5, 3], merge_runner_ups=[5, 2])
        >>> model.merge_was_tie(0), model.merge_was_tie(1), BPEModel(vocab, [(b"a", b"b")]).merge_was_tie(0)
        (True, False, None)
        """
        count, runner_up = self.merge_count(rank), self.merge_runner_up(rank)
        if count is None or runner_up is None:
            return None
        return count == runner_up
