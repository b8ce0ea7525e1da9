"""The merge engine behind training: pair counts kept up to date incrementally as merges are applied.

Each unique pre-token is stored as a ``str`` with one character per token id (``chr(id)``), so the hot
operations run in C. A merge that touches many pre-tokens joins them into one string (with a separator
that is never a token), and one ``split`` on the pair yields every occurrence at once, in the order
``str.replace`` merges them: the last character of each piece is an occurrence's left neighbour and the
first character of the next piece its right neighbour. Counting those neighbours gives the change in every
pair's count with no Python-level loop over occurrences. A merge that touches only a few pre-tokens walks
them in Python, which is cheaper than setting up the joined string.

The first merges of a corpus of mostly unique pre-tokens (Japanese) touch most of them; for those,
``JoinedWords`` keeps every pre-token in one string and splits the whole of it, with no index at all,
until merges get sparse and a ``WordStore`` takes over.

In a ``WordStore``, an index maps each pair to the pre-tokens it occurs in. It is only ever appended
to, so it may list a pre-token that no longer has the pair (or list it twice); a C-level ``str.count``
filters those out.

Most pairs a merge creates are rare (in Japanese two thirds of them occur once) and never become the best
pair. A pair can only gain occurrences in the merge that makes the younger of its two tokens, and the best
count can only fall from merge to merge. So a pair made with a count under ``COLD_BELOW`` is left "cold":
not counted, not indexed and not in the heap. Many runs end before the best count falls that low; a run
that gets there recounts every pair from the pre-tokens once and goes on with all of them.
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Container
from itertools import accumulate, chain, compress, islice, repeat
from operator import concat, itemgetter, mul, not_
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

_REVERSE_LATIN1 = {i: 256 - i for i in range(256)}

MAX_TOKEN_ID = 0x10FFFE
"""Token ids are stored as characters, so a vocabulary can hold at most 1,114,111 tokens."""

_SEPARATOR = chr(0x10FFFF)
"""Goes between pre-tokens when they are joined for a merge: above every token id, so never a token."""

FEW_WORDS = 256
"""Up to this many pre-tokens, a merge loops over occurrences in Python instead of joining them."""

PARALLEL_COUNT_MIN_CHARS = 500_000
"""Characters of unique pre-tokens from which the first count is shared with worker processes."""

JOINED_MIN_CHARS = 200_000
"""Characters of unique pre-tokens from which the first merges run on ``JoinedWords``."""

JOINED_SEGMENT_CHARS = 1 << 22
"""About how many characters of ``JoinedWords`` text one split covers (bounds its pieces' memory)."""

JOINED_CHARS_PER_OCCURRENCE = 1000
"""A merge is left to the index once its occurrences are fewer than the joined text's length over this.

So a merge on the joined text scans at most this many characters (in C, about 1-2 µs) per occurrence it
merges: still work in proportion to the occurrences, as with the index. On ja_aozora the hand-over comes
after about 175 merges, when the pair is in about 1% of the pre-tokens; handing over at 200 instead of
1000 made training 7% slower, at 100 19% slower."""

COLD_BELOW = 8
"""Pairs made with a count under this are left out until the best count falls below it."""

_last_char = itemgetter(slice(-1, None))
_first_char = itemgetter(slice(0, 1))


def descending_key(token: bytes) -> str:
    """A string that sorts in the *reverse* byte order of ``token``, so a min-heap pops the greater pair first.

    Each byte b becomes the code point 256 - b, and a terminator (257) sorts a proper prefix after its
    extensions: b"ab" > b"a", so key(b"ab") < key(b"a").

    >>> descending_key(b"ab") < descending_key(b"a") < descending_key(b"A")
    True
    """
    return token.decode("latin-1").translate(_REVERSE_LATIN1) + chr(257)


def _pairs(word: str) -> map:
    """Each adjacent pair of token characters in ``word``, as 2-character strings, made in C."""
    return map(concat, word, islice(word, 1, None))


def count_pairs(
    words: list[str], freqs: list[int], first: int = 0
) -> tuple[dict[str, int], defaultdict[str, list[int]]]:
    """Each adjacent pair's count in ``words`` (weighted by ``freqs``) and the pre-tokens it occurs in.

    Pre-tokens are numbered from ``first``, so that parts counted apart (in worker processes) add up.
    """
    where: defaultdict[str, list[int]] = defaultdict(list)
    singles: list[str] = []  # pairs of words seen once, counted in C by Counter at the end
    counts: dict[str, int] = {}
    get = counts.get
    for index, (word, freq) in enumerate(zip(words, freqs), first):
        pairs = list(_pairs(word))
        if freq == 1:
            singles.extend(pairs)
        else:
            for pair in pairs:
                counts[pair] = get(pair, 0) + freq
        deque(map(list.append, map(where.__getitem__, set(pairs)), repeat(index)), 0)
    for pair, n in Counter(singles).items():
        counts[pair] = get(pair, 0) + n
    return counts, where


def neighbour_deltas(pair: str, new: str, lefts: Counter[str], rights: Counter[str]) -> defaultdict[str, int]:
    """The change in each pair's count when ``pair`` becomes ``new``, from its occurrences' neighbours.

    ``lefts`` and ``rights`` count (weighted) the left and right neighbours of the occurrences, as
    ``WordStore._rewrite`` defines them.

    >>> dict(neighbour_deltas("ab", "X", Counter({"c": 2, "": 1}), Counter({"": 1, "d": 2})))
    {'cX': 2, 'ca': -2, 'XX': 1, 'ba': -1, 'Xd': 2, 'bd': -2}
    """
    first, second = pair
    deltas: defaultdict[str, int] = defaultdict(int)
    for left, n in lefts.items():
        if left and left != _SEPARATOR:  # "" is the second of two touching occurrences: see rights
            deltas[left + new] += n
            deltas[left + first] -= n
    for right, n in rights.items():
        if right == _SEPARATOR:
            continue
        if right:
            deltas[new + right] += n
            deltas[second + right] -= n
        else:
            deltas[new + new] += n
            deltas[second + first] -= n
    return deltas


class JoinedWords:
    """Every pre-token in a few long strings, each repeated as often as it occurs: the store for dense merges.

    The first merges of a corpus touch most pre-tokens (in Japanese the first one has half a million
    occurrences). Then one ``split`` of the whole text finds every occurrence faster than gathering
    pre-tokens one by one through an index, and repeating each pre-token by its frequency lets Counter
    tally every neighbour in C. Once merges are sparse, ``word_store`` hands over to a ``WordStore``.
    Only worth it while the repeats add little text (mostly unique pre-tokens, as in Japanese). The text is
    cut into segments of about ``JOINED_SEGMENT_CHARS`` (at pre-token boundaries) so that a split's pieces,
    one string per occurrence, stay bounded on a large corpus.
    """

    def __init__(self, words: list[str], freqs: list[int]) -> None:
        self.freqs = freqs
        self._firsts = list(accumulate(freqs, initial=0))[:-1]  # where each pre-token's first copy is
        self._segments: list[str] = []
        segment: list[str] = []
        size = 0
        for word in chain.from_iterable(map(repeat, words, freqs)):
            segment.append(word)
            size += len(word) + 1
            if size >= JOINED_SEGMENT_CHARS:
                self._segments.append(_SEPARATOR + _SEPARATOR.join(segment) + _SEPARATOR)
                segment, size = [], 0
        if segment or not self._segments:
            self._segments.append(_SEPARATOR + _SEPARATOR.join(segment) + _SEPARATOR)

    @staticmethod
    def suits(words: list[str], freqs: list[int]) -> bool:
        """Whether repeating each pre-token by its frequency adds at most half again to their text."""
        unique = sum(map(len, words))
        repeated = sum(map(mul, map(len, words), freqs))
        return unique >= JOINED_MIN_CHARS and repeated <= 1.5 * unique

    def is_sparse(self, count: int) -> bool:
        """Whether a merge of ``count`` occurrences is cheaper through an index than by a whole split."""
        return count * JOINED_CHARS_PER_OCCURRENCE < sum(map(len, self._segments))

    def count(self) -> dict[str, int]:
        """Every pair's count (occurrences in the text, so weighted by frequency).

        One Counter over the whole text is fast enough that sharing it with worker processes does not pay:
        sending them the text costs as much as it saves.
        """
        counts: Counter[str] = Counter()
        for segment in self._segments:
            counts.update(_pairs(segment))
        for pair in [pair for pair in counts if _SEPARATOR in pair]:
            del counts[pair]
        return dict(counts)

    def merge(self, pair: str, new: str) -> defaultdict[str, int]:
        """Like ``WordStore.merge``, over the whole text."""
        lefts: Counter[str] = Counter()
        rights: Counter[str] = Counter()
        segments = self._segments
        for number, segment in enumerate(segments):
            pieces = segment.split(pair)
            if len(pieces) > 1:
                segments[number] = new.join(pieces)
                lefts.update(map(_last_char, islice(pieces, len(pieces) - 1)))
                rights.update(map(_first_char, islice(pieces, 1, None)))
        return neighbour_deltas(pair, new, lefts, rights)

    def word_store(self) -> WordStore:
        """The pre-tokens as they are now, one each, for a ``WordStore`` (not yet indexed)."""
        copies: list[str] = []
        for segment in self._segments:
            copies += segment[1:-1].split(_SEPARATOR)
        return WordStore(list(map(copies.__getitem__, self._firsts)), self.freqs)


class WordStore:
    """The unique pre-tokens, as strings of token characters, with an index of where each pair occurs.

    ``index_from`` is the smallest count a newly made pair needs to be indexed (see ``COLD_BELOW``).
    """

    def __init__(self, words: list[str], freqs: list[int]) -> None:
        self.words = words
        self.freqs = freqs
        self.index_from = 1
        self._where: defaultdict[str, list[int]] = defaultdict(list)

    def index(self, tracked: Container[str], index_from: int) -> None:
        """Index the pairs in ``tracked`` only (the counted ones), and new pairs from ``index_from`` on."""
        where = self._where = defaultdict(list)
        for index, word in enumerate(self.words):
            hot = filter(tracked.__contains__, set(_pairs(word)))
            deque(map(list.append, map(where.__getitem__, hot), repeat(index)), 0)
        self.index_from = index_from

    def recount(self, pool: Pool | None = None, parts: int = 1) -> dict[str, int]:
        """Count every pair in the pre-tokens as they are now (weighted by frequency) and index them all.

        With a process ``pool`` and enough text, the pre-tokens are cut into ``parts``: this process
        counts the first while the pool counts the others.
        """
        words, freqs = self.words, self.freqs
        if pool is None or parts < 2 or sum(map(len, words)) < PARALLEL_COUNT_MIN_CHARS:
            counts, where = count_pairs(words, freqs)
            self._where = where
            return counts
        cuts = [len(words) * k // parts for k in range(parts + 1)]
        others = pool.starmap_async(
            count_pairs, [(words[a:b], freqs[a:b], a) for a, b in zip(cuts[1:-1], cuts[2:])]
        )
        counts, where = count_pairs(words[: cuts[1]], freqs[: cuts[1]])
        get = counts.get
        # Unpickling makes a new int for every entry; one shared int per pre-token keeps the index compact
        # (and is measurably faster to merge with).
        shared_ints = list(range(len(words))).__getitem__
        for part_counts, part_where in others.get():
            for pair, n in part_counts.items():
                counts[pair] = get(pair, 0) + n
            for pair, ids in part_where.items():
                where[pair] += map(shared_ints, ids)
        self._where = where
        return counts

    def merge(self, pair: str, new: str) -> defaultdict[str, int]:
        """Replace ``pair`` by the token character ``new`` everywhere; return the change in each pair's count.

        In ``a b a b`` the pair (b, a) between the two occurrences is removed once and (new, new) is added
        once. The merged pair itself may appear in the result; the caller drops it.
        """
        ids = list(dict.fromkeys(self._where.pop(pair, ())))
        if len(ids) <= FEW_WORDS:
            return self._merge_few(pair, new, ids)
        return self._merge_many(pair, new, ids)

    def _merge_few(self, pair: str, new: str, ids: list[int]) -> defaultdict[str, int]:
        words, freqs = self.words, self.freqs
        deltas: defaultdict[str, int] = defaultdict(int)
        made: list[tuple[str, int]] = []  # (new pair, pre-token): indexed once its total count is known
        for index in ids:
            word = words[index]
            at = word.find(pair)
            if at == -1:
                continue
            freq = freqs[index]
            n = len(word)
            end_of_last = -1
            while at != -1:
                if at > 0:
                    if at == end_of_last:  # touches the previous occurrence, where (b, a) was counted
                        key = new + new
                    else:
                        deltas[word[at - 1 : at + 1]] -= freq
                        key = word[at - 1] + new
                    deltas[key] += freq
                    made.append((key, index))
                end_of_last = at + 2
                if end_of_last < n:
                    deltas[word[at + 1 : at + 3]] -= freq
                    if not word.startswith(pair, end_of_last):
                        key = new + word[end_of_last]
                        deltas[key] += freq
                        made.append((key, index))
                at = word.find(pair, end_of_last)
            words[index] = word.replace(pair, new)
        least, where = self.index_from, self._where
        for key, index in made:
            if deltas[key] >= least:
                where[key].append(index)
        return deltas

    def _merge_many(self, pair: str, new: str, ids: list[int]) -> defaultdict[str, int]:
        olds = list(map(self.words.__getitem__, ids))
        counts = list(map(str.count, olds, repeat(pair)))  # 0 where the index is out of date
        freqs = self.freqs
        once = list(map((1).__eq__, map(freqs.__getitem__, ids)))
        lefts_tally: Counter[str] = Counter()
        rights_tally: Counter[str] = Counter()
        found = []
        # Pre-tokens seen once (most of them, in Japanese) are tallied by Counter in C; the others need a
        # weight per occurrence.
        for selector, weighted in ((once, False), (list(map(not_, once)), True)):
            selector = list(map(all, zip(selector, counts)))
            group = list(compress(ids, selector))
            if not group:
                continue
            lefts, rights = self._rewrite(pair, new, group, list(compress(olds, selector)))
            owners = list(chain.from_iterable(map(repeat, group, compress(counts, selector))))
            found.append((lefts, rights, owners))
            if weighted:
                lefts_get, rights_get = lefts_tally.get, rights_tally.get
                for left, right, freq in zip(lefts, rights, map(freqs.__getitem__, owners)):
                    lefts_tally[left] = lefts_get(left, 0) + freq
                    rights_tally[right] = rights_get(right, 0) + freq
            else:
                lefts_tally.update(lefts)
                rights_tally.update(rights)
        deltas = neighbour_deltas(pair, new, lefts_tally, rights_tally)
        for lefts, rights, owners in found:
            self._index_new_pairs(new, deltas, lefts, rights, owners)
        return deltas

    def _rewrite(self, pair: str, new: str, ids: list[int], olds: list[str]) -> tuple[list[str], list[str]]:
        """Merge ``pair`` in the pre-tokens ``ids``; return each occurrence's left and right neighbour.

        A neighbour is a token character, the separator (the occurrence starts or ends its pre-token),
        or ``""`` (the occurrence touches the next one, as in ``a b a b``).
        """
        pieces = (_SEPARATOR + _SEPARATOR.join(olds) + _SEPARATOR).split(pair)
        deque(map(self.words.__setitem__, ids, new.join(pieces)[1:-1].split(_SEPARATOR)), 0)
        lefts = list(map(_last_char, islice(pieces, len(pieces) - 1)))
        return lefts, list(map(_first_char, islice(pieces, 1, None)))

    def _index_new_pairs(
        self, new: str, deltas: dict[str, int], lefts: list[str], rights: list[str], owners: list[int]
    ) -> None:
        """Record where the pairs made with ``new`` occur (those counted at least ``index_from``)."""
        where, least = self._where, self.index_from
        if "" in rights and deltas.get(new + new, 0) >= least:
            where[new + new].extend(compress(owners, map("".__eq__, rights)))
        if least > 1:
            hot_lefts = {left for left in set(lefts) if deltas.get(left + new, 0) >= least}
            hot_rights = {right for right in set(rights) if deltas.get(new + right, 0) >= least}
            left_mask = list(map(hot_lefts.__contains__, lefts))
            right_mask = list(map(hot_rights.__contains__, rights))
            lefts, left_owners = list(compress(lefts, left_mask)), compress(owners, left_mask)
            rights, right_owners = list(compress(rights, right_mask)), compress(owners, right_mask)
        else:
            left_owners = right_owners = owners
        deque(map(list.append, map(where.__getitem__, map(concat, lefts, repeat(new))), left_owners), 0)
        deque(map(list.append, map(where.__getitem__, map(concat, repeat(new), rights)), right_owners), 0)
        for junk in (new, _SEPARATOR + new, new + _SEPARATOR):  # keys made from "" and the separator
            where.pop(junk, None)


class PairQueue:
    """Pair counts and a max-heap of pairs with lazy invalidation.

    Heap entries are ``(-count, key(left), key(right), pair)``; the tie-break (the lexicographically
    greater pair of byte strings wins) is in the entry itself, never left to insertion order. Counts only
    fall without a push, so a popped entry whose count is stale overstates its pair: it goes back in with
    the true count.

    New pairs counted under ``cold_below`` are dropped. Every pair missing then counts less than
    ``cold_below``, so a top entry at or above it is the true best; below it, ``warm_all`` first asks
    ``recount`` for every pair's count.
    """

    def __init__(
        self,
        counts: dict[str, int],
        vocab: dict[int, bytes],
        recount: Callable[[], dict[str, int]],
        cold_below: int = COLD_BELOW,
    ) -> None:
        self.counts = counts
        self.vocab = vocab
        self.cold_below = cold_below
        self._recount = recount
        self._keys = [descending_key(vocab[i]) for i in range(len(vocab))]
        self._heap: list[tuple[int, str, str, str]] = []
        self._fill_heap()

    def _fill_heap(self) -> None:
        keys = self._keys
        self._heap = [(-count, keys[ord(p[0])], keys[ord(p[1])], p) for p, count in self.counts.items()]
        heapq.heapify(self._heap)

    def warm_all(self) -> None:
        """Count every pair again, cold ones included, and from now on drop none."""
        self.cold_below = 1
        self.counts = self._recount()
        self._fill_heap()

    def top_pairs(self, n: int) -> list[tuple[str, int]]:
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
            self.warm_all()

    def pop_best(self) -> tuple[str, int, int] | None:
        """Remove and return the best pair with its count and the runner-up's count, or None if none is left."""
        if self.top_count() < self.cold_below:
            self.warm_all()
        heap = self._heap
        if not heap:
            return None
        neg, _, _, pair = heapq.heappop(heap)  # top_count left a current entry on top
        del self.counts[pair]
        runner_up = self.top_count()
        if runner_up < self.cold_below:
            self.warm_all()
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
        """Record the token made by merging ``pair`` (its bytes and its sort key)."""
        vocab = self.vocab
        vocab[new_id] = vocab[ord(pair[0])] + vocab[ord(pair[1])]
        self._keys.append(descending_key(vocab[new_id]))

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

    >>> merger = PairMerger({"low": 1, " low": 2, " lower": 2, " newest": 1}, {i: bytes([i]) for i in range(256)})
    >>> merger.pop_best()
    ('ow', 5, 5)
    """

    def __init__(
        self,
        word_counts: dict[str, int],
        vocab: dict[int, bytes],
        cold_below: int = COLD_BELOW,
        pool: Pool | None = None,
        parts: int = 1,
    ) -> None:
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
        self.queue = PairQueue(counts, vocab, self._recount, cold_below)

    def _recount(self) -> dict[str, int]:
        if isinstance(self.words, JoinedWords):
            return self.words.count()
        counts = self.words.recount()
        self.words.index_from = 1
        return counts

    def top_pairs(self, n: int) -> list[tuple[str, int]]:
        return self.queue.top_pairs(n)

    def pop_best(self) -> tuple[str, int, int] | None:
        """The next merge (see ``PairQueue.pop_best``); hands over to a ``WordStore`` once merges are sparse."""
        best = self.queue.pop_best()
        if best is not None and isinstance(self.words, JoinedWords) and self.words.is_sparse(best[1]):
            store = self.words.word_store()
            store.index(self.queue.counts.keys() | {best[0]}, self.queue.cold_below)
            self.words = store
        return best

    def apply(self, pair: str, new_id: int) -> None:
        """Merge ``pair`` into token ``new_id`` everywhere and update the counts."""
        self.queue.add_token(pair, new_id)
        self.queue.update(self.words.merge(pair, chr(new_id)), pair)
