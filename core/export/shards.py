"""Export of a corpus of shards: every document encoded, into one ``.npy`` array or one array a shard.

Documents are separated as a special token separates them in a text file: the ids of a JSON-lines
corpus equal those of its records joined by ``<|endoftext|>`` in one ``.txt``. So between two documents
(records, or shards) the id of the tokenizer's first special token is written; a tokenizer with no
special token writes the documents' ids one after another (each still encoded on its own). A text shard
is one document stream, cut only at safe cuts (:mod:`core.corpus.text_stream`), so its ids are those of
encoding it whole. An empty shard has no document and adds nothing, not even a separator.

A shard is the unit of work: with ``workers > 1`` forked processes (they inherit this process's
tokenizer) encode one shard each at a time into a part file, and this process copies the parts into
the output in corpus order, so the result is the same for every worker count. With ``per_shard`` each
shard becomes ``OUT/<its path in the corpus>.npy``, written into a temporary folder that is renamed
into place at the end: either every array is there or none.

Every array gets its sidecar (``IDS.npy.json``, :mod:`core.export.sidecar`, which says what the corpus
fields mean for shards). The one array is saved with its sidecar through
:func:`core.export.run.write_ids` (both or neither), after :class:`ExportSaving`; under ``per_shard``
each array's sidecar describes its own shard and is written into the temporary folder with it, so the
folder's one rename saves them all. The shards' SHA-256 is taken while they are encoded
(:class:`core.export.corpus_digest.ShardsDigest`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from core.atomic import atomic_directory
from core.output_errors import OutputError, describe_write_error
from core.temporaries import temp_prefix
from core.corpus.records import ReadOptions, SkippedRecords, shard_documents
from core.corpus.shards import COMPRESSIONS, Corpus, Shard, is_url
from core.errors import CorpusError, SettingsError
from core.export.corpus_digest import ShardsDigest
from core.export.encoding import ITEM_BYTES, write_flushed
from core.export.run import (HEADER_BYTES, ExportFinished, ExportProgress, ExportSaving, id_dtype, npy_header,
                             write_ids)
from core.export.sidecar import IdsSidecar, sidecar_path
from core.input_files import shown_path
from core.pretokenize.cuts import cut_pattern

if TYPE_CHECKING:
    from core.encode.tokenizer import Tokenizer
    from core.model import BPEModel

FLUSH_IDS = 1 << 16
"""Ids gathered before they are written out."""

_TYPECODES = {"uint16": "H", "uint32": "I" if array("I").itemsize == 4 else "L"}

_tokenizer: Tokenizer | None = None
"""The tokenizer of the export under way, set before the workers fork so that they inherit it warm."""


@dataclass(frozen=True, slots=True)
class ShardExportJob:
    """Encode ``shard`` into the file ``part`` (a bare id stream, or a whole ``.npy`` with ``header``)."""

    shard: Shard
    part: str
    options: ReadOptions
    dtype: str
    separator: int | None
    header: bool
    output: str = ""
    """The file the user asked for, which messages name (``part`` is a temporary beside it); ``part`` if empty."""


@dataclass(frozen=True, slots=True)
class ShardExported:
    """One shard done: its path, its size on disk, its documents and ids, the bad records it skipped, and the
    UTF-8 bytes of the text it encoded."""

    shard: str
    size: int
    documents: int
    tokens: int
    skipped: SkippedRecords
    text_bytes: int = 0


def export_shard(job: ShardExportJob) -> ShardExported:
    """Encode one shard's documents into ``job.part``, separated by ``job.separator``. Module-level (pickles)."""
    assert _tokenizer is not None, "the tokenizer is set before any job runs"
    encode = _tokenizer.encode
    typecode = _TYPECODES[job.dtype]
    skipped = SkippedRecords()
    documents = tokens = text_bytes = 0
    target = Path(job.output or job.part)
    pending = array(typecode)
    with _part_file(Path(job.part), target) as handle:
        if job.header:
            write_flushed(handle, bytes(HEADER_BYTES), target)
        for text, continues in shard_documents(job.shard, job.options, skipped):
            if not continues:
                if documents and job.separator is not None:
                    pending.append(job.separator)
                documents += 1
            text_bytes += len(text.encode("utf-8", "surrogatepass"))
            pending.extend(encode(text))
            if len(pending) >= FLUSH_IDS:
                tokens += _write_ids(handle, pending, target)
        tokens += _write_ids(handle, pending, target)
        if job.header:
            handle.seek(0)
            write_flushed(handle, npy_header(job.dtype, tokens), target)
    return ShardExported(job.shard.path, job.shard.size, documents, tokens, skipped, text_bytes)


