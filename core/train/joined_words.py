"""Every pre-token in a few long strings, for the first, dense merges of a corpus of mostly unique ones.

See ``JoinedWords``; ``core.train.word_store`` takes over once merges get sparse.

Like the word store, a merge here must change the pre-tokens as :func:`core.reference.merge_words` does,
and the counts must add up to :func:`core.reference.count_pairs`. While a merge touches most pre-tokens,
one ``split`` of the whole text in C is cheaper than visiting them one by one.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import accumulate, chain, islice, repeat
from operator import mul

from core.train.word_store import SEPARATOR, WordStore, adjacent_pairs, first_char, last_char, neighbour_deltas

JOINED_MIN_CHARS = 200_000
"""Characters of unique pre-tokens from which the first merges run on ``JoinedWords``."""

JOINED_SEGMENT_CHARS = 1 << 22
"""About how many characters of ``JoinedWords`` text one split covers (bounds its pieces' memory)."""

JOINED_CHARS_PER_OCCURRENCE = 1000
"""A merge is left to the index once its occurrences are fewer than the joined text's length over this.

So a merge on the joined text scans at most this many characters (in C) per occurrence it merges: still
work in proportion to the occurrences, as with the index. Lower values, which hand over sooner, made
training on Japanese slower (figures in ``benchmarks/README.md``)."""


class JoinedWords:
    """Every pre-token in a few long strings, each repeated as often as it occurs: the store for dense merges.

    The first merges of a corpus of mostly unique pre-tokens (Japanese) touch most of them. Then one
    ``split`` of the whole text finds every occurrence faster than gathering pre-tokens one by one through
    an index, and repeating each pre-token by its frequency lets Counter tally every neighbour in C. Once
    merges are sparse, ``word_store`` hands over to a ``WordStore``. Only worth it while the repeats add
    little text (mostly unique pre-tokens, as in Japanese). The text is cut into segments of about
    ``JOINED_SEGMENT_CHARS`` (at pre-token boundaries) so that a split's pieces, one string per occurrence,
    stay bounded on a large corpus.
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
                self._segments.append(SEPARATOR + SEPARATOR.join(segment) + SEPARATOR)
                segment, size = [], 0
        if segment or not self._segments:
            self._segments.append(SEPARATOR + SEPARATOR.join(segment) + SEPARATOR)

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
            counts.update(adjacent_pairs(segment))
        for pair in [pair for pair in counts if SEPARATOR in pair]:
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
                lefts.update(map(last_char, islice(pieces, len(pieces) - 1)))
                rights.update(map(first_char, islice(pieces, 1, None)))
        return neighbour_deltas(pair, new, lefts, rights)

    def word_store(self) -> WordStore:
        """The pre-tokens as they are now, one each, for a ``WordStore`` (not yet indexed)."""
        copies: list[str] = []
        for segment in self._segments:
            copies += segment[1:-1].split(SEPARATOR)
        return WordStore(list(map(copies.__getitem__, self._firsts)), self.freqs)
