"""Merging with the pre-tokens spread over processes, for corpora with many unique pre-tokens.

Japanese text under the GPT-2 pattern has tens of thousands of long, mostly unique pre-tokens, and each
merge touches a few hundred of them: pure-Python work that splits cleanly. Each worker process holds a
``WordShard`` (a slice of the pre-tokens) and answers every merge with its count deltas; this process
holds one shard too, plus the one ``PairQueue`` that picks merges, so the choice of merge (and so the
result) is the same as with a single shard. Workers are forked, so they inherit their slice without
pickling, and count their pairs in parallel.
"""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING

from core.merging import PairMerger, PairQueue, WordShard

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

SHARDED_MIN_UNIQUE = 40_000
"""Unique pre-tokens from which sharding pays: below it, a round trip per merge costs more than it saves."""

SHARDED_MIN_CHARS_PER_MERGE = 50
"""Characters of unique pre-tokens per planned merge from which a merge costs more than a round trip."""


def ignore_interrupts() -> None:
    """In a worker process: leave Ctrl-C to the parent, which cancels the run and stops its workers.

    A terminal sends SIGINT to the whole process group; without this every worker would print a traceback.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _serve_shard(conn: Connection, word_counts: list[tuple[str, int]]) -> None:
    """Worker loop: count pairs once, then answer each ``(pair, new)`` with deltas until told to stop."""
    ignore_interrupts()
    shard = WordShard(word_counts)
    del word_counts
    conn.send(shard.count_pairs())
    while True:
        message = conn.recv()
        if message is None:
            break
        pair, new = message
        conn.send(dict(shard.merge(pair, new)))
    conn.close()


class ShardedMerger(PairMerger):
    """A ``PairMerger`` whose pre-tokens are split between this process and ``workers - 1`` others.

    It builds its own shard and queue (so it does not call ``PairMerger.__init__``) and inherits the
    queue-side methods; only applying a merge and closing differ.
    """

    def __init__(self, word_counts: dict[str, int], vocab: dict[int, bytes], workers: int) -> None:
        items = list(word_counts.items())
        import multiprocessing  # here, not at the top: only large corpora shard

        context = multiprocessing.get_context("fork")
        self._connections: list[Connection] = []
        self._processes = []
        try:
            # This process also picks merges and sums the deltas, so it takes two shares of the pre-tokens
            # and each worker three: measured on Japanese, both sides then finish a merge at about the same time.
            shares = 2 + 3 * (workers - 1)
            for k in range(1, workers):
                first = 2 + 3 * (k - 1)
                mine = [item for offset in range(first, first + 3) for item in items[offset::shares]]
                parent_end, child_end = context.Pipe()
                process = context.Process(
                    target=_serve_shard, args=(child_end, mine), name=f"bpe-shard-{k}", daemon=True
                )
                process.start()
                child_end.close()
                self._connections.append(parent_end)
                self._processes.append(process)
            self.shard = WordShard(items[0::shares] + items[1::shares])
            del items
            counts = self.shard.count_pairs()
            for conn in self._connections:
                for pair, n in conn.recv().items():
                    counts[pair] = counts.get(pair, 0) + n
        except BaseException:
            self.close()
            raise
        self.queue = PairQueue(counts, vocab)

    def apply(self, pair: str, new_id: int) -> None:
        """Send the merge to every worker, do this process's share meanwhile, then sum the deltas."""
        self.queue.add_token(pair, new_id)
        new = chr(new_id)
        for conn in self._connections:
            conn.send((pair, new))
        deltas = self.shard.merge(pair, new)
        for conn in self._connections:
            for key, delta in conn.recv().items():
                deltas[key] += delta
        self.queue.update(deltas, pair)

    def close(self) -> None:
        """Stop the workers (politely if they are idle, forcibly otherwise)."""
        for conn in self._connections:
            try:
                conn.send(None)
                conn.close()
            except OSError:
                pass
        for process in self._processes:
            process.join(timeout=1)
            if process.is_alive():
                process.terminate()
                process.join()
        self._connections = []
        self._processes = []


def make_merger(
    word_counts: dict[str, int], vocab: dict[int, bytes], workers: int, merges: int
) -> PairMerger | ShardedMerger:
    """The merge engine that suits the corpus: sharded across processes only when it pays.

    Every merge costs a round trip to each worker, so sharding pays only when merges are expensive:
    many unique pre-tokens *and* much text in them per merge to make. Japanese (about 90 characters of
    unique pre-tokens per merge at vocab 10,000) gains; a corpus of many short words trained to a large
    vocabulary (a few characters per merge) would run several times slower sharded.
    """
    if workers > 1 and merges > 0 and len(word_counts) >= SHARDED_MIN_UNIQUE:
        if sum(map(len, word_counts)) / merges >= SHARDED_MIN_CHARS_PER_MERGE:
            return ShardedMerger(word_counts, vocab, workers)
    return PairMerger(word_counts, vocab)
