"""The study's "corpus" evaluation text: the first few MiB of the corpus it trains on, file or shards.

A study measures its tokenizers on the corpus itself. A corpus of shards (JSON lines, Parquet, compressed,
a folder, a glob) is read through :mod:`core.corpus` with the options training uses (text field, bad
records skipped or not), so it fails exactly where training would. Its documents are then joined by the
first special token, which is how a text file separates documents: a ``.jsonl`` corpus and the same
documents in a ``.txt`` joined by ``<|endoftext|>`` give the same text and the same token counts. With no
special token the documents are kept apart (a tuple), each encoded on its own as ``export`` writes them.

Encoding is pure Python and is repeated for every size, so the text is capped at
:data:`EVALUATION_MAX_BYTES` UTF-8 bytes, for a plain text file as for shards: JSON-lines and Parquet
records are taken whole while they fit (only a first record larger than the cap is cut), and text, which
has no record to end at, is cut where the cap falls; a cut ends at a character boundary.
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
    errors: str = "strict",
    max_bytes: int = EVALUATION_MAX_BYTES,
) -> CorpusSample:
    """The first ``max_bytes`` of ``corpus`` as a study evaluates it (see the module docstring).

    ``errors`` is training's: ``"strict"`` refuses invalid UTF-8, ``"replace"`` reads it as U+FFFD.

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
    options = ReadOptions(
        tuple(special_tokens), text_field=text_field, errors=errors, skip_bad_records=skip_bad_records
    )
    skipped = SkippedRecords()
    separator = special_tokens[0] if special_tokens else None
    gap = len(separator.encode("utf-8")) if separator is not None else 0
    documents: list[list[str]] = []
    size = 0
    capped = False
    for shard in opened.shards:
        for piece, continues in shard_documents(shard, options, skipped):
            starts = not (continues and documents)
            gap_here = gap if documents and starts else 0
            piece_bytes = len(piece.encode("utf-8", "surrogatepass"))
            if size + gap_here + piece_bytes > max_bytes:
                capped = True
                if documents and shard.kind != "text":  # a record is taken whole or not at all
                    break
                piece = _prefix(piece, max_bytes - size - gap_here)
                if not piece and documents:
                    break
                piece_bytes = len(piece.encode("utf-8", "surrogatepass"))
            if starts:
                documents.append([piece])
            else:
                documents[-1].append(piece)
            size += gap_here + piece_bytes
            if capped:
                break
        if capped:
            break
    joined = tuple("".join(pieces) for pieces in documents)
    text: EvaluationText = separator.join(joined) if separator is not None else joined
    return CorpusSample(text, size, capped, skipped)


def _prefix(text: str, max_bytes: int) -> str:
    """The longest start of ``text`` within ``max_bytes`` UTF-8 bytes that ends at a character boundary.

    >>> _prefix("日本語", 7), _prefix("abc", 0)
    ('日本', '')
    """
    data = text.encode("utf-8", "surrogatepass")
    end = max(0, min(max_bytes, len(data)))
    while 0 < end < len(data) and data[end] & 0xC0 == 0x80:  # inside a character: back to its first byte
        end -= 1
    return data[:end].decode("utf-8", "surrogatepass")
