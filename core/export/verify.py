"""Checking that an id array, its sidecar and a tokenizer belong together (``bpe-tui verify``).

Ids from the wrong tokenizer are valid integers all the same, so nothing else would notice. The checks,
in order, each failing with one line that says what differs:

1. the sidecar's fingerprint is the tokenizer's (another tokenizer, or the same with a merge removed,
   has another fingerprint), and its vocab size and special tokens are that tokenizer's (if not, the
   sidecar was edited);
2. the array's dtype and length are the ones the sidecar records, and the file holds all of them;
3. every id is in the tokenizer's vocabulary (below its vocab size);
4. optionally, decoding the ids gives the corpus back byte for byte (for a tokenizer that normalizes its
   text, Qwen2's NFC, the corpus so normalized), and the corpus's size and SHA-256 are the ones the sidecar
   records.

A corpus of shards (a folder, a glob, JSON lines, Parquet, compressed files) is checked as its export
made it: decoding gives back its documents joined by the tokenizer's first special token (one after
another if it has none), read with the same ``text_field`` and ``skip_bad_records``, and the shards'
stored bytes have the size and SHA-256 the sidecar records (:mod:`core.export.sidecar` says how they are
counted). An array of ``export --per-shard`` is checked against its own shard.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import BinaryIO, Protocol

from core.corpus import Corpus, open_corpus
from core.corpus.records import ReadOptions, SkippedRecords, shard_documents
from core.corpus.text_stream import text_pieces
from core.encode.normalizer import normalized_text
from core.errors import BPEError, CorpusError
from core.export.corpus_digest import ShardsDigest
from core.export.npy_ids import IdsFileError, NpyIds, read_npy_header
from core.export.sidecar import IdsSidecar, read_sidecar, sidecar_path
from core.fingerprint import fingerprint
from core.input_files import os_problem, shown_path
from core.model import BPEModel
from core.pretokenize.patterns import special_token_pattern

__all__ = ["IdsMismatch", "Verified", "verify_ids", "first_unknown_id"]


class IdsMismatch(BPEError):
    """An id array does not belong with its sidecar, its tokenizer or its corpus."""


@dataclass(frozen=True, slots=True)
class Verified:
    """What a successful :func:`verify_ids` checked."""

    ids: NpyIds
    sidecar: IdsSidecar
    corpus_checked: bool
    corpus_of_shards: bool = False
    """The corpus was checked as a corpus of shards: documents joined, the shards' digest."""


def _label(model: BPEModel, print_: str) -> str:
    return f"{model.name or 'the tokenizer'} (fingerprint {print_[:12]})"


def first_unknown_id(ids: NpyIds, model: BPEModel) -> tuple[int, int] | None:
    """The first id that is not in ``model``'s vocabulary and its position, or None when all are.

    >>> import tempfile, pathlib
    >>> from core.export.run import npy_header
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "ids.npy"
    >>> _ = path.write_bytes(npy_header("uint16", 3) + bytes([1, 0, 2, 0, 9, 0]))
    >>> first_unknown_id(read_npy_header(path), BPEModel({i: bytes([i]) for i in range(5)}, []))
    (9, 2)
    """
    size = max(model.vocab, default=-1) + 1
    gaps = len(model.vocab) != size  # a vocab with holes: checking the largest id is not enough
    position = 0
    for block in ids.blocks():
        if min(block, default=0) < 0 or max(block, default=0) >= size or gaps:
            for offset, token_id in enumerate(block):
                if token_id not in model.vocab:
                    return token_id, position + offset
        position += len(block)
    return None


def _check_tokenizer(side: IdsSidecar, model: BPEModel, shown_ids: str, shown_side: str) -> None:
    print_ = fingerprint(model)
    if side.fingerprint != print_:
        raise IdsMismatch(
            f"{shown_ids} was made by another tokenizer: its sidecar names {side.tokenizer_name or 'one'!r:.40} "
            f"(fingerprint {side.fingerprint[:12]}), not {_label(model, print_)}; decode it with the tokenizer "
            "that made it, or export the corpus again with this one"
        )
    if side.vocab_size != model.vocab_size:
        raise IdsMismatch(
            f"{shown_side} was edited: it has the fingerprint of {_label(model, print_)} but says vocab size "
            f"{side.vocab_size:,}, not {model.vocab_size:,}; export the ids again"
        )
    if sorted(side.special_tokens) != sorted(model.special_tokens):
        raise IdsMismatch(
            f"{shown_side} was edited: it has the fingerprint of {_label(model, print_)} but lists special tokens "
            f"{side.special_tokens!r:.60}, not {model.special_tokens!r:.60}; export the ids again"
        )


