"""No full garbage collection while a training run goes on: each one held the UI thread for 60-190 ms.

A full collection walks every container object in the process, and the app holds many: its widgets,
the loaded tokenizers' tables, the run's merges. While a run merged, the allocations of its progress
and merge messages set off five or six full collections, and a key pressed during one waited for it
(issue 13: the slowest pane switches while merging). While a run goes on, only the full pass is held
back; young objects are still collected as usual, and the first full pass after the run catches up.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

HELD_BACK = 1 << 30
"""The oldest generation's threshold while held back: more younger passes than a run ever makes."""

_lock = threading.Lock()
_holders = 0
_saved: tuple[int, ...] | None = None


@contextmanager
def full_collections_held_back() -> Iterator[None]:
    """Hold back full collections until every ``with`` block using this has ended (runs may overlap).

    >>> before = gc.get_threshold()
    >>> with full_collections_held_back():
    ...     gc.get_threshold()[2] == HELD_BACK
    True
    >>> gc.get_threshold() == before
    True
    """
    global _holders, _saved
    with _lock:
        if _holders == 0:
            _saved = gc.get_threshold()
            gc.set_threshold(_saved[0], _saved[1], HELD_BACK)
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _saved is not None:
                gc.set_threshold(*_saved)
                _saved = None