@contextlib.contextmanager
def _part_file(part: Path, target: Path) -> Iterator[BinaryIO]:
    """``part`` opened for writing, closed with what it holds; a failure to write is an OutputError naming
    ``target``.

    A plain ``with open(...)`` flushed again on the way out of a failed write: on a full disk that raised a
    second, bare OSError, which took the place of the first error's line (no file named).
    """
    handle = open(part, "wb")  # noqa: SIM115 - closed below, both ways
    try:
        yield handle
    except BaseException:
        with contextlib.suppress(OSError):  # what is still buffered fails again; the first error says why
            handle.close()
        raise
    try:
        handle.close()
    except OSError as error:
        raise OutputError(f"cannot write {shown_path(target)}: {describe_write_error(error)}") from None


def _write_ids(handle: BinaryIO, ids: array, target: Path) -> int:
    if sys.byteorder == "big":
        ids.byteswap()
    write_flushed(handle, ids.tobytes(), target)
    n = len(ids)
    del ids[:]
    return n


def shard_output_names(corpus: Corpus) -> list[str]:
    """Each shard's array name under ``--per-shard``'s folder: its path below the shards' common folder,
    compression suffix dropped, ``.npy`` added (``a.jsonl.gz`` -> ``a.jsonl.npy``; ``a.txt`` and ``a.jsonl``
    stay apart).

    >>> corpus = Corpus("d", (Shard("d/x/a.jsonl.gz", "jsonl", "gz", 0), Shard("d/b.txt", "text", None, 0)))
    >>> shard_output_names(corpus)
    ['x/a.jsonl.npy', 'b.txt.npy']
    """
    paths = [shard.path.split("://", 1)[1] if is_url(shard.path) else os.path.abspath(shard.path)
             for shard in corpus.shards]
    root = os.path.commonpath([os.path.dirname(path) for path in paths])
    names = []
    for path in paths:
        name = os.path.relpath(path, root)
        for suffix in COMPRESSIONS:
            if name.lower().endswith(suffix):
                name = name[: -len(suffix)]
                break
        names.append(name + ".npy")
    return names


def _distinct_output_names(corpus: Corpus) -> list[str]:
    """:func:`shard_output_names`, refused when two shards would share one (``a.jsonl`` and ``a.jsonl.gz``):
    the second array would replace the first."""
    names = shard_output_names(corpus)
    first: dict[str, str] = {}
    for shard, name in zip(corpus.shards, names):
        if name in first:
            raise OutputError(
                f"--per-shard: shards {shown_path(first[name])} and {shown_path(shard.path)} would both be saved "
                f"as {shown_path(name)}; rename or move one of them, or export without --per-shard"
            )
        first[name] = shard.path
    return names


