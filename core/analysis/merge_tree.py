"""How a token was built: the merge that made it, its parent pair, and its whole merge tree down to bytes.

A ``BPEModel`` stores merges as a ranked list of byte pairs; the inspector needs the reverse lookup (token
-> the merge that produced it) for every row of a vocabulary that may hold 50k+ tokens, so the lookups
are built once into dictionaries by ``MergeIndex``.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.model import BPEModel


@dataclass(frozen=True, slots=True)
class MergeNode:
    """One token in a merge tree.

    Attributes:
        token: the token's bytes.
        id: its vocabulary id, ``None`` if the vocabulary lacks it (possible in hand-edited files).
        rank: the rank of the merge that made it; ``None`` for single bytes and tokens no merge makes
            (special tokens, or foreign files with extra entries).
        count: the pair count recorded when that merge was made, ``None`` when unknown.
        children: the two parents for a merged token, else empty.
    """

    token: bytes
    id: int | None
    rank: int | None
    count: int | None
    children: tuple[MergeNode, ...] = ()

    @property
    def is_leaf(self) -> bool:
        return not self.children

    def leaves(self) -> list[bytes]:
        """The tokens at the bottom of the tree, left to right; single bytes for a well-formed model.

        >>> MergeIndex(_demo_model()).tree(b"low").leaves()
        [b'l', b'o', b'w']
        """
        if not self.children:
            return [self.token]
        return [leaf for child in self.children for leaf in child.leaves()]


class MergeIndex:
    """Reverse lookups over a model's merges: which merge made a token, and from which pair.

    When two merges produce the same bytes (possible when training keys pairs by id), the lower rank
    wins: it is the merge an encoder applies first, so it is the one that explains the token.

    >>> index = MergeIndex(_demo_model())
    >>> index.rank_of(b"low"), index.parents(b"low")
    (1, (b'lo', b'w'))
    >>> index.rank_of(b"l") is None
    True
    """

    def __init__(self, model: BPEModel) -> None:
        self.model = model
        self._rank: dict[bytes, int] = {}
        for rank, (left, right) in enumerate(model.merges):
            self._rank.setdefault(left + right, rank)
        self._id: dict[bytes, int] = {}
        for token_id in sorted(model.vocab):
            self._id.setdefault(model.vocab[token_id], token_id)

    def rank_of(self, token: bytes) -> int | None:
        """Rank of the merge that produced ``token``, ``None`` if no merge did."""
        return self._rank.get(token)

    def parents(self, token: bytes) -> tuple[bytes, bytes] | None:
        """The pair merged into ``token``, ``None`` for bytes and tokens no merge produced."""
        rank = self._rank.get(token)
        return None if rank is None else self.model.merges[rank]

    def count_of(self, token: bytes) -> int | None:
        """The pair count recorded when ``token``'s merge was made, ``None`` if unknown or not merged."""
        rank = self._rank.get(token)
        return None if rank is None else self.model.merge_count(rank)

    def id_of(self, token: bytes) -> int | None:
        """The lowest vocabulary id holding ``token``."""
        return self._id.get(token)

    def tree(self, token: bytes) -> MergeNode:
        """The merge tree of ``token``: each merged token's children are its parent pair.

        Recursion depth is bounded by the token's length in bytes, since every merge joins two
        non-empty tokens.

        >>> node = MergeIndex(_demo_model()).tree(b"low")
        >>> [child.token for child in node.children], node.children[0].rank
        ([b'lo', b'w'], 0)
        """
        parents = self.parents(token)
        children: tuple[MergeNode, ...] = ()
        if parents is not None:
            children = (self.tree(parents[0]), self.tree(parents[1]))
        return MergeNode(
            token=token,
            id=self.id_of(token),
            rank=self.rank_of(token),
            count=self.count_of(token),
            children=children,
        )


def _demo_model() -> BPEModel:
    """A three-merge model for the examples: l+o, lo+w, e+r."""
    vocab = {i: bytes([i]) for i in range(256)}
    merges = [(b"l", b"o"), (b"lo", b"w"), (b"e", b"r")]
    for offset, (left, right) in enumerate(merges):
        vocab[256 + offset] = left + right
    return BPEModel(vocab=vocab, merges=merges, merge_counts=[7, 7, 2])
