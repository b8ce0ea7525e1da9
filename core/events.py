"""Events a training run yields: small, immutable and picklable, so they cross threads and processes unchanged."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.model import BPEModel

PHASES = ("reading", "counting", "merging")
"""Phases in order: reading and pre-tokenising the corpus, counting pairs, merging."""


@dataclass(frozen=True, slots=True)
class PhaseProgress:
    """Progress within a phase; ``done`` and ``total`` are bytes while reading, merges while merging."""

    phase: str
    done: int
    total: int


@dataclass(frozen=True, slots=True)
class MergeMade:
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


@dataclass(frozen=True, slots=True)
class TrainingFinished:
    """The last event of a run that was not cancelled; ``reason`` is why merging stopped."""

    model: BPEModel
    reason: str  # "vocab_size", "no_pairs", "min_frequency", "max_merges"


TrainingEvent = PhaseProgress | MergeMade | TrainingFinished
