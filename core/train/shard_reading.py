"""Counting the pre-tokens of a corpus of shards: the units of work, and the function each worker runs.

A shard is the natural unit of work: it is read from start to end by one process (a compressed stream
or a Parquet file cannot be entered in the middle). An uncompressed text shard larger than
:data:`SPLIT_TEXT_BYTES` is cut into parts at safe cuts (the rule of :mod:`core.pretokenize.cuts`), so
one large file among small ones still keeps every worker busy. Counts add up, so the order in which the
jobs finish changes nothing; whatever else depends on it (the first skipped record reported, the corpus
digest) is put in job order.

The same :func:`count_job` runs in this machine's forked workers (:mod:`core.train.worker_pool`) and on
a Dask cluster (:mod:`core.train.dask_counting`): a job and its result are small picklable values.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from core.corpus.compression import shard_sha256
from core.corpus.records import ReadOptions, SkippedRecords, shard_documents
from core.corpus.shards import Corpus, Shard, is_url
from core.pretokenize.cuts import chunk_boundaries, replacement_hides_specials
from core.pretokenize.fast_split import splitter_for
from core.pretokenize.patterns import special_token_pattern
from core.train.reading import decode_chunk

SPLIT_TEXT_BYTES = 8 << 20
"""An uncompressed text shard above this size (8 MiB) is counted in parts of about this size."""

COMPRESSION_GUESS = 4
"""How many times its size on disk a compressed or Parquet shard's text is guessed to be (text compresses
about 3 to 5 times): only to decide whether worker processes pay, never to report a size."""

FLUSH_PRETOKENS = 1 << 16
"""Pre-tokens gathered from small records before they are added to the counts in one update."""


@dataclass(frozen=True, slots=True)
class ShardJob:
    """One unit of counting: a shard, or the bytes ``[start, end)`` of an uncompressed text shard."""

    index: int
    shard: Shard
    options: ReadOptions
    part: tuple[int, int] | None = None

    @property
    def size(self) -> int:
        """Bytes of the file this job reads (compressed, where the shard is)."""
        return self.shard.size if self.part is None else self.part[1] - self.part[0]


@dataclass(slots=True)
class ShardCount:
    """What one job found: its pre-token counts, documents (records, or text between special tokens),
    skipped records and the digest of its bytes."""

    index: int
    shard: str
    size: int
    documents: int
    counts: dict[str, int]
    sha256: str
    skipped: SkippedRecords = field(default_factory=SkippedRecords)
    text_bytes: int = 0


def text_bytes_guess(corpus: Corpus) -> int:
    """About how many bytes of text ``corpus`` holds: uncompressed text and JSON lines their size, compressed
    and Parquet shards :data:`COMPRESSION_GUESS` times theirs.

    >>> text_bytes_guess(Corpus("d", (Shard("a.txt", "text", None, 10), Shard("b.jsonl.gz", "jsonl", "gz", 10))))
    50
    """
    return sum(shard.size if shard.plain_text or (shard.kind in ("jsonl", "arrow") and shard.compression is None)
               else COMPRESSION_GUESS * shard.size for shard in corpus.shards)


def shard_jobs(corpus: Corpus, options: ReadOptions, split_bytes: int | None = None) -> list[ShardJob]:
    """The jobs that count ``corpus``, in corpus order: one a shard, plain text shards above ``split_bytes``
    (default :data:`SPLIT_TEXT_BYTES`) in parts.

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.txt").write_text("one two three four five"); _ = (folder / "b.jsonl").write_text("")
    >>> from core.corpus import open_corpus
    >>> [(Path(job.shard.path).name, job.part) for job in shard_jobs(open_corpus(folder), ReadOptions(), 10)]
    [('a.txt', (0, 7)), ('a.txt', (7, 18)), ('a.txt', (18, 23)), ('b.jsonl', None)]
    """
    jobs: list[ShardJob] = []
    split_bytes = SPLIT_TEXT_BYTES if split_bytes is None else split_bytes
    whole = replacement_hides_specials(list(options.special_tokens), options.errors)
    for shard in corpus.shards:
        if shard.plain_text and shard.size > split_bytes and not is_url(shard.path) and not whole:
            parts = -(-shard.size // split_bytes)
            bounds = chunk_boundaries(Path(shard.path), list(options.special_tokens), options.pattern, parts)
            for start, end in zip(bounds, bounds[1:]):
                jobs.append(ShardJob(len(jobs), shard, options, (start, end)))
        else:
            jobs.append(ShardJob(len(jobs), shard, options))
    return jobs


def count_job(job: ShardJob) -> ShardCount:
    """Count the pre-tokens of one job's documents. Module-level, so it pickles (and Dask can ship it).

    Raises:
        CorpusError: a bad record (unless skipped), a corrupt archive, invalid UTF-8 in text; one line
            naming the shard.
    """
    options = job.options
    split = splitter_for(options.pattern, spell_out_bmp=False)  # ASCII text: stdlib re, twice as fast
    specials = special_token_pattern(options.special_tokens)
    counts: Counter[str] = Counter()
    pending: list[str] = []
    documents = text_bytes = 0
    skipped = SkippedRecords()
    records = job.shard.kind != "text"
    for text, continues in _texts(job, skipped):
        text_bytes += len(text.encode("utf-8", "surrogatepass"))
        pieces = [text] if specials is None else specials.split(text)
        # A record is one document; text is as many as special tokens cut it into (a part going on
        # from the previous one does not start one).
        documents += 1 if records else len(pieces) - continues
        for piece in pieces:
            pending += split(piece)
        if len(pending) >= FLUSH_PRETOKENS:
            counts.update(pending)
            pending.clear()
    counts.update(pending)
    return ShardCount(job.index, job.shard.path, job.size, documents, dict(counts), _digest(job), skipped, text_bytes)


def _texts(job: ShardJob, skipped: SkippedRecords):
    if job.part is None:
        yield from shard_documents(job.shard, job.options, skipped)
        return
    start, end = job.part
    path = Path(job.shard.path)
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read(end - start)
    yield decode_chunk(data, path, start, job.options.errors), start > 0


def _digest(job: ShardJob) -> str:
    if job.part is None:
        return shard_sha256(job.shard)
    start, end = job.part
    digest = hashlib.sha256()
    with open(job.shard.path, "rb") as handle:
        handle.seek(start)
        left = end - start
        while left:
            block = handle.read(min(left, 1 << 20))
            if not block:
                break
            digest.update(block)
            left -= len(block)
    return digest.hexdigest()


def corpus_digest(results: list[ShardCount]) -> str:
    """One SHA-256 for a corpus of shards: of each job's shard path, size and digest, in job order.

    It changes when any shard's bytes, name or place in the corpus change, and not with the worker count.
    """
    digest = hashlib.sha256()
    for result in sorted(results, key=lambda r: r.index):
        digest.update(f"{result.shard}\0{result.size}\0{result.sha256}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def first_skipped(results: list[ShardCount]) -> SkippedRecords:
    """All jobs' skipped records in one tally, its ``first`` the first in corpus order."""
    total = SkippedRecords()
    for result in sorted(results, key=lambda r: r.index):
        total.merge(result.skipped)
    return total
