"""Full garbage collections when the app chooses: none while a run goes on, and cheap ones the rest of the time.

A full collection walks every container object in the process, and the app holds many: its widgets,
the loaded tokenizers' tables, the run's merges. While a run merged, the allocations of its progress
and merge messages set off five or six full collections, and a key pressed during one waited for it
(issue 13: the slowest pane switches while merging). While a run goes on, only the full pass is held
back; young objects are still collected as usual.

The rest of the time, most of what a full collection walks lives as long as the app: widgets, stylesheets,
tokenizer tables, a finished run's merges. After the start-up run the app tracked about 300,000 objects, a
full pass took 100-180 ms, and at idle one switch in 40 met one (the idle tail of the latency benchmark).
So at moments that change the screen anyway (a pane's first showing, a run's end, a tokenizer's arrival) the app
*settles* its heap: one full collection, then everything that survived is frozen out of later ones
(``gc.freeze``). Later full passes walk only what is newer: 3 ms instead of 180 in the same test.
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


def settle_heap() -> None:
    """Collect everything once, then leave every survivor out of later full collections (until the next settle).

    Frozen objects are still freed when their count of references drops to zero; only garbage held in a
    cycle among them waits, and the next settle, which unfreezes first, collects it.

    >>> settle_heap(); kept = [[]]; settle_heap()
    >>> gc.get_freeze_count() > 0 and not any(o is kept for o in gc.get_objects())
    True
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()
