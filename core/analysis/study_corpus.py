"""The study's "corpus" evaluation text: the first few MiB of the corpus it trains on, file or shards.

A study measures its tokenizers on the corpus itself. A corpus of shards (JSON lines, Parquet, compressed,
a folder, a glob) is read through :mod:`core.corpus` with the options training uses (text field, bad
records skipped or not), so it fails exactly where training would. Its documents are then joined by the
first special token, which is how a text file separates documents: a ``.jsonl`` corpus and the same
documents in a ``.txt`` joined by ``<|endoftext|>`` give the same text and the same token counts. With no
special token the documents are kept apart (a tuple), each encoded on its own as ``export`` writes them.

Encoding is pure Python and is repeated for every size, so the text is capped at
:data:`EVALUATION_MAX_BYTES` UTF-8 bytes, for a plain text file as for shards: whole records (or safely
cut pieces of a text shard) are taken while they fit, and only a first document larger than the cap is cut,
at a character boundary.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Sequence

from core.corpus import open_corpus
from core.corpus.records import ReadOptions, SkippedRecords, shard_documents

EVALUATION_MAX_BYTES = 4 << 20
"""The most UTF-8 bytes of the corpus a study encodes once per size (4 MiB: seconds per size, not minutes)."""

EvaluationText = str | tuple[str, ...]
"""One text, or documents encoded one by one (their tokens add up, no separator between them)."""


@dataclass(frozen=True)
class CorpusSample:
    """The corpus's evaluation text and what was left out of it.

    Attributes:
        text: the text (a string), or its documents when there is no special token to join them by.
        bytes: its size in UTF-8 bytes.
        capped: whether the corpus held more than was taken.
        skipped: bad records skipped while reading (with ``skip_bad_records``).
    """

    text: EvaluationText
    bytes: int
    capped: bool
    skipped: SkippedRecords = field(default_factory=SkippedRecords)


def corpus_sample(
    corpus: str | os.PathLike[str],
    special_tokens: Sequence[str] = (),
    *,
    text_field: str = "text",
    skip_bad_records: bool = False,
    max_bytes: int = EVALUATION_MAX_BYTES,
) -> CorpusSample:
    """The first ``max_bytes`` of ``corpus`` as a study evaluates it (see the module docstring).

    Raises:
        CorpusError: the corpus, or a record of it, cannot be read (as training would say).

    >>> import tempfile, pathlib; folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.jsonl").write_text('{"text": "hi"}\\n{"text": "there"}\\n')
    >>> corpus_sample(folder, ["<|endoftext|>"]).text
    'hi<|endoftext|>there'
    >>> corpus_sample(folder).text, corpus_sample(folder, max_bytes=4).capped
    (('hi', 'there'), True)
    """
    opened = open_corpus(corpus)
    options = ReadOptions(tuple(special_tokens), text_field=text_field, skip_bad_records=skip_bad_records)
    skipped = SkippedRecords()
    separator = special_tokens[0] if special_tokens else None
    gap = len(separator.encode("utf-8")) if separator is not None else 0
    documents: list[list[str]] = []
    size = 0
    capped = False
    for shard in opened.shards:
        for piece, continues in shard_documents(shard, options, skipped):
            piece_bytes = len(piece.encode("utf-8", "surrogatepass"))
            cost = piece_bytes + (gap if documents and not continues else 0)
            if size + cost > max_bytes:
                if not documents:  # one document larger than the cap: keep its first max_bytes
                    cut = piece.encode("utf-8", "surrogatepass")[:max_bytes].decode("utf-8", "ignore")
                    documents.append([cut])
                    size = len(cut.encode("utf-8", "surrogatepass"))
                capped = True
                break
            if continues and documents:
                documents[-1].append(piece)
            else:
                documents.append([piece])
            size += cost
        if capped:
            break
    joined = tuple("".join(pieces) for pieces in documents)
    text: EvaluationText = separator.join(joined) if separator is not None else joined
    return CorpusSample(text, size, capped, skipped)
