"""The pre-token cache: pre-token -> ids, bounded in memory, keeping the frequent words when it fills.

Encoding a pre-token seen before costs one dict lookup in C; a new one costs a merge loop in Python, tens
of times more. So what the cache keeps decides the speed on real text, whose distinct pre-tokens can
outnumber any fixed bound (varied English meets tens of thousands; a large corpus, millions).

Clearing the whole cache when it is full would throw the frequent words out with the rare ones, and a
text with more distinct words than the bound would then miss on most lookups every time. Here the cache
has two generations: when the young one (the dict itself, which the C lookups read) is full, it becomes
the old one and the young starts empty. A lookup that misses the young generation but finds the word in
the old one moves it back: one Python call, no merging. Words in use survive every turn; words unused for
a whole generation are dropped with the old one. At most ``2 * limit`` entries are held.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.encode.bounded_memo import BoundedMemo

_ABSENT = object()

PIECE_CACHE_LIMIT = 1 << 16
"""Entries of each generation of the pre-token cache (so at most twice this many are held).

Each entry is a pre-token of at most 64 bytes and its ids: about 200 bytes with the dict's share, so the
cache holds at most about 25 MB. Varied English meets about 20,000 distinct pre-tokens per 2 MB."""


def worth_caching(piece: str) -> bool:
    """Whether a pre-token is short enough to remember: long ones are rarely repeated and costly to hold.

    >>> worth_caching("hello"), worth_caching("x" * 65)
    (True, False)
    """
    return len(piece) <= 16 or len(piece.encode("utf-8")) <= 64


class PieceCache(BoundedMemo):
    """A :class:`BoundedMemo` with two generations instead of clearing everything when full.

    ``computed`` counts the values computed (true misses), ``recalled`` those brought back from the old
    generation; the lookups that found the young generation are not counted (they run in C).

    >>> squares = PieceCache(lambda n: n * n, limit=2)
    >>> [squares[n] for n in (1, 2, 3, 1, 4, 5)], squares.computed, squares.recalled
    ([1, 4, 9, 1, 16, 25], 5, 1)
    >>> sorted(squares), sorted(squares.old), squares.held
    ([4, 5], [1, 3], 4)
    """

    __slots__ = ("old", "computed", "recalled")

    def __init__(
        self, compute: Callable[[Any], Any], limit: int | None = None, keep: Callable[[Any], bool] | None = None
    ) -> None:
        super().__init__(compute, PIECE_CACHE_LIMIT if limit is None else limit, keep)
        self.old: dict[Any, Any] = {}
        """The previous generation: read only on a miss of the young one."""
        self.computed = 0
        self.recalled = 0

    def __missing__(self, key: Any) -> Any:
        value = self.old.pop(key, _ABSENT)
        if value is not _ABSENT:
            self.recalled += 1
        else:
            self.computed += 1
            value = self._compute(key)
            if self._keep is not None and not self._keep(key):
                return value
            if self.journal is not None:
                self.journal.append((key, value))
        if len(self) >= self._limit:
            self.old = dict(self)
            self.clear()
        self[key] = value
        return value

    @property
    def held(self) -> int:
        """Entries held in both generations (at most ``2 * limit``)."""
        return len(self) + len(self.old)
