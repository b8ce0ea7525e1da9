"""Training's pair counts and the queue that picks each merge, kept up to date incrementally as merges apply.

The pre-tokens live in a store: ``core.train.joined_words.JoinedWords`` for the first merges of a corpus of
mostly unique pre-tokens (Japanese), which touch most of them, then ``core.train.word_store.WordStore``, with
an index of where each pair occurs. Both turn a merge into the change in each pair's count; the
``PairQueue`` here holds the counts and the heap that picks the next merge.

Most pairs a merge creates are rare (in Japanese two thirds of them occur once) and never become the best
pair. A pair can only gain occurrences in the merge that makes the younger of its two tokens, and the best
count can only fall from merge to merge. So a pair made with a count under ``COLD_BELOW`` is left "cold":
not counted, not indexed and not in the heap. Many runs end before the best count falls that low; a run
that gets there recounts every pair from the pre-tokens once and goes on with all of them.

``PairMerger.pop_best`` must give, merge after merge, the first of :func:`core.reference.ranked_pairs`
over :func:`core.reference.count_pairs` of the pre-tokens as they are (count and tie-break alike), and
``top_pairs`` the head of that ranking. The reference recounts every pair for every merge; here a merge
costs only the change in its neighbours' counts and a few heap operations.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import TYPE_CHECKING

from core.train.joined_words import JoinedWords
from core.train.word_store import MAX_TOKEN_ID, WordStore

if TYPE_CHECKING:
    from core.train.worker_pool import WorkerPool

__all__ = ["COLD_BELOW", "MAX_TOKEN_ID", "PairMerger", "PairQueue", "descending_key"]

_REVERSE_LATIN1 = {i: 256 - i for i in range(256)}

COLD_BELOW = 8
"""Pairs made with a count under this are left out until the best count falls below it."""


def descending_key(token: bytes) -> str:
    """A string that sorts in the *reverse* byte order of ``token``, so a min-heap pops the greater pair first.

    Each byte b becomes the code point 256 - b, and a terminator (257) sorts a proper prefix after its
    extensions: b"ab" > b"a", so key(b"ab") < key(b"a").

    >>> descending_key(b"ab") < descending_key(b"a") < descending_key(b"A")
    True
    """
    return token.decode("latin-1").translate(_REVERSE_LATIN1) + chr(257)


class PairQueue:
    """Pair counts and a max-heap of pairs with lazy invalidation.

    Heap entries are ``(-count, key(left), key(right), pair)``; the tie-break (the lexicographically
    greater pair of byte strings wins) is in the entry itself, never left to insertion order. Counts only
    fall without a push, so a popped entry whose count is stale overstates its pair: it goes back in with
    the true count.

    New pairs counted under ``cold_below`` are dropped. Every pair missing then counts less than
    ``cold_below``, so a top entry at or above it is the true best; below it, ``warm_all`` first asks
    ``recount`` for every pair's count. (``recount`` is passed to each call rather than kept: kept, a
    bound method of the merger would make a reference cycle, and the whole engine would outlive its run
    until a full garbage collection, which then takes noticeable time at exit.)
    """

    def __init__(
        self,
        counts: dict[str, int],
        vocab: dict[int, bytes],
        cold_below: int = COLD_BELOW,
    ) -> None:
        self.counts = counts
        self.vocab = vocab
        self.cold_below = cold_below
        self._keys = [descending_key(vocab[i]) for i in range(len(vocab))]
        self._heap: list[tuple[int, str, str, str]] = []
        self._fill_heap()

    def _fill_heap(self) -> None:
        keys = self._keys
        self._heap = [(-count, keys[ord(p[0])], keys[ord(p[1])], p) for p, count in self.counts.items()]
        heapq.heapify(self._heap)

    def warm_all(self, recount: Callable[[], dict[str, int]]) -> None:
        """Count every pair again (``recount``), cold ones included, and from now on drop none."""
        self.cold_below = 1
        self.counts = recount()
        self._fill_heap()

    def top_pairs(self, n: int, recount: Callable[[], dict[str, int]]) -> list[tuple[str, int]]:
        """The ``n`` best pairs now, in the order training would pick them (scans all counts)."""
        vocab = self.vocab
        while True:
            best = heapq.nlargest(
                n,
                self.counts.items(),
                key=lambda item: (item[1], vocab[ord(item[0][0])], vocab[ord(item[0][1])]),
            )
            if self.cold_below == 1 or (len(best) == n and best[-1][1] >= self.cold_below):
                return best
            self.warm_all(recount)

    def pop_best(self, recount: Callable[[], dict[str, int]]) -> tuple[str, int, int] | None:
        """Remove and return the best pair with its count and the runner-up's count, or None if none is left."""
        # Once warm (cold_below 1) no pair is missing: a count under 1 is no pair at all, and counting every
        # pair again would only find the same. (It did, at every merge that left one kind of pair, as in a
        # file of one repeated byte: a pass over every pre-token each time.)
        if self.top_count() < self.cold_below > 1:
            self.warm_all(recount)
        heap = self._heap
        if not heap:
            return None
        neg, _, _, pair = heapq.heappop(heap)  # top_count left a current entry on top
        del self.counts[pair]
        runner_up = self.top_count()
        if runner_up < self.cold_below > 1:
            self.warm_all(recount)
            del self.counts[pair]  # counted again, but it is about to be merged
            runner_up = self.top_count()
        return pair, -neg, runner_up

    def top_count(self) -> int:
        """Make the heap's top entry current and return its count, 0 if the heap is empty."""
        heap, counts = self._heap, self.counts
        while heap:
            neg, key_a, key_b, pair = heap[0]
            current = counts.get(pair, 0)
            if current == -neg:
                return current
            if 0 < current < -neg:
                heapq.heapreplace(heap, (-current, key_a, key_b, pair))
            else:
                heapq.heappop(heap)
        return 0

    def add_token(self, pair: str, new_id: int) -> None:
        """Record the token made by merging ``pair``: its bytes, and its sort key from its parts' keys
        (the key of ``a + b`` is ``a``'s key without its terminator, then ``b``'s key)."""
        vocab, keys = self.vocab, self._keys
        left, right = ord(pair[0]), ord(pair[1])
        vocab[new_id] = vocab[left] + vocab[right]
        keys.append(keys[left][:-1] + keys[right])

    def update(self, deltas: dict[str, int], merged: str) -> None:
        """Apply count changes; pairs that gained are pushed, pairs that lost are fixed lazily on pop.

        A pair gains only when it is new (one of its tokens was just made), so its gain is its count.
        """
        counts, keys, heap = self.counts, self._keys, self._heap
        get = counts.get
        least = self.cold_below
        for key, delta in deltas.items():
            if delta >= least:
                counts[key] = delta
                heapq.heappush(heap, (-delta, keys[ord(key[0])], keys[ord(key[1])], key))
            elif delta < 0 and key != merged:
                count = get(key)
                if count is None:  # cold
                    continue
                if count + delta > 0:
                    counts[key] = count + delta
                else:
                    del counts[key]


