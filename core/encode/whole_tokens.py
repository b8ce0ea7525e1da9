"""Which tokens are their own encoding: a pre-token whose bytes are such a token needs no merge loop.

About half the distinct pre-tokens of English text are one token each (``" something"``), and tiktoken
answers those with one lookup. Taking a vocabulary hit as the answer is not exact in general: BPE on a
token's bytes may take another path and end in other tokens (:func:`core.reference.encode_pretoken` is
the rule). It is exact for a token ``t`` that is *whole*: ``encode_pretoken(bytes(t)) == [t]``. This
module decides that per token without running the merge loop, from the merge tree, when the vocabulary
is *tree-ordered*: every merge makes its own token (no two merges make the same one, none makes a
single byte), and each of its two operands is a single byte or made by an earlier merge. Vocabularies
trained by BPE, GPT-2's included, are; for others :attr:`WholeTokens.applies` is false and nothing changes.

Why the test below is exact, for ``t`` made by merge ``k`` from ``(l, r)`` in a tree-ordered vocabulary:

* A merge's result takes part only in later merges, so the ranks BPE applies never decrease.
* ``t`` ends the run only if the last merge is ``(l, r)``: the run must make ``l`` from the left bytes and
  ``r`` from the right bytes without any merge across the seam between them. A run that never merges
  across the seam does on each side exactly what BPE does on that side alone, so ``l`` and ``r`` must be
  whole themselves.
* Across the seam stands the pair (last token of the left side, first token of the right side). The left
  side's last token grows along the right spine of ``l``'s merge tree (byte, ..., ``l.right``, ``l``),
  each one made at its merge's rank; the right side's first token along the left spine of ``r``. The pair
  ``(L, R)`` stands from when both exist until the next of them is made. BPE merges it across the seam
  exactly when its rank ``c`` comes before both next ranks: ``c`` below the next left one (at an equal
  rank the two pairs are the same pair and the left one, further left, goes first) and ``c`` at most the
  next right one (there the seam pair is the further left).
* So ``t`` is whole exactly when ``l`` and ``r`` are and no pair met on that walk is merged, which costs one
  rank lookup per spine step instead of a merge loop over the token's bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain, repeat
from operator import itemgetter, lt

_NEVER = 1 << 62


class WholeTokens:
    """Decides, and remembers, whether each token is the BPE encoding of its own bytes.

    Args:
        byte_ids: the id of each single byte.
        pair_ranks: ``(left id, right id) -> rank``, the first rank of each pair.
        merged_ids: ``merged_ids[rank]`` is the id merge ``rank`` makes.

    >>> whole = WholeTokens(range(256), {(104, 105): 0, (105, 33): 1, (256, 33): 2}, [256, 257, 258])
    >>> whole.applies, whole.is_whole(256), whole.is_whole(258), whole.is_whole(257)
    (True, True, True, True)
    >>> crossing = WholeTokens(range(256), {(98, 99): 0, (97, 98): 1, (257, 99): 2}, [256, 257, 258])
    >>> crossing.is_whole(258)  # "abc": "bc" merges first, so "ab" + "c" never meet
    False
    """

    def __init__(self, byte_ids: Sequence[int], pair_ranks: Mapping[tuple[int, int], int], merged_ids: Sequence[int]):
        self._pair_ranks = pair_ranks
        pairs = list(pair_ranks)
        ranks = list(pair_ranks.values())
        made = list(map(merged_ids.__getitem__, ranks))
        # rank at which each token is made; single bytes exist from the start
        self._made_at: dict[int, int] = dict.fromkeys(byte_ids, -1)
        self._made_at.update(zip(made, ranks))
        self._split: dict[int, tuple[int, int]] = dict(zip(made, pairs))
        rank_of = self._made_at.get
        operand_ranks = list(map(rank_of, chain(map(itemgetter(0), pairs), map(itemgetter(1), pairs)), repeat(_NEVER)))
        self.applies = (
            len(self._split) == len(made)  # no token made by two merges
            and len(self._made_at) == len(made) + len(set(byte_ids)) == len(made) + 256  # none a byte
            and all(map(lt, operand_ranks, ranks + ranks))  # operands made earlier
        )
        """Whether the vocabulary is tree-ordered, so that :meth:`is_whole` is exact; else it answers no."""
        self._whole: dict[int, bool] = dict.fromkeys(byte_ids, True)

    def is_whole(self, token: int) -> bool:
        """Whether ``token``'s bytes encode to ``[token]`` (always false when :attr:`applies` is false)."""
        known = self._whole.get(token)
        if known is not None:
            return known
        if not self.applies or token not in self._split:
            return False  # not made by any merge: BPE never makes it
        left, right = self._split[token]
        verdict = self.is_whole(left) and self.is_whole(right) and not self._seam_merges(left, right)
        self._whole[token] = verdict
        return verdict

    def _seam_merges(self, left: int, right: int) -> bool:
        """Whether BPE, building ``left`` and ``right`` side by side, merges across the seam between them."""
        split, made_at, get = self._split, self._made_at, self._pair_ranks.get
        left_spine = [left]  # the left side's last token, from the whole token down to a byte
        while left_spine[-1] in split:
            left_spine.append(split[left_spine[-1]][1])
        right_spine = [right]  # the right side's first token, likewise
        while right_spine[-1] in split:
            right_spine.append(split[right_spine[-1]][0])
        i, j = len(left_spine) - 1, len(right_spine) - 1  # walk both spines upward, in rank order
        while i or j:
            next_left = made_at[left_spine[i - 1]] if i else _NEVER
            next_right = made_at[right_spine[j - 1]] if j else _NEVER
            rank = get((left_spine[i], right_spine[j]))
            if rank is not None and rank < next_left and rank <= next_right:
                return True
            if next_left <= next_right:
                i -= 1
            else:
                j -= 1
        return False