def _check_array(ids: NpyIds, side: IdsSidecar, shown_ids: str, shown_side: str) -> None:
    if ids.dtype != side.dtype:
        raise IdsMismatch(f"{shown_ids} holds {ids.dtype} ids but {shown_side} says {side.dtype}; "
                          "the two are not from the same export")
    if ids.length != side.tokens:
        raise IdsMismatch(f"{shown_ids} holds {ids.length:,} ids but {shown_side} says {side.tokens:,} "
                          "(cut, or not from the same export); export the corpus again")
    try:
        ids.check_whole()
    except IdsFileError as error:
        raise IdsMismatch(str(error)) from None


class _Readable(Protocol):
    def read(self, size: int, /) -> bytes: ...


class _PiecesRead:
    """Bytes from an iterator of pieces, read like a file (``read(n)``)."""

    def __init__(self, pieces: Iterator[bytes]) -> None:
        self._pieces = pieces
        self._pending = b""

    def read(self, size: int) -> bytes:
        while len(self._pending) < size:
            piece = next(self._pieces, None)
            if piece is None:
                break
            self._pending += piece
        data, self._pending = self._pending[:size], self._pending[size:]
        return data


def _joined_documents(corpus: Corpus, options: ReadOptions, separator: bytes | None, model: BPEModel) -> _PiecesRead:
    """The documents of a corpus of shards as its export joined them and decoding gives them back."""

    def pieces() -> Iterator[bytes]:
        documents = 0
        skipped = SkippedRecords()
        for shard in corpus.shards:
            for text, continues in shard_documents(shard, options, skipped):
                if not continues:
                    if documents and separator is not None:
                        yield separator
                    documents += 1
                yield as_decoded(text).encode("utf-8")

    as_decoded = _as_decoded(model)
    return _PiecesRead(pieces())


def _as_decoded(model: BPEModel) -> Callable[[str], str]:
    """Text as decoding its ids gives it back: as it is, or normalized, for a model that normalizes (Qwen2's NFC)."""
    if model.normalizer is None:
        return lambda text: text
    return partial(normalized_text, specials=special_token_pattern(model.special_tokens), form=model.normalizer)


class _Hashed:
    """A binary file read through, its SHA-256 taken of what was read."""

    def __init__(self, handle: BinaryIO) -> None:
        self._handle = handle
        self.sha = hashlib.sha256()

    def read(self, size: int = -1, /) -> bytes:
        data = self._handle.read(size)
        self.sha.update(data)
        return data


def _check_decoded(ids: NpyIds, model: BPEModel, source: _Readable, shown: str, shown_ids: str) -> str:
    """Compare the decoded ids with ``source``'s bytes; the hex SHA-256 of the bytes read."""
    token_of = model.vocab.__getitem__  # every id is known to be in the vocabulary by now
    sha = hashlib.sha256()
    offset = 0
    for block in ids.blocks():
        data = b"".join(map(token_of, block))
        text = source.read(len(data))
        sha.update(text)
        if text != data:
            at = offset + next((i for i, (a, b) in enumerate(zip(text, data)) if a != b), min(len(text), len(data)))
            raise IdsMismatch(f"decoding {shown_ids} does not give {shown} back: they differ from byte "
                              f"{at:,} on; it is not the corpus these ids were made from")
        offset += len(data)
    if source.read(1):
        raise IdsMismatch(f"decoding {shown_ids} gives only the first {offset:,} bytes of {shown}; "
                          "it is not the corpus these ids were made from (or the ids were cut)")
    return sha.hexdigest()


