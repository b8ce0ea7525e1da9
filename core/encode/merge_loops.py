"""The two merge loops of one token sequence, by rank: exact GPT-2 semantics, one for short and one for long.

The rule (GPT-2, tiktoken, CS336) is :func:`core.reference.encode_pretoken`: repeatedly merge the adjacent
pair with the lowest merge rank, the leftmost one when the same pair occurs twice, until no adjacent pair
has a rank. :func:`merge_small` rescans a short list (``min`` and ``list.index`` run in C, so for a few
dozen tokens this beats any cleverer structure); :func:`merge_heap` keeps a heap of pair ranks over a
linked list of positions, O(n log n), for long ones. The caching and seam checks built on them are in
:mod:`core.encode.piece_merge`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from heapq import heapify, heappop, heappush
from itertools import repeat

NO_RANK = 1 << 62
"""The rank of a pair that never merges: larger than any real rank, so ``min`` skips it."""

SMALL_LIMIT = 64
"""Up to this many tokens :func:`merge_small` is faster than :func:`merge_heap`."""


def merge_small(ids: list[int], pair_ranks: Mapping[tuple[int, int], int], merged_ids: Sequence[int]) -> list[int]:
    """Merge ``ids`` in place by rank, rescanning a list of pair ranks each step (for short lists).

    ``pair_ranks`` maps ``(left id, right id)`` to the merge rank; ``merged_ids[rank]`` is the id it makes.

    >>> merge_small([1, 2, 3], {(1, 2): 1, (2, 3): 0, (1, 5): 2}, [5, 4, 6])
    [6]
    """
    get = pair_ranks.get
    ranks = list(map(get, zip(ids, ids[1:]), repeat(NO_RANK)))
    while ranks:
        rank = min(ranks)
        if rank == NO_RANK:
            break
        i = ranks.index(rank)  # the leftmost occurrence, as GPT-2 does
        ids[i] = merged = merged_ids[rank]
        del ids[i + 1]
        del ranks[i]
        if i < len(ranks):
            ranks[i] = get((merged, ids[i + 1]), NO_RANK)
        if i:
            ranks[i - 1] = get((ids[i - 1], merged), NO_RANK)
    return ids


def merge_heap(ids: list[int], pair_ranks: Mapping[tuple[int, int], int], merged_ids: Sequence[int]) -> list[int]:
    """Merge ``ids`` by rank in O(n log n): a heap of ``rank * n + position`` over a linked list.

    Heap entries are never removed when a merge changes their pair; a popped entry is used only if
    its position is still alive and the pair there still has that rank (a pair's rank never recurs at
    a position, because tokens there only grow). The position term makes equal ranks pop leftmost first.

    >>> merge_heap([1, 1, 1, 1, 1], {(1, 1): 0, (2, 2): 1}, [2, 3])
    [3, 1]
    """
    n = len(ids)
    if n < 2:
        return ids
    get = pair_ranks.get
    heap = [rank * n + i for i, rank in enumerate(map(get, zip(ids, ids[1:]))) if rank is not None]
    heapify(heap)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    pop, push = heappop, heappush
    while heap:
        rank, i = divmod(pop(heap), n)
        left = ids[i]
        if left < 0:
            continue
        j = nxt[i]
        if j == n or get((left, ids[j])) != rank:
            continue
        ids[i] = merged = merged_ids[rank]
        ids[j] = -1
        k = nxt[i] = nxt[j]
        if k < n:
            prv[k] = i
            new = get((merged, ids[k]))
            if new is not None:
                push(heap, new * n + i)
        p = prv[i]
        if p >= 0:
            new = get((ids[p], merged))
            if new is not None:
                push(heap, new * n + p)
    return [token for token in ids if token >= 0]
