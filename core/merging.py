"""The merge engine behind training: pair counts kept up to date incrementally as merges are applied.

Each unique pre-token is stored as a ``str`` with one character per token id (``chr(id)``), so the hot
operations run in C: ``str.replace`` applies a merge to a pre-token left to right, exactly as BPE does,
``str.find`` locates occurrences, and a pair is the 2-character slice ``word[i:i + 2]``, a cheap dict key.

The work is split in two: a ``WordShard`` holds pre-tokens and turns a merge into count deltas, and a
``PairQueue`` holds the global counts and the heap that picks the next merge. ``PairMerger`` joins one of
each in this process; ``core.sharded_merging`` spreads the shards over processes for large corpora.

An index maps each pair to the pre-tokens it occurs in. It is only ever appended to, so it may list a
pre-token that no longer has the pair (or list it twice); a C-level ``find`` skips those.
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict

_REVERSE_LATIN1 = {i: 256 - i for i in range(256)}

MAX_TOKEN_ID = 0x10FFFF
"""Token ids are stored as characters, so a vocabulary can hold at most 1,114,112 tokens."""


def descending_key(token: bytes) -> str:
    """A string that sorts in the *reverse* byte order of ``token``, so a min-heap pops the greater pair first.

    Each byte b becomes the code point 256 - b, and a terminator (257) sorts a proper prefix after its
    extensions: b"ab" > b"a", so key(b"ab") < key(b"a").

    >>> descending_key(b"ab") < descending_key(b"a") < descending_key(b"A")
    True
    """
    return token.decode("latin-1").translate(_REVERSE_LATIN1) + chr(257)


class WordShard:
    """Some unique pre-tokens, as strings of token characters, with an index of where each pair occurs."""

    def __init__(self, word_counts: list[tuple[str, int]]) -> None:
        self.words: list[str] = []
        self.freqs: list[int] = []
        self._where: defaultdict[str, list[int]] = defaultdict(list)
        self._word_counts = word_counts

    def count_pairs(self) -> dict[str, int]:
        """Build the words and the index; return each adjacent pair's count, weighted by frequency."""
        words, freqs = self.words, self.freqs
        singles: list[str] = []  # pairs of words seen once, counted in C by Counter at the end
        counts: dict[str, int] = {}
        index_of = self._where
        for index, (piece, freq) in enumerate(self._word_counts):
            word = piece.encode("utf-8").decode("latin-1")  # byte b -> chr(b): ids 0-255 are the bytes
            words.append(word)
            freqs.append(freq)
            pairs = [word[i : i + 2] for i in range(len(word) - 1)]
            if freq == 1:
                singles.extend(pairs)
            else:
                get = counts.get
                for pair in pairs:
                    counts[pair] = get(pair, 0) + freq
            for pair in set(pairs):
                index_of[pair].append(index)
        self._word_counts = []
        for pair, n in Counter(singles).items():
            counts[pair] = counts.get(pair, 0) + n
        return counts

    def merge(self, pair: str, new: str) -> dict[str, int]:
        """Replace ``pair`` by the token character ``new`` everywhere; return the change in each pair's count.

        One pass over the occurrences in each old pre-token gives both sides of the change. In ``a b a b``
        the pair (b, a) between two adjacent occurrences is removed once (as the first one's right
        neighbour) and (new, new) is added once (as the second one's left neighbour). The merged pair
        itself may appear in the result; the caller drops it.
        """
        words, freqs, where = self.words, self.freqs, self._where
        # Pre-tokens seen once (most of them, in Japanese) pool their changed pairs in two lists that
        # Counter tallies in C; the others go through a dict weighted by their frequency.
        removed: list[str] = []
        added: list[str] = []
        weighted: defaultdict[str, int] = defaultdict(int)
        for index in dict.fromkeys(where.pop(pair, ())):
            word = words[index]
            at = word.find(pair)
            if at == -1:
                continue
            plus: list[str] = []
            minus: list[str] = []
            n = len(word)
            end_of_last = -1
            while at != -1:
                if at > 0:
                    if at == end_of_last:
                        plus.append(new + new)
                    else:
                        minus.append(word[at - 1 : at + 1])
                        plus.append(word[at - 1] + new)
                end_of_last = at + 2
                if end_of_last < n:
                    minus.append(word[at + 1 : at + 3])
                    if not word.startswith(pair, end_of_last):
                        plus.append(new + word[end_of_last])
                at = word.find(pair, end_of_last)
            words[index] = word.replace(pair, new)
            for key in plus:
                where[key].append(index)
            freq = freqs[index]
            if freq == 1:
                added += plus
                removed += minus
            else:
                for key in plus:
                    weighted[key] += freq
                for key in minus:
                    weighted[key] -= freq
        if added:
            for key, n in Counter(added).items():
                weighted[key] += n
        if removed:
            for key, n in Counter(removed).items():
                weighted[key] -= n
        return weighted


