"""The delete-merge lens: take one merge out of a tokenizer and re-encode a text; nothing complains.

Removing merge ``K`` removes the token it made, so every later id moves down by one. Text that used the
token now comes out as its pieces, and every other token after it in the vocabulary silently changes id.
A model fed these ids would read a different word wherever a shifted id lands: no error is raised
anywhere, which is the lesson. Merges that needed the deleted token as one side can never fire again,
so they are dropped too (their own tokens stay, with shifted ids).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from core.analysis.lenses.token_strings import token_strings
from core.encode.tokenizer import Tokenizer
from core.errors import SettingsError
from core.model import BPEModel


@dataclass(frozen=True, slots=True)
class DeletedMerge:
    """A text encoded with and without one merge.

    Attributes:
        rank: the merge removed (0 is the first merge learnt).
        pair: its two sides.
        removed_id: the id of the token it made, which the smaller tokenizer lacks (``None`` when another
            merge makes the same bytes, so the token and every id stay).
        dropped_merges: later merges removed with it because one side was the deleted token.
        ids_before: the text's ids with every merge.
        ids_after: its ids without the merge.
        tokens_before: the bytes of each token before.
        tokens_after: the bytes of each token after.
    """

    rank: int
    pair: tuple[bytes, bytes]
    removed_id: int | None
    dropped_merges: int
    ids_before: tuple[int, ...]
    ids_after: tuple[int, ...]
    tokens_before: tuple[bytes, ...]
    tokens_after: tuple[bytes, ...]

    @property
    def changed_before(self) -> frozenset[int]:
        """Positions in ``ids_before`` of tokens that no longer cover the same bytes."""
        after = set(_extents(self.tokens_after))
        return frozenset(i for i, extent in enumerate(_extents(self.tokens_before)) if extent not in after)

    @property
    def changed_after(self) -> frozenset[int]:
        """Positions in ``ids_after`` of tokens that cover bytes no token covered alone before."""
        before = set(_extents(self.tokens_before))
        return frozenset(i for i, extent in enumerate(_extents(self.tokens_after)) if extent not in before)

    @property
    def shifted_after(self) -> frozenset[int]:
        """Positions in ``ids_after`` of tokens with the same bytes as before but an id one lower."""
        before = dict(zip(_extents(self.tokens_before), self.ids_before))
        return frozenset(
            i
            for i, (extent, token_id) in enumerate(zip(_extents(self.tokens_after), self.ids_after))
            if before.get(extent, token_id) == token_id + 1
        )

    @property
    def changed_tokens(self) -> int:
        """How many tokens of the original encoding are gone (split into smaller tokens)."""
        return len(self.changed_before)

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "pair": token_strings(self.pair),
            "removed_id": self.removed_id,
            "dropped_merges": self.dropped_merges,
            "ids_before": list(self.ids_before),
            "ids_after": list(self.ids_after),
            "tokens_before": token_strings(self.tokens_before),
            "tokens_after": token_strings(self.tokens_after),
            "changed_tokens": self.changed_tokens,
            "shifted_ids": len(self.shifted_after),
        }


def _extents(tokens: tuple[bytes, ...]) -> list[tuple[int, int]]:
    """The byte range each token covers in the joined text."""
    extents, offset = [], 0
    for token in tokens:
        extents.append((offset, offset + len(token)))
        offset += len(token)
    return extents


def without_merge(model: BPEModel, rank: int) -> tuple[BPEModel, int | None, int]:
    """``model`` without merge ``rank``: ``(smaller model, removed id or None, merges dropped with it)``.

    The token the merge made leaves the vocabulary and every larger id moves down by one. Later merges
    that use that token as a side are dropped too: nothing can make their side any more.

    Raises:
        SettingsError: ``rank`` is not the rank of one of the model's merges.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"abc", 258: b"cd"}
    >>> model = BPEModel(vocab, [(b"a", b"b"), (b"ab", b"c"), (b"c", b"d")])
    >>> smaller, removed, dropped = without_merge(model, 0)
    >>> smaller.merges, removed, dropped, smaller.vocab[256], smaller.vocab[257]
    ([(b'c', b'd')], 256, 1, b'abc', b'cd')
    """
    if type(rank) is not int or not 0 <= rank < len(model.merges):
        raise SettingsError(f"merge rank must be from 0 to {len(model.merges) - 1}, got {rank!r:.40}")
    left, right = model.merges[rank]
    token = left + right
    rest = model.merges[:rank] + model.merges[rank + 1 :]
    if any(a + b == token for a, b in rest):  # another merge still makes the token: it stays
        return replace(model, merges=rest, merge_counts=None), None, 0
    kept = [(a, b) for a, b in rest if token not in (a, b)]
    removed = min(token_id for token_id, value in model.vocab.items() if value == token)
    vocab = {
        (token_id - 1 if token_id > removed else token_id): value
        for token_id, value in model.vocab.items()
        if token_id != removed
    }
    return replace(model, vocab=vocab, merges=kept, merge_counts=None), removed, len(rest) - len(kept)


def earliest_merge_in(model: BPEModel, tokens: list[bytes] | tuple[bytes, ...]) -> int | None:
    """The lowest rank among the merges that made ``tokens``, or ``None`` if none was made by a merge.

    Deleting this merge changes the text and shifts the ids of every later token: the lens's default.

    >>> model = BPEModel({i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"cd"}, [(b"a", b"b"), (b"c", b"d")])
    >>> earliest_merge_in(model, [b"x", b"cd", b"ab"]), earliest_merge_in(model, [b"x"])
    (0, None)
    """
    wanted = set(tokens)
    return next((rank for rank, (left, right) in enumerate(model.merges) if left + right in wanted), None)


def delete_merge(tokenizer: Tokenizer, rank: int, text: str) -> DeletedMerge:
    """Encode ``text`` with ``tokenizer`` and with the tokenizer lacking merge ``rank``.

    Raises:
        SettingsError: ``rank`` is not one of the tokenizer's merge ranks.

    >>> from core.reference import train
    >>> vocab, merges = train("low low low lower lower newest", 256 + 5)
    >>> merges[2], vocab[258], vocab[259]
    ((b' ', b'low'), b' low', b'er')
    >>> result = delete_merge(Tokenizer(vocab, merges), 2, "lower low")
    >>> result.ids_before, result.ids_after
    ((257, 259, 258), (257, 258, 32, 257))
    >>> result.changed_tokens, sorted(result.shifted_after)
    (1, [1])

    ``er`` is now 258, the id `` low`` had: a model reading these ids sees `` low`` where ``er`` was.
    """
    model = tokenizer.model
    smaller, removed, dropped = without_merge(model, rank)
    after_tokenizer = Tokenizer.from_model(smaller)
    before = tokenizer.encode_ordinary(text)
    after = after_tokenizer.encode_ordinary(text)
    return DeletedMerge(
        rank=rank,
        pair=model.merges[rank],
        removed_id=removed,
        dropped_merges=dropped,
        ids_before=tuple(before),
        ids_after=tuple(after),
        tokens_before=tuple(tokenizer.decode_tokens_bytes(before)),
        tokens_after=tuple(after_tokenizer.decode_tokens_bytes(after)),
    )
