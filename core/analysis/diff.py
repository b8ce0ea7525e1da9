"""The structural diff of two tokenizers: where their merge lists part, why, and what that changes.

Two BPE tokenizers trained on the same text agree merge for merge until one pair is chosen over another;
everything after follows from that first choice. So the diff finds the shared merge prefix and the first
divergent rank, and asks whether the two pairs chosen there were equally frequent at that point (a tie,
which each library breaks by its own rule) or not (a real difference: another corpus, pattern or
counting). Everything is compared by token bytes, never by ids: files from other libraries lay out their
ids differently (Hugging Face numbers the bytes in its own alphabet order), and ids that moved are
reported as a finding of their own.

Whether the divergence is a tie is decided, best source first: by recounting pairs on a corpus after the
shared prefix; by both tokenizers' recorded counts at that rank when they were trained on the same
corpus with the same counting settings; by A's recorded runner-up count; otherwise it is unknown. Two
tokenizers of one corpus trained with other special tokens (or pattern, base, ``min_count``...) counted
other words, so their counts do not compare, and A's tie, if it had one, may have been with another pair:
that is left unknown, naming the settings, unless A's runner-up shows B's pair was less frequent.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core import reference
from core.analysis.compare import VocabOverlap, vocab_overlap
from core.corpus import open_corpus
from core.corpus.records import ReadOptions, SkippedRecords, shard_documents
from core.formats.byte_alphabet import encode_bytes
from core.model import CHAR_BASE, BPEModel
from core.train.reading import check_corpus_path, count_pretokens

Pair = tuple[bytes, bytes]

TIE_SOURCES = ("corpus", "recorded counts", "runner-up", "other settings", "unknown")
"""How a divergence's tie was decided (see the module docstring), in order of trust; ``"other settings"``:
not decided, since both were trained on one corpus but counted it differently (:func:`counting_differences`)."""


@dataclass(frozen=True, slots=True)
class Divergence:
    """The first rank where the merge lists differ.

    Attributes:
        rank: the 0-based merge rank.
        a: A's merge at that rank, or ``None`` when A has no more merges.
        b: B's merge at that rank, or ``None`` when B has no more merges.
        tie: whether the two pairs were equally frequent there; ``None`` when that cannot be told.
        source: how ``tie`` was decided, one of :data:`TIE_SOURCES`.
        count_a: A's pair count at that point, when known.
        count_b: B's pair count at that point, when known.
        other_settings: the training settings that made A and B count one corpus differently (see
            :func:`counting_differences`), when both files record them.
    """

    rank: int
    a: Pair | None
    b: Pair | None
    tie: bool | None
    source: str
    count_a: int | None = None
    count_b: int | None = None
    other_settings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MovedIds:
    """Tokens both vocabularies hold under different ids: how many, and the first few ``(token, id A, id B)``."""

    count: int
    examples: tuple[tuple[bytes, int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class EncodingDiff:
    """How the two tokenizers split one text.

    Attributes:
        tokens_a: tokens A makes of it.
        tokens_b: tokens B makes of it.
        same: whether both split it into the same token bytes.
        first_difference: the index of the first token whose bytes differ, or ``None`` when ``same``.
        token_a: A's token at that index (``None`` when A's tokens ran out first, or ``same``).
        token_b: B's token there, likewise.
        cuts_only_a: byte offsets where only A starts a token.
        cuts_only_b: byte offsets where only B starts a token.
    """

    tokens_a: int
    tokens_b: int
    same: bool
    first_difference: int | None
    token_a: bytes | None
    token_b: bytes | None
    cuts_only_a: int
    cuts_only_b: int


@dataclass(frozen=True)
class StructuralDiff:
    """Everything ``bpe-tui diff`` and the Diff view show for a pair of tokenizers."""

    merges_a: int
    merges_b: int
    shared_prefix: int
    first_divergence: Divergence | None
    overlap: VocabOverlap
    moved: MovedIds
    encoding: EncodingDiff | None = None
    other_settings: tuple[str, ...] = ()
    """Which of :data:`ENCODING_SETTINGS` differ: equal merges encode a text otherwise when they do."""

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` form: the issue's keys first, then the details. A pair's tokens are spelled in
        GPT-2's byte alphabet (lossless, and readable for text: ``["Ġ", "t"]``), and again as hex."""
        divergence = self.first_divergence
        data: dict[str, Any] = {
            "shared_prefix": self.shared_prefix,
            "first_divergence": None if divergence is None else {
                "rank": divergence.rank,
                "a": _spelled(divergence.a, encode_bytes),
                "b": _spelled(divergence.b, encode_bytes),
                "a_hex": _spelled(divergence.a, bytes.hex),
                "b_hex": _spelled(divergence.b, bytes.hex),
                "tie": divergence.tie,
                "tie_source": divergence.source,
                "count_a": divergence.count_a,
                "count_b": divergence.count_b,
                "other_settings": list(divergence.other_settings),
            },
            "overlap": {"both": self.overlap.shared, "only_a": self.overlap.only_a, "only_b": self.overlap.only_b},
            "merges": {"a": self.merges_a, "b": self.merges_b},
            "moved_ids": self.moved.count,
            "other_settings": list(self.other_settings),
        }
        if self.encoding is not None:
            enc = self.encoding
            data["text"] = {
                "tokens_a": enc.tokens_a,
                "tokens_b": enc.tokens_b,
                "same": enc.same,
                "first_difference": enc.first_difference,
                "cuts_only_a": enc.cuts_only_a,
                "cuts_only_b": enc.cuts_only_b,
            }
        return data