class PairQueue:
    """Global pair counts and a max-heap of pairs with lazy invalidation.

    Heap entries are ``(-count, key(left), key(right), pair)``; the tie-break (the lexicographically
    greater pair of byte strings wins) is in the entry itself, never left to insertion order. Counts only
    fall without a push, so a popped entry whose count is stale overstates its pair: it goes back in with
    the true count.
    """

    def __init__(self, counts: dict[str, int], vocab: dict[int, bytes]) -> None:
        self.counts = counts
        self.vocab = vocab
        self._keys = [descending_key(vocab[i]) for i in range(len(vocab))]
        keys = self._keys
        self._heap = [(-count, keys[ord(p[0])], keys[ord(p[1])], p) for p, count in counts.items()]
        heapq.heapify(self._heap)

    def top_pairs(self, n: int) -> list[tuple[str, int]]:
        """The ``n`` best pairs now, in the order training would pick them (scans all counts)."""
        vocab = self.vocab
        return heapq.nlargest(
            n, self.counts.items(), key=lambda item: (item[1], vocab[ord(item[0][0])], vocab[ord(item[0][1])])
        )

    def pop_best(self) -> tuple[str, int, int] | None:
        """Remove and return the best pair with its count and the runner-up's count, or None if none is left."""
        heap, counts = self._heap, self.counts
        heappop, heappush = heapq.heappop, heapq.heappush
        while heap:
            neg, key_a, key_b, pair = heappop(heap)
            current = counts.get(pair, 0)
            if current == -neg:
                break
            if 0 < current < -neg:
                heappush(heap, (-current, key_a, key_b, pair))
        else:
            return None
        del counts[pair]
        return pair, -neg, self._clean_top()

    def _clean_top(self) -> int:
        """Make the heap's top entry current and return its count (the runner-up's), 0 if none is left."""
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
        """Record the token made by merging ``pair`` (its bytes and its sort key)."""
        vocab = self.vocab
        vocab[new_id] = vocab[ord(pair[0])] + vocab[ord(pair[1])]
        self._keys.append(descending_key(vocab[new_id]))

    def update(self, deltas: dict[str, int], merged: str) -> None:
        """Apply count changes; pairs that gained are pushed, pairs that lost are fixed lazily on pop."""
        counts, keys, heap = self.counts, self._keys, self._heap
        get = counts.get
        for key, delta in deltas.items():
            if delta == 0 or key == merged:
                continue
            count = get(key, 0) + delta
            if count > 0:
                counts[key] = count
                if delta > 0:
                    heapq.heappush(heap, (-count, keys[ord(key[0])], keys[ord(key[1])], key))
            else:
                counts.pop(key, None)


class PairMerger:
    """All pre-tokens in one shard, in this process: the engine for small and medium corpora.

    >>> merger = PairMerger({"low": 1, " low": 2, " lower": 2, " newest": 1}, {i: bytes([i]) for i in range(256)})
    >>> merger.pop_best()
    ('ow', 5, 5)
    """

    def __init__(self, word_counts: dict[str, int], vocab: dict[int, bytes]) -> None:
        self.shard = WordShard(list(word_counts.items()))
        self.queue = PairQueue(self.shard.count_pairs(), vocab)

    def top_pairs(self, n: int) -> list[tuple[str, int]]:
        return self.queue.top_pairs(n)

    def pop_best(self) -> tuple[str, int, int] | None:
        return self.queue.pop_best()

    def apply(self, pair: str, new_id: int) -> None:
        """Merge ``pair`` into token ``new_id`` everywhere and update the counts."""
        self.queue.add_token(pair, new_id)
        self.queue.update(self.shard.merge(pair, chr(new_id)), pair)

    def close(self) -> None:
        """Nothing to release in-process; present so every engine can be closed the same way."""
