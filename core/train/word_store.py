"""The unique pre-tokens with an index of where each pair occurs: the store for sparse merges.

Each unique pre-token is a ``str`` with one character per token id (``chr(id)``), so the hot operations
run in C. A merge that touches many pre-tokens joins them into one string (with a separator that is
never a token), and one ``split`` on the pair yields every occurrence at once, in the order
``str.replace`` merges them: the last character of each piece is an occurrence's left neighbour and the
first character of the next piece its right neighbour. Counting those neighbours gives the change in
every pair's count with no Python-level loop over occurrences. A merge that touches only a few
pre-tokens walks them in Python, which is cheaper than setting up the joined string.

The index maps each pair to the pre-tokens it occurs in. It is only ever appended to, so it may list a
pre-token that no longer has the pair (or list it twice); a C-level ``str.count`` filters those out.

``WordStore.merge`` must change the pre-tokens as :func:`core.reference.merge_words` does (each
occurrence left to right), and the count changes it returns must add up to
:func:`core.reference.count_pairs` of the result. The reference rebuilds every pre-token at every merge;
the store touches only those the index names, and does the per-occurrence work in C.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from collections.abc import Container
from itertools import chain, compress, islice, repeat
from operator import concat, itemgetter, not_
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.train.worker_pool import WorkerPool

MAX_TOKEN_ID = 0x10FFFE
"""Token ids are stored as characters, so a vocabulary can hold at most 1,114,111 tokens."""

SEPARATOR = chr(0x10FFFF)
"""Goes between pre-tokens when they are joined for a merge: above every token id, so never a token."""

FEW_WORDS = 256
"""Up to this many pre-tokens, a merge loops over occurrences in Python instead of joining them."""

PARALLEL_COUNT_MIN_CHARS = 50_000
"""Characters of unique pre-tokens from which the first count is shared with worker processes (when reading
started some), so that they count their parts while this process counts its own."""

LONG_WORD_CHARS = 1 << 16
"""A pre-token longer than this (a line of DNA, digits or one repeated letter, which no space cuts) has its
pairs counted as they are made, not listed first: a 10 MB one took 800 MB to count."""

last_char = itemgetter(slice(-1, None))
first_char = itemgetter(slice(0, 1))


def adjacent_pairs(word: str) -> map:
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
        length = len(word)
        if length < 4:  # short pre-tokens (most of them, late in English training) skip the general machinery
            if length == 2:  # one pair: the word itself
                where[word].append(index)
                if freq == 1:
                    singles.append(word)
                else:
                    counts[word] = get(word, 0) + freq
            elif length == 3:
                left, right = word[:2], word[1:]
                where[left].append(index)
                if right != left:
                    where[right].append(index)
                if freq == 1:
                    singles.append(left)
                    singles.append(right)
                else:
                    counts[left] = get(left, 0) + freq
                    counts[right] = get(right, 0) + freq
            continue
        if length > LONG_WORD_CHARS:  # counted as made: its list of pairs would take ~60 bytes a character
            local = Counter(adjacent_pairs(word))
            for pair, n in local.items():
                counts[pair] = get(pair, 0) + n * freq
            deque(map(list.append, map(where.__getitem__, local), repeat(index)), 0)
            continue
        pairs = list(adjacent_pairs(word))
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
        if left and left != SEPARATOR:  # "" is the second of two touching occurrences: see rights
            deltas[left + new] += n
            deltas[left + first] -= n
    for right, n in rights.items():
        if right == SEPARATOR:
            continue
        if right:
            deltas[new + right] += n
            deltas[second + right] -= n
        else:
            deltas[new + new] += n
            deltas[second + first] -= n
    return deltas


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
            hot = filter(tracked.__contains__, set(adjacent_pairs(word)))
            deque(map(list.append, map(where.__getitem__, hot), repeat(index)), 0)
        self.index_from = index_from

    def recount(self, pool: WorkerPool | None = None, parts: int = 1) -> dict[str, int]:
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
        others = pool.map_unordered(
            count_pairs, [(words[a:b], freqs[a:b], a) for a, b in zip(cuts[1:-1], cuts[2:])]
        )
        counts, where = count_pairs(words[: cuts[1]], freqs[: cuts[1]])
        get = counts.get
        # Unpickling makes a new int for every entry; one shared int per pre-token keeps the index compact
        # (and is measurably faster to merge with).
        shared_ints = list(range(len(words))).__getitem__
        for part_counts, part_where in others:
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
        ids = self._where.pop(pair, [])
        if len(ids) <= FEW_WORDS:
            # Listed twice or out of date: the loop's first find() in such a pre-token fails at once.
            return self._merge_few(pair, new, ids)
        return self._merge_many(pair, new, list(dict.fromkeys(ids)))

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
        for key, index in dict.fromkeys(made):  # once a pre-token: a long one makes the same pair many times
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
        pieces = (SEPARATOR + SEPARATOR.join(olds) + SEPARATOR).split(pair)
        deque(map(self.words.__setitem__, ids, new.join(pieces)[1:-1].split(SEPARATOR)), 0)
        lefts = list(map(last_char, islice(pieces, len(pieces) - 1)))
        return lefts, list(map(first_char, islice(pieces, 1, None)))

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
        for junk in (new, SEPARATOR + new, new + SEPARATOR):  # keys made from "" and the separator
            where.pop(junk, None)