class PairMerger:
    """The merge engine: a store of pre-tokens (``JoinedWords`` while merges are dense, then a
    ``WordStore``) and the ``PairQueue`` that picks each merge.

    ``word_counts`` maps each unique pre-token to its count: as text, whose UTF-8 bytes are the tokens to
    start from, or with ``as_tokens`` already as strings of token characters (``chr(id)`` a token).

    >>> merger = PairMerger({"low": 1, " low": 2, " lower": 2, " newest": 1}, {i: bytes([i]) for i in range(256)})
    >>> merger.pop_best()
    ('ow', 5, 5)
    """

    def __init__(
        self,
        word_counts: dict[str, int],
        vocab: dict[int, bytes],
        cold_below: int = COLD_BELOW,
        pool: WorkerPool | None = None,
        parts: int = 1,
        as_tokens: bool = False,
    ) -> None:
        if as_tokens:  # already strings of token characters (the character base: core.char_base.token_words)
            words = list(word_counts)
        else:
            words = [piece.encode("utf-8").decode("latin-1") for piece in word_counts]  # byte b -> chr(b)
        freqs = list(word_counts.values())
        self.words: JoinedWords | WordStore
        if JoinedWords.suits(words, freqs):
            self.words = JoinedWords(words, freqs)
            counts = self.words.count()
        else:
            self.words = WordStore(words, freqs)
            counts = self.words.recount(pool, parts)  # the first count may be shared with a process pool
            self.words.index_from = cold_below
        self.queue = PairQueue(counts, vocab, cold_below)

    def _recount(self) -> dict[str, int]:
        if isinstance(self.words, JoinedWords):
            return self.words.count()
        counts = self.words.recount()
        self.words.index_from = 1
        return counts

    def top_pairs(self, n: int) -> list[tuple[str, int]]:
        return self.queue.top_pairs(n, self._recount)

    def pop_best(self) -> tuple[str, int, int] | None:
        """The next merge (see ``PairQueue.pop_best``); hands over to a ``WordStore`` once merges are sparse."""
        best = self.queue.pop_best(self._recount)
        if best is not None and isinstance(self.words, JoinedWords) and self.words.is_sparse(best[1]):
            store = self.words.word_store()
            store.index(self.queue.counts.keys() | {best[0]}, self.queue.cold_below)
            self.words = store
        return best

    def apply(self, pair: str, new_id: int) -> None:
        """Merge ``pair`` into token ``new_id`` everywhere and update the counts."""
        self.queue.add_token(pair, new_id)
        self.queue.update(self.words.merge(pair, chr(new_id)), pair)
