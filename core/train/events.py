"""Events a training run yields: small, immutable and picklable, so they cross threads and processes unchanged.

They are named tuples: a run makes one ``MergeMade`` per merge, and a named tuple is much cheaper to make
than a frozen dataclass.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from core.model import BPEModel

EVENTS_FORMAT = "bpe-tui-events"
"""The ``format`` of an events file's first line (``bpe-tui train --events``): how a folder search knows one."""

PHASES = ("reading", "counting", "merging")
"""Phases in order: reading and pre-tokenising the corpus, counting pairs, merging."""


class PhaseProgress(NamedTuple):
    """Progress within a phase; ``done`` and ``total`` are bytes while reading, merges while merging."""

    phase: str
    done: int
    total: int


class ShardsRead(NamedTuple):
    """Reading a corpus of shards: ``done`` of ``total`` units of work (shards, or parts of large text
    shards) counted, ``documents`` found in them, ``skipped`` bad records, by ``workers`` processes or
    cluster workers, ``text_bytes`` of text in them (UTF-8; a compressed or Parquet shard holds several times
    its size). Comes with each ``PhaseProgress`` of the reading phase of such a corpus, whose bytes are the
    shards' own."""

    done: int
    total: int
    documents: int
    skipped: int
    workers: int
    text_bytes: int = 0


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


class StopReason(StrEnum):
    """Why merging stopped. The value is the name recorded in files (``"vocab_size"``), and a member
    equals that string, so records written before the enum existed still compare equal; ``wording``
    is what the CLI and the app show.

    >>> StopReason.NO_PAIRS == "no_pairs", StopReason("min_frequency").wording
    (True, 'below min frequency')
    """

    VOCAB_SIZE = "vocab_size", "vocab size reached"
    NO_PAIRS = "no_pairs", "no pair left to merge"
    MIN_FREQUENCY = "min_frequency", "below min frequency"
    MAX_MERGES = "max_merges", "merge limit reached"

    wording: str

    def __new__(cls, value: str, wording: str) -> StopReason:
        member = str.__new__(cls, value)
        member._value_ = value
        member.wording = wording
        return member


class TrainingFinished(NamedTuple):
    """The last event of a run that was not cancelled; ``reason`` is why merging stopped."""

    model: BPEModel
    reason: StopReason


TrainingEvent = PhaseProgress | ShardsRead | MergeMade | TrainingFinished
