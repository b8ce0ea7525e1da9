"""Events a training run yields: small, immutable and picklable, so they cross threads and processes unchanged.

They are named tuples: a run makes one ``MergeMade`` per merge, and a named tuple is much cheaper to make
than a frozen dataclass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from core.model import BPEModel

PHASES = ("reading", "counting", "merging")
"""Phases in order: reading and pre-tokenising the corpus, counting pairs, merging."""


class PhaseProgress(NamedTuple):
    """Progress within a phase; ``done`` and ``total`` are bytes while reading, merges while merging."""

    phase: str
    done: int
    total: int


class MergeMade(NamedTuple):
    """One merge: the pair ``(left, right)`` became token ``new_id`` at ``rank`` (0-based).

    ``runner_up_count`` is the best count among the other pairs at that moment (0 if none), and ``won_tie``
    says the runner-up had the same count, so the tie rule decided.
    """

    rank: int
    left: bytes
    right: bytes
    new_id: int
    count: int
    runner_up_count: int
    won_tie: bool

    @property
    def token(self) -> bytes:
        return self.left + self.right


class TrainingFinished(NamedTuple):
    """The last event of a run that was not cancelled; ``reason`` is why merging stopped."""

    model: BPEModel
    reason: str  # "vocab_size", "no_pairs", "min_frequency", "max_merges"


TrainingEvent = PhaseProgress | MergeMade | TrainingFinished