def _spelled(pair: Pair | None, spell: Callable[[bytes], str]) -> list[str] | None:
    return None if pair is None else [spell(part) for part in pair]


def shared_prefix(a: Sequence[Pair], b: Sequence[Pair]) -> int:
    """How many leading merges ``a`` and ``b`` have in common.

    >>> shared_prefix([(b"a", b"b"), (b"c", b"d")], [(b"a", b"b"), (b"d", b"c")])
    1
    """
    n = 0
    for left, right in zip(a, b):
        if left != right:
            break
        n += 1
    return n


def _merged(parts: list[bytes], ranks: Mapping[Pair, int]) -> list[bytes]:
    """A word's ``parts`` after every merge in ``ranks``, applied in rank order as training applied them.

    Picking the lowest-ranked pair present each time equals applying the merges one after another over
    the whole word: a merge only creates pairs holding its new token, and those all rank later.
    """
    while len(parts) > 1:
        best = min(
            (ranks[pair] for pair in zip(parts, parts[1:]) if pair in ranks), default=None
        )
        if best is None:
            break
        merged: list[bytes] = []
        index = 0
        while index < len(parts):
            if index + 1 < len(parts) and ranks.get((parts[index], parts[index + 1])) == best:
                merged.append(parts[index] + parts[index + 1])
                index += 2
            else:
                merged.append(parts[index])
                index += 1
        parts = merged
    return parts


def training_words(word_counts: Mapping[str, int], model: BPEModel | None = None) -> Counter[tuple[bytes, ...]]:
    """The words ``model``'s training would merge, from a corpus's pre-token counts: as training does
    (``core.reference``, steps 4 and 5), pre-tokens seen fewer than its ``min_count`` times are dropped, and
    a character base starts each pre-token from its characters, a character it has no token for (or one seen
    fewer than its ``min_char_count`` times) cutting the pre-token in two. Without ``model``: bytes, nothing dropped.

    >>> training_words({"low": 5, "lo": 1})
    Counter({(b'l', b'o', b'w'): 5, (b'l', b'o'): 1})
    """
    training = model.training if model is not None else None
    least = training.min_count if training is not None and training.min_count is not None else 1
    kept = Counter({word: n for word, n in word_counts.items() if n >= least})
    if model is None or model.base != CHAR_BASE:
        return reference.byte_words(kept)
    tokens = set(model.vocab.values())
    least_char = training.min_char_count if training is not None and training.min_char_count is not None else 1
    counts = reference.char_counts(kept)
    words: Counter[tuple[bytes, ...]] = Counter()
    for word, n in kept.items():
        run: list[bytes] = []
        for char in word:
            data = char.encode("utf-8", "surrogatepass")
            if counts[char] >= least_char and data in tokens:
                run.append(data)
                continue
            if run:
                words[tuple(run)] += n
            run = []
        if run:
            words[tuple(run)] += n
    return words


def pair_counts_after(
    word_counts: Mapping[str, int], merges: Sequence[Pair], *, trained_by: BPEModel | None = None
) -> Counter[Pair]:
    """Every adjacent pair's count over the pre-tokens ``word_counts`` once ``merges`` have been made.

    These are the counts training compares when it picks the next merge; ``trained_by`` is the tokenizer
    whose training to follow (its ``min_count`` and character base, see :func:`training_words`).

    >>> counts = pair_counts_after({"low": 5, "lower": 2}, [(b"l", b"o")])
    >>> counts[(b"lo", b"w")], counts[(b"w", b"e")]
    (7, 2)
    """
    ranks = {pair: rank for rank, pair in enumerate(merges)}
    counts: Counter[Pair] = Counter()
    for word, n in training_words(word_counts, trained_by).items():
        parts = _merged(list(word), ranks)
        for pair in zip(parts, parts[1:]):
            counts[pair] += n
    return counts


