"""The merge stepper's data, without any UI: what merge k was, the candidates after it, the text at step k.

Two sources of steps. ``LiveSteps`` trains on a small text one merge at a time with ``core.train.run`` and
keeps every step it has seen (its merge and the candidate pairs after it), so going back is a lookup
rather than a retrain. ``ReplaySteps`` replays the merges of an existing tokenizer, with the counts the
file recorded (``None`` where it recorded none). Both are safe to drive from one worker thread at a time;
a lock makes a late, superseded worker wait instead of interleaving.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

from core.train.events import MergeMade, PhaseProgress
from core.model import BPEModel
from core.encode.tokenizer import Tokenizer

CANDIDATES = 20
"""How many candidate pairs each step shows."""

Candidate = tuple[bytes, bytes, int]
"""A pair that could be merged next: ``(left, right, count)``."""


def tie_reason(winner: Candidate, runner_up: Candidate) -> str:
    """Why ``winner`` went before ``runner_up`` at an equal count: the CS336 rule and the byte strings that decided.

    Equal counts go to the lexicographically greater pair, compared as ``(left, right)`` byte strings:
    the lefts first, the rights only when the lefts are equal.

    >>> tie_reason((b"lo", b"w", 4), (b"l", b"ow", 4))
    "equal counts: the greater pair wins; left b'lo' > b'l'"
    >>> tie_reason((b"a", b"z", 2), (b"a", b"b", 2))
    "equal counts: the greater pair wins; same left b'a', right b'z' > b'b'"
    """
    return f"equal counts: the greater pair wins; {tie_decider(winner, runner_up)}"


def tie_decider(winner: Candidate, runner_up: Candidate) -> str:
    """The byte strings that decided a tie (see :func:`tie_reason`), long ones cut around where they differ.

    >>> tie_decider((b"we", b"s", 1), (b"s", b"t", 1))
    "left b'we' > b's'"
    """
    if winner[0] != runner_up[0]:
        return "left {} > {}".format(*compared(winner[0], runner_up[0]))
    return "same left {}, right {} > {}".format(compared(winner[0], winner[0])[0], *compared(winner[1], runner_up[1]))


SHOWN_BYTES = 12
"""Longest byte string a tie's reason writes whole: tokens of hundreds of bytes (a rule of '=', a run of
kanji) filled the stepper's screen with their ``repr``."""


def compared(a: bytes, b: bytes) -> tuple[str, str]:
    """``repr`` of ``a`` and of ``b``, both cut to the same ``SHOWN_BYTES`` around the first byte where they
    differ, so the bytes that decide between them stay in sight.

    >>> compared(b"lo", b"l")
    ("b'lo'", "b'l'")
    >>> compared(b"=" * 40 + b"x", b"=" * 41)
    ("…b'======x'", "…b'======='")
    >>> compared(b"=" * 20, b"-" * 20)
    ("b'============'…", "b'------------'…")
    """
    if max(len(a), len(b)) <= SHOWN_BYTES:
        return repr(a), repr(b)
    differ = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, differ - SHOWN_BYTES // 2)
    end = start + SHOWN_BYTES

    def cut(data: bytes) -> str:
        return ("…" if start else "") + repr(data[start:end]) + ("…" if end < len(data) else "")

    return cut(a), cut(b)


@dataclass(frozen=True)
class StepMerge:
    """Merge number ``rank`` (0-based): ``left + right``, with its count when known."""

    rank: int
    left: bytes
    right: bytes
    count: int | None
    runner_up_count: int | None = None
    won_tie: bool = False

    @property
    def token(self) -> bytes:
        return self.left + self.right

    @classmethod
    def of(cls, event: MergeMade) -> StepMerge:
        return cls(event.rank, event.left, event.right, event.count, event.runner_up_count, event.won_tie)


@dataclass(frozen=True)
class Step:
    """The state after ``k`` merges.

    Attributes:
        k: merges applied (0 = bytes only).
        total: merges available, ``None`` while a live run has not reached its end yet.
        merge: the last merge applied (rank ``k - 1``), ``None`` at step 0.
        candidates: live runs: the best pairs for the next merge as (left, right, count), the winner first.
        nearby: replays: the merges around ``k`` with their recorded counts.
        model: the tokenizer at step k as data (its first ``k`` merges).
        runner_up: live runs: the pair that came second when ``merge`` was made (``None`` at step 0, in
            replays, or when no other pair was left).
    """

    k: int
    total: int | None
    merge: StepMerge | None
    candidates: tuple[Candidate, ...]
    nearby: tuple[StepMerge, ...]
    model: BPEModel
    runner_up: Candidate | None = None

    def tokenizer(self) -> Tokenizer:
        return Tokenizer.from_model(self.model)


