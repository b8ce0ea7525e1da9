"""Which merges of a training run were decided by the tie rule rather than by a higher count.

When the best pair and the runner-up have the same count, the tie rule picks (here: the lexicographically
greater pair of byte strings; Hugging Face and others use other rules). Ties are why two libraries build
different vocabularies from the same text, so the dashboard counts them and the inspector lists them. A
merge is a tie when its recorded runner-up count equals its count; files that record no runner-up counts
(saved before bpe-tui recorded them, and every other format) leave ties unknown, which is said, not guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.model import BPEModel


@dataclass(frozen=True, slots=True)
class TiedMerge:
    """Merge ``rank`` joined ``left`` and ``right``; ``count`` pairs, as many as the runner-up had."""

    rank: int
    left: bytes
    right: bytes
    count: int

    @property
    def token(self) -> bytes:
        return self.left + self.right


@dataclass(frozen=True, slots=True)
class Ties:
    """The ties of a model.

    Attributes:
        merges: how many merges the model has.
        recorded: how many of them have a recorded runner-up count (0: ties are unknown).
        tied: the merges among those that were ties, in rank order.
    """

    merges: int
    recorded: int
    tied: tuple[TiedMerge, ...]

    @property
    def known(self) -> bool:
        """Whether the model says anything about ties (a model without merges has none to hide)."""
        return self.recorded > 0 or self.merges == 0

    def describe(self) -> str:
        """One line for summaries: ``"12 of 344 merges were ties"``, or why it is unknown.

        >>> Ties(344, 344, ()).describe(), Ties(3, 0, ()).describe()
        ('0 of 344 merges were ties', 'unknown: the file records no runner-up counts')
        """
        if not self.known:
            return "unknown: the file records no runner-up counts"
        n = len(self.tied)
        text = f"{n:,} of {self.recorded:,} merges {'was a tie' if n == 1 else 'were ties'}"
        if self.recorded < self.merges:
            text += f" ({self.merges - self.recorded:,} more without a recorded runner-up)"
        return text


def tied_merges(model: BPEModel) -> Ties:
    """The merges of ``model`` whose recorded runner-up count equals their count.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"abc"}
    >>> model = BPEModel(vocab, [(b"a", b"b"), (b"ab", b"c")], merge_counts=[4, 2], merge_runner_ups=[3, 2])
    >>> ties = tied_merges(model)
    >>> ties.recorded, [(t.rank, t.token, t.count) for t in ties.tied]
    (2, [(1, b'abc', 2)])
    """
    tied: list[TiedMerge] = []
    recorded = 0
    for rank, (left, right) in enumerate(model.merges):
        was_tie = model.merge_was_tie(rank)
        if was_tie is None:
            continue
        recorded += 1
        if was_tie:
            count = model.merge_count(rank)
            assert count is not None  # a known tie has a known count
            tied.append(TiedMerge(rank, left, right, count))
    return Ties(len(model.merges), recorded, tuple(tied))