def _same_corpus(a: BPEModel, b: BPEModel) -> bool:
    if a.training is None or b.training is None:
        return False
    return bool(a.training.corpus_sha256) and a.training.corpus_sha256 == b.training.corpus_sha256


ENCODING_SETTINGS = ("special tokens", "pattern", "base", "normalizer")
"""What decides, besides the merges, how a tokenizer encodes: what is cut out whole, how text is split into
pre-tokens, whether a pre-token starts as bytes or characters, and the normal form the text is put in first."""


def counting_differences(a: BPEModel, b: BPEModel) -> tuple[str, ...]:
    """The settings with which ``a``'s and ``b``'s training counted pairs differently: special tokens (never
    part of a pre-token), pattern, base, normalizer, ``min_count`` and ``min_char_count``. On one corpus,
    recorded counts only compare when there are none: otherwise the two runs counted other words. (``errors``
    is not one: a corpus one run read strictly is valid UTF-8, which ``"replace"`` reads alike.)

    >>> plain = BPEModel({}, [], special_tokens=["<s>"])
    >>> counting_differences(plain, BPEModel({}, [])), counting_differences(plain, plain)
    (('special tokens',), ())
    """
    def settings(model: BPEModel) -> dict[str, object]:
        info = model.training
        return {
            "special tokens": frozenset(model.special_tokens),
            "pattern": model.pattern,
            "base": model.base,
            "normalizer": model.normalizer,
            "min count": (info.min_count or 1) if info is not None else 1,
            "min char count": (info.min_char_count or 1) if info is not None else 1,
        }

    mine, theirs = settings(a), settings(b)
    return tuple(name for name in mine if mine[name] != theirs[name])


def first_divergence(
    a: BPEModel, b: BPEModel, prefix: int, *, word_counts: Mapping[str, int] | None = None
) -> Divergence | None:
    """The first rank where ``a``'s and ``b``'s merges differ (``prefix`` of them are shared), and whether
    it was a tie, or ``None`` when one merge list is a prefix of the other and neither goes on.

    ``word_counts`` (pre-token -> count of a corpus, split as A splits it) lets the pairs be recounted, as A's
    training counted them (:func:`training_words`).
    """
    if prefix >= len(a.merges) and prefix >= len(b.merges):
        return None
    pair_a = a.merges[prefix] if prefix < len(a.merges) else None
    pair_b = b.merges[prefix] if prefix < len(b.merges) else None
    if word_counts is not None:
        counts = pair_counts_after(word_counts, a.merges[:prefix], trained_by=a)
        count_a = counts.get(pair_a, 0) if pair_a is not None else None
        count_b = counts.get(pair_b, 0) if pair_b is not None else None
        tie = None if count_a is None or count_b is None else count_a == count_b
        return Divergence(prefix, pair_a, pair_b, tie, "corpus", count_a, count_b)
    recorded_a, recorded_b = a.merge_count(prefix), b.merge_count(prefix)
    other_settings = counting_differences(a, b) if _same_corpus(a, b) else ()
    if recorded_a is not None and recorded_b is not None and _same_corpus(a, b) and not other_settings:
        return Divergence(prefix, pair_a, pair_b, recorded_a == recorded_b, "recorded counts", recorded_a, recorded_b)
    was_tie = a.merge_was_tie(prefix)
    if other_settings and was_tie is not False and pair_a is not None and pair_b is not None:
        # A's tie may have been with another pair: B took this one because it counted the corpus otherwise.
        return Divergence(prefix, pair_a, pair_b, None, "other settings", recorded_a, recorded_b, other_settings)
    if was_tie is not None and pair_b is not None:
        return Divergence(prefix, pair_a, pair_b, was_tie, "runner-up", recorded_a, None)
    return Divergence(prefix, pair_a, pair_b, None, "unknown", recorded_a, recorded_b)


def moved_ids(a: BPEModel, b: BPEModel, *, examples: int = 5) -> MovedIds:
    """Tokens in both vocabularies whose ids differ, in A's id order.

    >>> a = BPEModel({0: b"x", 1: b"y"}, [])
    >>> moved_ids(a, BPEModel({0: b"y", 1: b"x"}, []))
    MovedIds(count=2, examples=((b'x', 0, 1), (b'y', 1, 0)))
    """
    ids_b = {token: token_id for token_id, token in b.vocab.items()}
    moved = [
        (token, token_id, ids_b[token])
        for token_id, token in sorted(a.vocab.items())
        if token in ids_b and ids_b[token] != token_id
    ]
    return MovedIds(len(moved), tuple(moved[:examples]))