def _check_corpus(ids: NpyIds, side: IdsSidecar, model: BPEModel, corpus: Path, shown_ids: str,
                  shown_side: str) -> None:
    shown = shown_path(corpus)
    try:
        with open(corpus, "rb") as handle:
            if model.normalizer is None:
                sha = _check_decoded(ids, model, handle, shown, shown_ids)
            else:  # decoding gives the text normalized; pieces are cut at special tokens or ASCII whitespace,
                # where normalizing each apart gives what normalizing the whole gives
                read, as_decoded = _Hashed(handle), _as_decoded(model)
                specials = list(model.special_tokens)
                pieces = text_pieces(read, shown, specials, model.pattern, "strict")  # type: ignore[arg-type]
                normalized = _PiecesRead(as_decoded(piece).encode("utf-8") for piece in pieces)
                shown_normal = f"{shown} (in {model.normalizer}, as encoding reads it)"
                _check_decoded(ids, model, normalized, shown_normal, shown_ids)
                sha = read.sha.hexdigest()
    except OSError as problem:
        raise CorpusError(f"{shown}: {os_problem(problem)}") from None
    if corpus.stat().st_size != side.corpus_bytes or sha != side.corpus_sha256:
        raise IdsMismatch(f"{shown_side} was edited: decoding {shown_ids} gives {shown} back, but the sidecar "
                          "records another size or SHA-256 for it; export the ids again")


def _check_shards(ids: NpyIds, side: IdsSidecar, model: BPEModel, corpus: Corpus, options: ReadOptions,
                  shown_ids: str, shown_side: str) -> None:
    special = model.special_tokens[0] if model.special_tokens else None
    shown = shown_path(corpus.spec) + (f"'s documents joined by {special!r}" if special else "'s documents")
    documents = _joined_documents(corpus, options, special.encode("utf-8") if special else None, model)
    _check_decoded(ids, model, documents, shown, shown_ids)
    whole, _ = ShardsDigest(corpus.shards).finish()
    if corpus.total_bytes != side.corpus_bytes or whole != side.corpus_sha256:
        raise IdsMismatch(f"{shown_side} was edited, or {shown_path(corpus.spec)}'s shards were: decoding "
                          f"{shown_ids} gives the documents back, but the sidecar records another size or SHA-256 "
                          "for the shards; export the ids again")


def verify_ids(ids_path: str | os.PathLike[str], model: BPEModel, *,
               corpus: str | os.PathLike[str] | None = None, text_field: str = "text",
               skip_bad_records: bool = False) -> Verified:
    """Check that the id file ``ids_path``, its sidecar and ``model`` belong together (and ``corpus``:
    a text file, or a corpus of shards read with ``text_field`` and ``skip_bad_records`` as exported).

    Raises:
        IdsMismatch: they do not (see the module docstring for what is checked); one line.
        SidecarError: the sidecar is missing, not JSON, or not a sidecar.
        IdsFileError: ``ids_path`` is not a 1-D integer ``.npy`` array.
        CorpusError: ``corpus`` cannot be read.

    >>> import tempfile, pathlib
    >>> from core.export.run import export_corpus
    >>> folder = pathlib.Path(tempfile.mkdtemp()); _ = (folder / "c.txt").write_text("ab ab")
    >>> model = BPEModel({i: bytes([i]) for i in range(256)} | {256: b"ab"}, [(b"a", b"b")])
    >>> _ = export_corpus(folder / "c.txt", model, folder / "ids.npy")
    >>> verify_ids(folder / "ids.npy", model, corpus=folder / "c.txt").ids.length
    3
    >>> verify_ids(folder / "ids.npy", BPEModel(model.vocab, [], name="other"))
    Traceback (most recent call last):
    core.export.verify.IdsMismatch: .../ids.npy was made by another tokenizer: ...
    """
    ids = read_npy_header(ids_path)
    side = read_sidecar(ids.path)
    shown_ids, shown_side = shown_path(ids.path), shown_path(sidecar_path(ids.path))
    _check_tokenizer(side, model, shown_ids, shown_side)
    _check_array(ids, side, shown_ids, shown_side)
    unknown = first_unknown_id(ids, model)
    if unknown is not None:
        raise IdsMismatch(f"{shown_ids}: id {unknown[0]:,} at position {unknown[1]:,} is not in the vocabulary "
                          f"(vocab size {model.vocab_size:,}); the ids were not made by this tokenizer")
    of_shards = False
    if corpus is not None:
        shards = open_corpus(corpus)
        of_shards = not shards.single_plain_text
        if of_shards:
            options = ReadOptions(tuple(model.special_tokens), model.pattern, text_field, "strict", skip_bad_records)
            _check_shards(ids, side, model, shards, options, shown_ids, shown_side)
        else:
            _check_corpus(ids, side, model, Path(shards.spec), shown_ids, shown_side)
    return Verified(ids, side, corpus is not None, of_shards)

