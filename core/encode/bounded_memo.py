"""A memo that stays bounded in memory: the building block of every encoding cache."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

CACHE_LIMIT = 1 << 14
"""Entries kept in each of the engine's caches before it is cleared (memory stays bounded)."""


class BoundedMemo(dict):  # type: ignore[type-arg]
    """A dict that computes a missing value with ``compute`` and remembers it; cleared when full.

    ``map(memo.__getitem__, keys)`` then runs in C for every key already known. Values for which
    ``keep(key)`` is false are computed but not remembered (large, rarely repeated entries).

    >>> squares = BoundedMemo(lambda n: n * n, limit=2)
    >>> squares[3], squares[4], squares[5], len(squares)
    (9, 16, 25, 1)
    """

    __slots__ = ("_compute", "_limit", "_keep", "journal")

    def __init__(
        self, compute: Callable[[Any], Any], limit: int = CACHE_LIMIT, keep: Callable[[Any], bool] | None = None
    ) -> None:
        super().__init__()
        self._compute = compute
        self._limit = limit
        self._keep = keep
        self.journal: list[tuple[Any, Any]] | None = None
        """When a list, every entry computed and remembered from now on is also appended to it, so that it
        can be handed to another process's memo (see :meth:`adopt`)."""

    def __missing__(self, key: Any) -> Any:
        value = self._compute(key)
        if self._keep is None or self._keep(key):
            if len(self) >= self._limit:
                self.clear()
            self[key] = value
            if self.journal is not None:
                self.journal.append((key, value))
        return value

    def adopt(self, entries: Iterable[tuple[Any, Any]]) -> None:
        """Remember entries computed elsewhere (by another process's memo of the same function), as far as
        there is room: adopting never clears what is already here.

        >>> squares = BoundedMemo(lambda n: n * n, limit=2)
        >>> squares.adopt([(3, 9), (4, 16), (5, 25)]); sorted(squares.items())
        [(3, 9), (4, 16)]
        """
        room = self._limit - len(self)
        for key, value in entries:
            if room <= 0:
                break
            if key not in self:
                self[key] = value
                room -= 1
