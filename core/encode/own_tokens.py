"""Tokens proved to be their own encoding, and seams proved final, from the merge list alone.

BPE of a pre-token is merging by rank, but two facts often give the answer without merging:

* a pre-token whose bytes are one token ``t`` encodes as ``[t]`` when ``t`` is its *own encoding*
  (merging ``bytes(t)`` by rank ends in ``t``);
* two tokens ``[u, v]`` are the encoding of their joined bytes when both are their own encodings and
  the seam between them is *final* (merging ``bytes(u) + bytes(v)`` never joins across it).

In a merge list made by BPE training every token is its own encoding (the merge that made ``t`` joined
two neighbours of some word at that point of training, and ``t``'s bytes alone go through the same
merges), and tiktoken takes it for granted: it looks a whole piece up before merging. A converted or
hand-edited merge list need not obey it, so here both facts are proved, and what is not proved is merged.

The proofs hold for a *monotone* merge list, where both sides of every merge are single bytes or made
only by earlier merges (lists made by training are). Then merging any bytes applies ranks in increasing
order, so a rank is a moment. Merging ``bytes(u) + bytes(v)``, each side goes through the states of its
own encoding until a merge joins a token across the seam. The token left of the seam is then on ``u``'s
*right spine* (``u``, the right side of the merge that made it, that one's right side, ... down to a
byte), each present from the merge that made it until the merge that made its parent; likewise on ``v``'s
left spine. The two spines cut the ranks into intervals; the pair present during an interval merges
across the seam exactly when its rank falls before the end of the interval (or at it, when the end is
the right token's own merge: the leftmost pair of equal rank merges first). Walking both spines down
together visits each interval once: ``len(right spine) + len(left spine)`` lookups. The seam is final if
no pair merges; ``t`` made from ``u`` and ``v`` by merge ``r`` is its own encoding if none merges before
``r`` (then the state at ``r`` is ``[u, v]``). A token made by two merges is proved by at most one of
them: if merging its bytes makes it by one merge, that crosses the seam of the other before its rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from operator import ge, itemgetter

_NEVER = 1 << 62
"""A rank after every merge: the end of the interval of a token nothing consumes."""


class OwnTokens:
    """The proved tokens of one merge list, and the seam walk between two of them.

    Args:
        byte_ids: the id of each single byte.
        pair_ranks: ``(left id, right id) -> rank`` for every merge (the first rank of a repeated pair).
        merged_ids: ``merged_ids[rank]`` is the id merge ``rank`` makes.

    >>> own = OwnTokens(range(3), {(0, 1): 0, (1, 2): 1, (3, 2): 2, (0, 4): 3}, [3, 4, 5, 6])
    >>> sorted(own.made_at.items())
    [(0, -1), (1, -1), (2, -1), (3, 0), (4, 1), (5, 2)]
    >>> own.seam_is_final(0, 4), own.seam_is_final(2, 0)
    (False, True)

    (Token 6 is the bytes 0 1 2 as ``0 + (1 2)``, but merging those bytes joins 0 and 1 first.)
    """

    __slots__ = ("made_at", "_left_of", "_right_of", "_pair_ranks")

    def __init__(
        self, byte_ids: Iterable[int], pair_ranks: Mapping[tuple[int, int], int], merged_ids: Sequence[int]
    ) -> None:
        self._pair_ranks = pair_ranks
        self.made_at: dict[int, int] = dict.fromkeys(byte_ids, -1)
        """Each proved token (single bytes included) -> the rank of the merge that makes it (-1 for a byte)."""
        self._left_of: dict[int, int] = {}
        self._right_of: dict[int, int] = {}
        last_made = dict(self.made_at)  # token -> the last rank that makes it
        last_made.update(zip(merged_ids, range(len(merged_ids))))
        ranks = pair_ranks.values()
        for side in (0, 1):  # (C-level maps: this runs for every tokenizer built)
            if any(map(ge, map(last_made.get, map(itemgetter(side), pair_ranks), ranks), ranks)):
                return  # not monotone (or a side nothing makes): prove nothing
        made_at, merges_below = self.made_at, self._merges_below
        # In rank order, as Tokenizer builds pair_ranks (in another order fewer tokens would be proved).
        for pair, rank in pair_ranks.items():
            left, right = pair
            if left in made_at and right in made_at and not merges_below(left, right, rank):
                # (the pair itself merges at `rank`, not before it)
                token = merged_ids[rank]
                made_at[token] = rank
                self._left_of[token], self._right_of[token] = pair

    @property
    def merged(self) -> list[int]:
        """The tokens made by a merge that are proved their own encoding, in rank order."""
        return list(self._left_of)

    def seam_is_final(self, left: int, right: int) -> bool | None:
        """Whether ``[left, right]`` is the encoding of their joined bytes; ``None`` if either is not proved."""
        if left not in self.made_at or right not in self.made_at:
            return None
        # The pair itself merges across the seam whatever its rank: both are present from then on.
        return self._pair_ranks.get((left, right)) is None and not self._merges_below(left, right, _NEVER)

    def _merges_below(self, left: int, right: int, end: int) -> bool:
        """Whether merging ``bytes(left) + bytes(right)`` (both proved) joins a pair across their seam, other than
        ``(left, right)`` itself, before rank ``end``: the walk down both spines."""
        made_at, left_of, right_of, get = self.made_at, self._left_of, self._right_of, self._pair_ranks.get
        x, y, x_ends, y_ends = left, right, end, end
        made_x, made_y = made_at[x], made_at[y]
        while True:
            if made_x > made_y:
                x_ends, x = made_x, right_of[x]
                made_x = made_at[x]
            elif made_y >= 0:
                y_ends, y = made_y, left_of[y]
                made_y = made_at[y]
            else:
                return False  # both spines walked down to bytes
            cross = get((x, y))
            if cross is not None and (cross < x_ends and cross < y_ends or cross == y_ends < x_ends):
                return True
