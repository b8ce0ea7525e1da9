"""The reading stage of a training run: the corpus read into pre-token counts, in this process, in forked
workers or on a Dask cluster, with progress events on the way.

``ReadingStage`` is a base class of :class:`core.train.run.TrainingRun`, whose settings it reads and whose
corpus size, digest and skipped records it fills in. It is apart from the run so that the run holds what
it is asked and how it merges, and this module how a corpus is shared out among processes (the sizes
at which that pays are here). Counting one chunk of a file is ``core.train.reading``; one job of a
corpus of shards, ``core.train.shard_reading``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.corpus.records import ReadOptions, SkippedRecords
from core.corpus.shards import Corpus
from core.errors import CorpusError
from core.pretokenize.cuts import chunk_boundaries, replacement_hides_specials
from core.train.events import PhaseProgress, ShardsRead, TrainingEvent
from core.train.reading import TARGET_CHUNK_BYTES, count_chunk, count_chunks, count_pretokens, file_sha256
from core.train.shard_reading import ShardCount, corpus_digest, count_job, first_skipped, shard_jobs, text_bytes_guess

if TYPE_CHECKING:
    from core.train.worker_pool import WorkerPool

SHARED_READING_MIN_BYTES = 1 << 19
"""From this size (512 KiB) a corpus is read by several processes, this one included: a forked worker is
cheap to start, and on a corpus of a megabyte or so it already cuts the reading time (figures in
``benchmarks/README.md``)."""

PARALLEL_MIN_BYTES = 1 << 22
"""From this size (4 MiB) reading is left to a full pool of workers, eight chunks each or more, while this
process hashes the file and adds up the counts as they come (which is then work enough for it). Below it,
one worker fewer and this process reading a share take the same time and less memory."""

SHARED_CHUNK_BYTES = 1 << 18
"""Chunk size when this process reads a share of the corpus (see ``_read``)."""


class ReadingStage:
    """Reads a run's corpus into pre-token counts (the first phase of :meth:`TrainingRun.events`)."""

    # What it reads of the run (set by TrainingRun.__init__) ...
    text: str | None
    path: Path | None
    corpus: Corpus | None
    workers: int
    dask: str | None
    special_tokens: list[str]
    pattern: str
    errors: str
    text_field: str
    skip_bad_records: bool
    _cancelled: threading.Event
    cancelled: bool  # a property of the run
    # ... and what it fills in.
    skipped: SkippedRecords
    documents: int
    _dask: Any
    _corpus_bytes: int
    _corpus_sha256: str

    @contextlib.contextmanager
    def _worker_pool(self) -> Iterator[WorkerPool | None]:
        """Worker processes for reading and the first pair count, or None where they would not pay.

        Below ``PARALLEL_MIN_BYTES`` there is one worker fewer than ``workers``: this process reads a share.
        """
        if self.path is None or self.workers < 2 or not hasattr(os, "fork") or self.dask is not None:
            yield None
            return
        size = text_bytes_guess(self.corpus) if self.corpus is not None else self.path.stat().st_size
        if size < SHARED_READING_MIN_BYTES:
            yield None
            return
        from core.train.worker_pool import WorkerPool  # here, not at the top: small corpora never start workers

        full = size >= PARALLEL_MIN_BYTES or self.corpus is not None  # shards: this process only adds up
        with WorkerPool(self.workers if full else self.workers - 1) as pool:
            yield pool

    def _read(self, word_counts: dict[str, int], pool: WorkerPool | None) -> Iterator[TrainingEvent]:
        if self.text is not None:
            data = self.text.encode("utf-8")
            self._corpus_bytes = len(data)
            self._corpus_sha256 = hashlib.sha256(data).hexdigest()
            yield PhaseProgress("reading", 0, len(data))
            word_counts.update(count_pretokens(self.text, self.special_tokens, self.pattern))
            yield PhaseProgress("reading", len(data), len(data))
            return
        if self.corpus is not None:
            yield from self._read_shards(self.corpus, word_counts, pool)
            return
        assert self.path is not None
        size = self.path.stat().st_size
        self._corpus_bytes = size
        yield PhaseProgress("reading", 0, size)
        n_chunks = max(1, -(-size // TARGET_CHUNK_BYTES))
        shared = pool is not None and pool.size < self.workers  # this process reads a share too
        if shared:
            # Chunks of a quarter MiB keep each process's peak small (a chunk's pre-token list is several
            # times its bytes); each worker counts its share of them as one job, adding them up itself.
            n_chunks = max(self.workers, -(-size // SHARED_CHUNK_BYTES))
        elif pool is not None:
            # Eight chunks a worker: even load, and each worker's peak stays small.
            n_chunks = max(n_chunks, self.workers * 8)
        if replacement_hides_specials(self.special_tokens, self.errors):
            n_chunks = 1
        bounds = chunk_boundaries(self.path, self.special_tokens, self.pattern, n_chunks)
        jobs = [
            (str(self.path), start, end, self.special_tokens, self.pattern, self.errors)
            for start, end in zip(bounds, bounds[1:])
        ]
        counts: Counter[str] = Counter()
        done = 0
        mine = jobs  # the chunks this process counts, in order
        results: Iterator[tuple[int, dict[str, int]]] = iter(())
        if pool is not None and len(jobs) > 1:
            if shared:
                cuts = [len(jobs) * k // self.workers for k in range(self.workers + 1)]
                mine = jobs[: cuts[1]]
                results = pool.map_unordered(count_chunks, [(jobs[a:b],) for a, b in zip(cuts[1:], cuts[2:])])
            else:
                mine = []
                results = pool.map_unordered(count_chunk, ((job,) for job in jobs))
        for job in mine:
            n, chunk_counts = count_chunk(job)
            counts.update(chunk_counts)
            done += n
            yield PhaseProgress("reading", done, size)
            if self.cancelled:
                return
        if mine:  # hashed after this process's share, while the workers count theirs
            self._corpus_sha256 = file_sha256(self.path)
        for n, chunk_counts in results:
            counts.update(chunk_counts)
            done += n
            yield PhaseProgress("reading", done, size)
            if self.cancelled:
                return
        if not mine:
            # Every chunk went to the workers, one at a time as results are taken: hashed first, the file
            # was read whole before a worker's error (a NUL byte, bad UTF-8 in its first chunk) was seen.
            self._corpus_sha256 = file_sha256(self.path)
        word_counts.update(counts)

    def _read_options(self) -> ReadOptions:
        return ReadOptions(
            tuple(self.special_tokens), self.pattern, self.text_field, self.errors, self.skip_bad_records
        )

    def _read_shards(self, corpus: Corpus, word_counts: dict[str, int], pool: WorkerPool | None) -> Iterator[TrainingEvent]:
        """Count a corpus of shards job by job (see ``core.train.shard_reading``), in workers or on Dask."""
        jobs = shard_jobs(corpus, self._read_options())
        size = corpus.total_bytes
        self._corpus_bytes = size
        results: Iterator[ShardCount]
        counts: Counter[str] = Counter()
        finished: list[ShardCount] = []
        done = documents = skipped = text_bytes = 0
        try:
            if self.dask is not None:
                from core.train.dask_counting import DaskCounting  # here: only --dask needs dask

                self._dask = DaskCounting(self.dask, jobs, self.workers)
                workers = self._dask.start()
                results = self._dask.results(self._cancelled.is_set)
            elif pool is not None and len(jobs) > 1:
                workers, results = pool.size, pool.map_unordered(count_job, ((job,) for job in jobs))
            else:
                workers, results = 1, map(count_job, jobs)
            yield ShardsRead(0, len(jobs), 0, 0, workers)  # first: a display shows both with the progress
            yield PhaseProgress("reading", 0, size)
            for result in results:
                counts.update(result.counts)
                result.counts = {}  # what is kept for the digest must not hold the counts twice
                finished.append(result)
                done += result.size
                documents += result.documents
                skipped += result.skipped.count
                text_bytes += result.text_bytes
                if self._dask is not None:  # a cluster's workers come and go
                    workers = self._dask.workers
                yield ShardsRead(len(finished), len(jobs), documents, skipped, workers, text_bytes)
                yield PhaseProgress("reading", done, size)
                if self.cancelled:
                    return
        finally:
            if self._dask is not None:  # also on an error, Ctrl-C or an early close: the cluster's tasks stop
                self._dask.close()
                self._dask = None
        self._corpus_sha256 = corpus_digest(finished)
        self.skipped = first_skipped(finished)
        self.documents = documents
        if documents == 0 and self.skipped.count:
            # Skipping every record would train a tokenizer of bytes alone and call it a success.
            raise CorpusError(
                f"every record was bad ({self.skipped.count:,} skipped), so there is nothing to train on; "
                f"the first: {self.skipped.first}"
            )
        word_counts.update(counts)