def export_shard_events(
    corpus: Corpus,
    tokenizer: BPEModel | Tokenizer,
    out: str | os.PathLike[str],
    *,
    workers: int = 1,
    per_shard: bool = False,
    text_field: str = "text",
    skip_bad_records: bool = False,
) -> Iterator[ExportProgress | ShardExported | ExportSaving | ExportFinished]:
    """Encode every document of ``corpus`` into ``out`` (one ``.npy``, or a new folder with ``per_shard``).

    Yields a ``ShardExported`` and an ``ExportProgress`` as each shard is done, then (one array only)
    ``ExportSaving`` just before the array and its sidecar are renamed into place, then ``ExportFinished``.
    With ``per_shard`` its ``path`` is the folder and its ``sidecar`` describes the export as a whole
    (all the tokens, the corpus as given); each array's own sidecar is in the folder beside it. Closing
    the generator early stops the workers and leaves no output and no temporary file.

    Raises:
        CorpusError: a bad record (unless skipped), a corrupt archive, a missing optional package.
        SettingsError: ``workers`` below 1.
        OutputError: ``out`` cannot be written.

    >>> import tempfile, pathlib, json
    >>> from core.corpus import open_corpus
    >>> from core.model import BPEModel
    >>> folder = pathlib.Path(tempfile.mkdtemp()); path = folder / "c.jsonl"
    >>> _ = path.write_text(json.dumps({"text": "ab"}) + "\\n" + json.dumps({"text": "b"}) + "\\n")
    >>> model = BPEModel({i: bytes([i]) for i in range(256)} | {256: b"<|endoftext|>", 257: b"ab"},
    ...                  [(b"a", b"b")], special_tokens=["<|endoftext|>"])
    >>> [e for e in export_shard_events(open_corpus(path), model, folder / "ids.npy")][-1].tokens
    3
    """
    global _tokenizer
    from core.encode.tokenizer import Tokenizer

    if workers < 1:
        raise SettingsError(f"workers ({workers}) must be at least 1")
    target = Path(out)
    model: BPEModel = getattr(tokenizer, "model", tokenizer)
    _tokenizer = tokenizer if isinstance(tokenizer, Tokenizer) else Tokenizer.from_model(model)
    dtype = id_dtype(model)
    separator = _tokenizer.encode(model.special_tokens[0])[0] if model.special_tokens else None
    pattern = cut_pattern(model.pattern, model.normalizer)
    options = ReadOptions(tuple(model.special_tokens), pattern, text_field, "strict", skip_bad_records)
    digest = ShardsDigest(corpus.shards)
    export = _Export(corpus, model, target, options, dtype, separator, workers, digest)
    try:
        if per_shard:
            yield from _per_shard(export)
        else:
            yield from _one_array(export)
    finally:
        digest.stop()
        _tokenizer = None


@dataclass(frozen=True, slots=True)
class _Export:
    """What every step of one shard export needs."""

    corpus: Corpus
    model: BPEModel
    target: Path
    options: ReadOptions
    dtype: str
    separator: int | None
    workers: int
    digest: ShardsDigest

    def text_bytes(self, results: Iterable[ShardExported], separators: int) -> int:
        """The bytes of the text the ids encode: the documents, and the first special token between two
        (``separators`` of them), as the one text file holding the corpus has them."""
        between = len(self.model.special_tokens[0].encode("utf-8")) if self.model.special_tokens else 0
        return sum(result.text_bytes for result in results) + max(separators, 0) * between

    def sidecar(self, tokens: int, corpus: str, size: int, sha256: str) -> IdsSidecar:
        """The sidecar of ``tokens`` ids made from ``corpus`` (the whole corpus as given, or one shard)."""
        return IdsSidecar.describe(self.model, dtype=self.dtype, tokens=tokens, corpus=corpus, corpus_bytes=size,
                                   corpus_sha256=sha256)


def _run(jobs: list[ShardExportJob], workers: int, digest: ShardsDigest) -> Iterator[tuple[int, ShardExported]]:
    """``(job index, result)`` for each job, in the order they finish; ``digest`` hashes the shards meanwhile."""
    indexed = [(index, job) for index, job in enumerate(jobs)]
    if workers < 2 or len(jobs) < 2 or not hasattr(os, "fork"):
        for index, job in indexed:
            digest.read_through(index + 1)  # just before its encoding: the shard is then in the page cache
            yield index, export_shard(job)
        return
    from core.train.worker_pool import WorkerPool  # here: a one-shard export never forks

    with WorkerPool(min(workers, len(jobs))) as pool:
        results = pool.map_unordered(_indexed_export, [(index, job) for index, job in indexed])
        digest.in_background()  # only now that every worker is forked: no fork may follow a thread's start
        yield from results


def _indexed_export(index: int, job: ShardExportJob) -> tuple[int, ShardExported]:
    return index, export_shard(job)