class LiveSteps:
    """Steps of a live training run on ``text``, computed on demand and kept.

    Candidate pairs are only known while the run stands at a step, and listing them costs more than a
    merge, so they are taken only at steps someone looks at. Looking back at a step that was skipped
    retrains a fresh run up to it: these corpora are small enough for that to take a fraction of a second.

    >>> steps = LiveSteps("low low low lower lower newest", max_merges=10)
    >>> steps.step(2).merge.token, steps.step(2).candidates[0], steps.step(2).runner_up
    (b'low', (b' ', b'low', 4), (b' ', b'l', 4))
    >>> steps.step(0).candidates[0][:2], steps.step(99).k, steps.total
    ((b'o', b'w'), 10, 10)
    >>> LiveSteps("low low low lower lower newest", max_merges=50).measure_total()
    11
    """

    def __init__(self, text: str, *, max_merges: int, special_tokens: tuple[str, ...] = ()) -> None:
        self.text = text
        self._max_merges = max_merges
        self._vocab_size = 256 + len(special_tokens) + max_merges
        self._special_tokens = special_tokens
        self._merges: list[StepMerge] = []
        self._candidates: dict[int, tuple[tuple[bytes, bytes, int], ...]] = {}
        self._total: int | None = None
        self._lock = threading.Lock()
        self._new_run()
        self._base = self._run.result()

    def _new_run(self) -> None:
        from core.train.run import TrainingRun

        self._run = TrainingRun.from_text(self.text, self._vocab_size, self._special_tokens, workers=1)
        self._events = self._run.events()
        self._at = 0
        self._counted = False

    @property
    def total(self) -> int | None:
        """Number of merges the run makes, once known (see ``measure_total``)."""
        return self._total

    @property
    def max_merges(self) -> int:
        """The most merges this run is allowed to make (it stops earlier when no pair is left)."""
        return self._max_merges

    def measure_total(self) -> int:
        """Find how many merges the run makes by training a throwaway copy to the end (no candidates, fast)."""
        with self._lock:
            return self._measure_total()

    def _measure_total(self) -> int:
        from core.train.run import TrainingRun

        if self._total is None:
            run = TrainingRun.from_text(self.text, self._vocab_size, self._special_tokens, workers=1)
            self._total = sum(1 for event in run.events() if isinstance(event, MergeMade))
        return self._total

    def _pump_to(self, k: int) -> None:
        """Bring the current run to step ``k`` (or its end), restarting it if it is already past ``k``."""
        if self._at > k:
            self._new_run()
        while not (self._counted and self._at >= k):
            event = next(self._events, None)
            if isinstance(event, PhaseProgress):
                self._counted = self._counted or event.phase == "merging"
            elif isinstance(event, MergeMade):
                self._at += 1
                if len(self._merges) < self._at:
                    self._merges.append(StepMerge.of(event))
                if self._at == self._max_merges:
                    self._total = self._at
            else:  # TrainingFinished, or the iterator is exhausted
                self._total = self._at
                self._counted = True
                break

    def step(self, k: int) -> Step:
        """The state after ``k`` merges (clamped to the merges the run can make)."""
        with self._lock:
            k = max(0, min(k, self._measure_total()))
            # The candidates before the last merge name its runner-up; taken first, so stepping forward
            # never restarts the run.
            for at in (k - 1, k):
                if at >= 0 and at not in self._candidates:
                    self._pump_to(at)
                    self._candidates[at] = tuple(self._run.top_pairs(CANDIDATES))
            before = self._candidates[k - 1] if k else ()
            merges = self._merges[:k]
            vocab = dict(self._base.vocab)
            for offset, merge in enumerate(merges):
                vocab[len(self._base.vocab) + offset] = merge.token
            model = replace(
                self._base,
                vocab=vocab,
                merges=[(m.left, m.right) for m in merges],
                merge_counts=[m.count for m in merges],
                merge_runner_ups=[m.runner_up_count for m in merges],
            )
            return Step(
                k=k,
                total=self._total,
                merge=merges[k - 1] if k else None,
                candidates=self._candidates[k],
                nearby=(),
                model=model,
                runner_up=before[1] if len(before) > 1 else None,
            )


class ReplaySteps:
    """Steps through an existing tokenizer's merges; step k uses its first k merges."""

    def __init__(self, model: BPEModel, *, around: int = 4) -> None:
        self.model = model
        self._around = around
        self._lock = threading.Lock()

    @property
    def total(self) -> int:
        return len(self.model.merges)

    def _merge(self, rank: int) -> StepMerge:
        left, right = self.model.merges[rank]
        model = self.model
        return StepMerge(rank, left, right, model.merge_count(rank), model.merge_runner_up(rank),
                         model.merge_was_tie(rank) is True)

    def step(self, k: int) -> Step:
        """The state after the first ``k`` merges, with the merges around ``k`` and their recorded counts."""
        with self._lock:
            k = max(0, min(k, self.total))
            low = max(0, k - self._around)
            high = min(self.total, k + self._around + 1)
            return Step(
                k=k,
                total=self.total,
                merge=self._merge(k - 1) if k else None,
                candidates=(),
                nearby=tuple(self._merge(rank) for rank in range(low, high)),
                model=replace(self.model, merges=self.model.merges[:k]),
            )