def encoding_diff(tokens_a: Sequence[bytes], tokens_b: Sequence[bytes]) -> EncodingDiff:
    """Compare two tokenizations of one text, given as each token's bytes.

    >>> diff = encoding_diff([b"th", b"e"], [b"the"])
    >>> diff.same, diff.first_difference, diff.token_a, diff.token_b, diff.cuts_only_a
    (False, 0, b'th', b'the', 1)
    """
    first = next((i for i, (x, y) in enumerate(zip(tokens_a, tokens_b)) if x != y), None)
    if first is None and len(tokens_a) != len(tokens_b):
        first = min(len(tokens_a), len(tokens_b))
    cuts = []
    for tokens in (tokens_a, tokens_b):
        offsets, offset = set(), 0
        for token in tokens[:-1]:
            offset += len(token)
            offsets.add(offset)
        cuts.append(offsets)
    return EncodingDiff(
        tokens_a=len(tokens_a),
        tokens_b=len(tokens_b),
        same=first is None,
        first_difference=first,
        token_a=tokens_a[first] if first is not None and first < len(tokens_a) else None,
        token_b=tokens_b[first] if first is not None and first < len(tokens_b) else None,
        cuts_only_a=len(cuts[0] - cuts[1]),
        cuts_only_b=len(cuts[1] - cuts[0]),
    )


def structural_diff(
    a: BPEModel,
    b: BPEModel,
    *,
    word_counts: Mapping[str, int] | None = None,
    encoded: tuple[Sequence[bytes], Sequence[bytes]] | None = None,
) -> StructuralDiff:
    """Diff ``a`` against ``b``.

    Args:
        a: the first tokenizer.
        b: the second.
        word_counts: pre-token counts of a corpus (``core.train.reading.count_pretokens``), to recount
            the pairs at the first divergence; without it, recorded counts are used where there are some.
        encoded: one text as A's and as B's token bytes, to report what differs when it is encoded.

    >>> base = {i: bytes([i]) for i in range(256)}
    >>> a = BPEModel(base | {256: b"ab", 257: b"cd"}, [(b"a", b"b"), (b"c", b"d")])
    >>> b = BPEModel(base | {256: b"ab", 257: b"bc"}, [(b"a", b"b"), (b"b", b"c")])
    >>> diff = structural_diff(a, b, word_counts={"abcd": 1})
    >>> diff.shared_prefix, diff.first_divergence.a, diff.first_divergence.b, diff.first_divergence.tie
    (1, (b'c', b'd'), (b'b', b'c'), False)
    """
    prefix = shared_prefix(a.merges, b.merges)
    return StructuralDiff(
        merges_a=len(a.merges),
        merges_b=len(b.merges),
        shared_prefix=prefix,
        first_divergence=first_divergence(a, b, prefix, word_counts=word_counts),
        overlap=vocab_overlap(a, b),
        moved=moved_ids(a, b),
        encoding=encoding_diff(*encoded) if encoded is not None else None,
        other_settings=tuple(name for name in counting_differences(a, b) if name in ENCODING_SETTINGS),
    )


def corpus_word_counts(
    path: str | os.PathLike[str], model: BPEModel, *, text_field: str = "text", skip_bad_records: bool = False
) -> Counter[str]:
    """The pre-token counts of the corpus at ``path``, split by ``model``'s pattern and special tokens, as
    training counts it: a text file, or a corpus of shards (JSON lines, Parquet, compressed, a folder or a
    glob) read record by record, each record's text on its own, never the JSON around it. Invalid UTF-8 is
    read as ``model``'s training read it: U+FFFD if it was trained with ``errors="replace"``, else refused.

    Raises:
        CorpusError: the corpus is missing or unreadable, a text file is binary or (unless so trained) not
            UTF-8, or a record is bad (unless ``skip_bad_records``), as training would say.
    """
    errors = model.training.errors if model.training is not None else "strict"
    corpus = open_corpus(path)
    if corpus.single_plain_text:
        check_corpus_path(path)  # a FIFO or a device is refused, not read
    options = ReadOptions(
        tuple(model.special_tokens), model.pattern, text_field=text_field, errors=errors,
        skip_bad_records=skip_bad_records,
    )
    counts: Counter[str] = Counter()
    skipped = SkippedRecords()
    for shard in corpus.shards:
        # Records one by one, and text in pieces of about a megabyte cut where pre-tokens end: a corpus of
        # many gigabytes is counted in flat memory, as training counts it.
        for text, _continues in shard_documents(shard, options, skipped):
            count_pretokens(text, list(model.special_tokens), model.pattern, counts)
    return counts