def _one_array(export: _Export) -> Iterator[ExportProgress | ShardExported | ExportSaving | ExportFinished]:
    corpus, target, dtype, separator = export.corpus, export.target, export.dtype, export.separator
    total = corpus.total_bytes
    with write_ids(target) as ids:
        handle = ids.handle
        write_flushed(handle, bytes(HEADER_BYTES), target)
        try:
            parts = Path(tempfile.mkdtemp(prefix=temp_prefix(target), suffix=".tmpdir", dir=target.parent))
        except OSError as error:
            raise OutputError(f"cannot write {shown_path(target)}: {describe_write_error(error)}") from None
        try:
            jobs = [ShardExportJob(shard, str(parts / f"{index}.ids"), export.options, dtype, separator, False,
                                   str(target))
                    for index, shard in enumerate(corpus.shards)]
            finished: dict[int, ShardExported] = {}
            copied = tokens = done = documents = 0
            for index, result in _run(jobs, export.workers, export.digest):
                finished[index] = result
                done += result.size
                yield result
                while copied in finished:  # parts go into the output in corpus order, as soon as they can
                    part = finished[copied]
                    if part.documents and documents and separator is not None:
                        write_flushed(handle, _id_bytes(separator, dtype), target)
                        tokens += 1
                    documents += part.documents
                    with open(jobs[copied].part, "rb") as source:
                        shutil.copyfileobj(source, handle, 1 << 20)
                    handle.flush()
                    os.unlink(jobs[copied].part)
                    tokens += part.tokens
                    copied += 1
                yield ExportProgress(done_bytes=done, total_bytes=total, tokens=tokens)
        finally:
            shutil.rmtree(parts, ignore_errors=True)
        _check_some_document_read(finished)
        assert handle.tell() == HEADER_BYTES + tokens * ITEM_BYTES[dtype], "lost a shard"
        handle.seek(0)
        write_flushed(handle, npy_header(dtype, tokens), target)
        sidecar = export.sidecar(tokens, corpus.spec, total, export.digest.finish()[0])
        ids.describe(sidecar)
        yield ExportSaving(path=target, sidecar=sidecar_path(target))
    yield ExportFinished(path=target, tokens=tokens, dtype=dtype, corpus_bytes=total, sidecar=sidecar,
                         text_bytes=export.text_bytes(finished.values(), documents - 1))


def _check_some_document_read(results: dict[int, ShardExported]) -> None:
    """Refuse an export whose every record was skipped as bad: an empty array is no export of the corpus
    (training refuses such a corpus the same way)."""
    skipped = SkippedRecords()
    for index in sorted(results):  # corpus order: the first bad record reported is the corpus's first
        skipped.merge(results[index].skipped)
    if skipped.count and not any(result.documents for result in results.values()):
        raise CorpusError(
            f"every record was bad ({skipped.count:,} skipped), so there is nothing to export; the first: "
            f"{skipped.first}"
        )


def _id_bytes(token: int, dtype: str) -> bytes:
    ids = array(_TYPECODES[dtype], [token])
    if sys.byteorder == "big":
        ids.byteswap()
    return ids.tobytes()


def _per_shard(export: _Export) -> Iterator[ExportProgress | ShardExported | ExportFinished]:
    corpus, target = export.corpus, export.target
    if os.path.lexists(target):
        raise OutputError(f"-o {shown_path(target)}: already exists; --per-shard writes a new folder, give one")
    names = _distinct_output_names(corpus)
    total = corpus.total_bytes
    tokens = done = 0
    with atomic_directory(target) as folder:
        jobs = []
        for shard, name in zip(corpus.shards, names):
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            jobs.append(ShardExportJob(shard, str(folder / name), export.options, export.dtype, export.separator, True,
                                       str(export.target / name)))
        results: dict[int, ShardExported] = {}
        for index, result in _run(jobs, export.workers, export.digest):
            results[index] = result
            done += result.size
            tokens += result.tokens
            yield result
            yield ExportProgress(done_bytes=done, total_bytes=total, tokens=tokens)
        _check_some_document_read(results)
        whole, each = export.digest.finish()
        for index, (job, shard) in enumerate(zip(jobs, corpus.shards)):
            # Inside the temporary folder: its one rename saves every array with its sidecar, or none.
            side = export.sidecar(results[index].tokens, shard.path, shard.size, each[index])
            where = sidecar_path(job.part)
            try:
                with open(where, "wb") as handle:
                    write_flushed(handle, side.to_bytes(), where)
            except OSError as error:
                raise OutputError(f"cannot write {shown_path(where)}: {describe_write_error(error)}") from None
    sidecar = export.sidecar(tokens, corpus.spec, total, whole)
    separators = sum(result.documents - 1 for result in results.values() if result.documents)
    yield ExportFinished(path=target, tokens=tokens, dtype=export.dtype, corpus_bytes=total, sidecar=sidecar,
                         text_bytes=export.text_bytes(results.values(), separators))
