"""What the corpus pane shows about a corpus of shards: its shards, their records and bytes, a preview.

:func:`scan_shards` reads every record once (as training will), yielding a growing
:class:`ShardsSummary` now and then, so a display can show the counts as they come and a worker can stop
between two yields. A shard that cannot be read ends the scan with its one-line reason in ``problem``:
the pane shows it before any training is started.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from core.corpus.records import ReadOptions, SkippedRecords, shard_documents
from core.corpus.shards import Corpus, Shard
from core.errors import CorpusError

YIELD_EVERY_RECORDS = 2000
"""Records between two yields within a shard."""


@dataclass(frozen=True, slots=True)
class ShardSummary:
    """One shard's counts: records (documents; a text shard is one) and the UTF-8 bytes of their text."""

    shard: Shard
    records: int = 0
    text_bytes: int = 0


@dataclass(frozen=True, slots=True)
class ShardsSummary:
    """The counts so far: each shard scanned (the last one maybe partly), and whether the scan is over."""

    corpus: Corpus
    shards: tuple[ShardSummary, ...] = field(default=())
    complete: bool = False
    problem: str | None = None

    @property
    def records(self) -> int:
        return sum(summary.records for summary in self.shards)

    @property
    def text_bytes(self) -> int:
        return sum(summary.text_bytes for summary in self.shards)


def scan_shards(corpus: Corpus, options: ReadOptions = ReadOptions()) -> Iterator[ShardsSummary]:
    """Count the records and text bytes of every shard, yielding the summary so far now and then.

    >>> import tempfile, pathlib; from core.corpus import open_corpus
    >>> folder = pathlib.Path(tempfile.mkdtemp()); _ = (folder / "a.jsonl").write_text('{"text": "hé"}\\n' * 3)
    >>> last = list(scan_shards(open_corpus(folder)))[-1]
    >>> last.records, last.text_bytes, last.complete
    (3, 9, True)
    """
    done: list[ShardSummary] = []
    yield ShardsSummary(corpus)
    for shard in corpus.shards:
        records = text_bytes = 0
        try:
            for text, continues in shard_documents(shard, options, SkippedRecords()):
                records += not continues
                text_bytes += len(text.encode("utf-8", "surrogatepass"))
                if records % YIELD_EVERY_RECORDS == 0 and not continues:
                    yield ShardsSummary(corpus, (*done, ShardSummary(shard, records, text_bytes)))
        except CorpusError as error:
            yield ShardsSummary(corpus, (*done, ShardSummary(shard, records, text_bytes)), True, str(error))
            return
        done.append(ShardSummary(shard, records, text_bytes))
        yield ShardsSummary(corpus, tuple(done))
    yield replace(ShardsSummary(corpus, tuple(done)), complete=True)


def shards_preview(corpus: Corpus, max_chars: int = 4000, options: ReadOptions = ReadOptions()) -> str:
    """The first documents of the corpus, each under a rule naming its shard, cut at ``max_chars``; up to
    the first bad record, if one comes sooner (the scan then reports it).

    Raises:
        CorpusError: the first record cannot be read.
    """
    parts: list[str] = []
    try:
        _preview_into(parts, corpus, max_chars, options)
    except CorpusError:
        if not parts:
            raise
    return "".join(parts)


def _preview_into(parts: list[str], corpus: Corpus, max_chars: int, options: ReadOptions) -> None:
    left = max_chars
    for shard in corpus.shards:
        for number, (text, continues) in enumerate(shard_documents(shard, options, SkippedRecords()), 1):
            if not continues:
                where = "" if shard.kind == "text" else f" · record {number}"
                parts.append(f"── {Path(shard.path).name}{where} ──\n")
            parts.append(text[:left])
            left -= len(parts[-1])
            if left <= 0:
                return
            if not continues:
                parts.append("\n")
