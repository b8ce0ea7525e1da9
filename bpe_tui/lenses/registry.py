"""Every lens, in the order the pane and ``bpe-tui lens --list`` show them (the issue's numbering). A lens exists by
being listed here.

>>> [lens.name for lens in LENSES][:1], lens_named("slider").title
(['slider'], 'Merge slider')
"""

from __future__ import annotations

from bpe_tui.lenses import (
    budget,
    bytes_view,
    case,
    delete_merge,
    embedding,
    fragments,
    longest_match,
    numbers,
    pairs,
    replay,
    slider,
    spelling,
    unigram,
    vocab,
    whitespace,
    wordpiece,
)
from bpe_tui.lenses.spec import LensSpec
from core.errors import SettingsError

LENSES: tuple[LensSpec, ...] = (
    slider.LENS,
    fragments.LENS,
    pairs.LENS,
    vocab.LENS,
    replay.LENS,
    longest_match.LENS,
    wordpiece.LENS,
    unigram.LENS,
    budget.LENS,
    bytes_view.LENS,
    numbers.LENS,
    spelling.LENS,
    whitespace.LENS,
    case.LENS,
    embedding.LENS,
    delete_merge.LENS,
)


def lens_named(name: str) -> LensSpec:
    """The lens called ``name``.

    Raises:
        SettingsError: no lens has that name; the message lists those that do.
    """
    for lens in LENSES:
        if lens.name == name:
            return lens
    raise SettingsError(f"no lens is called {name!r}; the lenses are: {', '.join(lens.name for lens in LENSES)}")
