"""The documents of one shard, streamed: text pieces, JSON-lines records or Parquet rows.

Every record of a JSON-lines or Parquet shard is one document, and a text shard is one document stream
of its own: documents are separated exactly as a special token separates them in a text file, so no
pre-token, and so no merge, spans two records or two shards. :func:`shard_documents` yields
``(text, continues)``: ``continues`` is true for a piece of a text shard after its first, which goes on
the same document stream (an export puts no separator before it).

A bad record (a line that is not JSON, not an object, without the text field, a value that is not a
string, a null in Parquet, invalid UTF-8) is a one-line :class:`~core.errors.CorpusError` naming the
shard and the line (JSON lines, from 1) or row (Parquet, from 1). With ``skip_bad_records`` it is
counted in a :class:`SkippedRecords` instead, and reading goes on. A corrupt or truncated archive, a
Parquet file without the column, or one whose column holds neither strings nor bytes, stops the run whatever the
options: there is no next record to go on to, or none would be read.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from core.corpus.compression import open_raw, reading, shard_bytes
from core.corpus.extras import require
from core.corpus.shards import Shard
from core.corpus.text_stream import text_pieces
from core.errors import CorpusError
from core.input_files import UTF16_BOMS, nul_byte_problem
from core.pretokenize.patterns import GPT2_PATTERN

PARQUET_BATCH_ROWS = 1024
"""Rows read from a Parquet file at a time, at most: memory stays near one batch of the text column."""

PARQUET_BATCH_BYTES = 16 << 20
"""About how many bytes of text a batch holds at most: a dataset of books (a megabyte a row) read 1,024 rows
at a time held a copy of a gigabyte of them as Python bytes, besides pyarrow's own, in each worker."""

_SURROGATE = re.compile("[\ud800-\udfff]")

_UTF8_BOM = b"\xef\xbb\xbf"

_JSON_TYPES = {dict: "object", list: "array", str: "string", int: "number", float: "number", bool: "boolean"}


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """How shards are read: the pattern and special tokens (where text may be cut), the JSON field or
    Parquet column holding the text, what to do with invalid UTF-8, and whether bad records are skipped."""

    special_tokens: tuple[str, ...] = ()
    pattern: str = GPT2_PATTERN
    text_field: str = "text"
    errors: str = "strict"
    skip_bad_records: bool = False


@dataclass(slots=True)
class SkippedRecords:
    """Bad records skipped so far: how many, and the first one's place and problem (for the report)."""

    count: int = 0
    first: str | None = None
    by_shard: dict[str, int] = field(default_factory=dict)

    def add(self, shard: Shard, problem: str) -> None:
        self.count += 1
        self.by_shard[shard.path] = self.by_shard.get(shard.path, 0) + 1
        if self.first is None:
            self.first = problem

    def merge(self, other: SkippedRecords) -> None:
        """Add ``other``'s tally (another shard's, from another process) to this one."""
        self.count += other.count
        for path, n in other.by_shard.items():
            self.by_shard[path] = self.by_shard.get(path, 0) + n
        if self.first is None:
            self.first = other.first


class BadRecord(CorpusError):
    """One record that cannot be read as a document; skippable."""


def shard_documents(shard: Shard, options: ReadOptions, skipped: SkippedRecords) -> Iterator[tuple[str, bool]]:
    """``(text, continues)`` for each document (or text piece) of ``shard``; see the module docstring.

    Raises:
        CorpusError: a bad record (unless ``options.skip_bad_records``), a corrupt archive, a Parquet
            file without the column, or a missing optional package; one line naming the shard.

    >>> import tempfile, pathlib; path = pathlib.Path(tempfile.mkdtemp()) / "a.jsonl"
    >>> _ = path.write_text('{"text": "hi"}\\n\\n{"text": "there", "id": 2}\\n')
    >>> list(shard_documents(Shard(str(path), "jsonl", None, 0), ReadOptions(), SkippedRecords()))
    [('hi', False), ('there', False)]
    """
    if shard.kind in ("parquet", "arrow"):
        rows = _parquet_rows if shard.kind == "parquet" else _arrow_rows
        yield from ((text, False) for text in rows(shard, options, skipped))
        return
    with shard_bytes(shard) as stream:
        if shard.kind == "jsonl":
            yield from ((text, False) for text in _json_lines(stream, shard, options, skipped))
        else:
            pieces = text_pieces(stream, shard.shown, list(options.special_tokens), options.pattern, options.errors)
            for index, text in enumerate(pieces):
                yield text, index > 0


def _skip_or_stop(problem: str, what: str, shard: Shard, options: ReadOptions, skipped: SkippedRecords) -> None:
    """Count a bad record as skipped, or stop the run on it, as ``options`` say."""
    if not options.skip_bad_records:
        raise BadRecord(f"{problem}; fix the {what} or skip bad records") from None
    skipped.add(shard, problem)


def _json_lines(stream: Any, shard: Shard, options: ReadOptions, skipped: SkippedRecords) -> Iterator[str]:
    name = options.text_field
    for number, line in enumerate(stream, 1):
        if number == 1 and line.startswith(_UTF8_BOM):
            line = line[len(_UTF8_BOM):]  # editors on Windows start UTF-8 files with one; it is not part of a record
        elif number == 1 and line[:2] in UTF16_BOMS:  # Windows PowerShell 5 writes '>' so: no line is UTF-8
            raise CorpusError(f"{shard.shown}: {nul_byte_problem(line[:2])}")
        if not line.strip():
            continue  # blank lines (a trailing one above all) hold no record
        try:
            yield _json_record(line, name, options.errors)
        except BadRecord as bad:
            _skip_or_stop(f"{shard.shown}: line {number}: {bad}", "record", shard, options, skipped)


def _json_record(line: bytes, name: str, errors: str) -> str:
    try:
        record = _json_object(line.decode("utf-8", errors=errors))
    except UnicodeDecodeError as error:
        raise BadRecord(f"invalid UTF-8 at column {error.start + 1} (byte 0x{line[error.start]:02x})") from None
    except json.JSONDecodeError as error:
        hint = " (the file looks like one JSON array; give JSON lines, one object a line)" if line.lstrip()[:1] == b"[" else ""
        raise BadRecord(f"not valid JSON ({error.msg} at column {error.colno}){hint}") from None
    except RecursionError:  # Python's reader recurses once per level of nesting
        raise BadRecord("nested deeper than Python's JSON reader goes (about 1,000 levels of arrays or objects)") from None
    if not isinstance(record, dict):
        raise BadRecord(f"a JSON {_JSON_TYPES.get(type(record), 'null')}, not an object with a {name!r} field")
    if name in record:
        return _text_value(record[name], name, errors)
    value: Any = record
    for part in name.split(".") if "." in name else ():  # meta.text: field text of the object in field meta
        if not isinstance(value, dict) or part not in value:
            break
        value = value[part]
    else:
        if value is not record:
            return _text_value(value, name, errors)
    fields = ", ".join(repr(key) for key in list(record)[:8]) or "none"
    nested = " (a.b for field b of an object in field a)" if any(isinstance(v, dict) for v in record.values()) else ""
    raise BadRecord(f"no {name!r} field (fields: {fields:.200}); set the text field to the one holding the text{nested}")


def _json_object(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # an int of more than 4,300 digits, which Python will not convert
        return json.loads(text, parse_int=float)  # numbers are never the text; as floats they parse


def _text_value(value: Any, name: str, errors: str) -> str:
    if not isinstance(value, str):
        kind = "null" if value is None else _JSON_TYPES.get(type(value), type(value).__name__)
        article = "" if kind == "null" else "an " if kind[0] in "aeiou" else "a "
        raise BadRecord(f"the {name!r} value is {article}{kind}, not a string")
    if not value.isascii() and _SURROGATE.search(value):
        if errors != "replace":
            raise BadRecord(f"the {name!r} value holds a lone surrogate (\\ud800-\\udfff), which UTF-8 cannot encode")
        value = _SURROGATE.sub("\ufffd", value)
    return value


def _utf8_value(value: bytes, name: str, errors: str) -> str:
    try:
        return value.decode("utf-8", errors=errors)
    except UnicodeDecodeError as error:
        raise BadRecord(
            f"invalid UTF-8 at byte {error.start + 1} of the {name!r} value (byte 0x{value[error.start]:02x})"
        ) from None


def _parquet_rows(shard: Shard, options: ReadOptions, skipped: SkippedRecords) -> Iterator[str]:
    parquet = require("pyarrow.parquet", f"{shard.shown}: a Parquet shard")
    import pyarrow

    name = options.text_field
    with reading(shard), _ParquetSource(shard) as source:
        try:
            table = parquet.ParquetFile(source)
            schema = table.schema_arrow
        except (pyarrow.ArrowException, OSError) as error:
            raise CorpusError(f"{shard.shown}: not a readable Parquet file ({error}); check the shard") from None
        path = _text_column(schema, name, shard, pyarrow)
        batches = table.iter_batches(batch_size=_batch_rows(table, name), columns=[name])
        columns = (_field(batch.column(batch.schema.get_field_index(path[0])), path, pyarrow) for batch in batches)
        yield from _column_rows(columns, "Parquet", shard, options, skipped, pyarrow)


def _arrow_rows(shard: Shard, options: ReadOptions, skipped: SkippedRecords) -> Iterator[str]:
    """The rows of an Arrow IPC shard: a Hugging Face ``datasets`` cache or ``save_to_disk`` ``.arrow`` file (the
    stream format), or a ``.feather`` / IPC file, which is a stream behind 8 bytes of magic, with a footer."""
    require("pyarrow", f"{shard.shown}: an Arrow shard")
    import pyarrow
    import pyarrow.ipc

    with shard_bytes(shard) as stream:
        try:
            head = stream.read(8)
            if head != b"ARROW1\0\0":
                stream = _Prefixed(stream, head)  # type: ignore[assignment]
            reader = pyarrow.ipc.open_stream(stream)
        except (pyarrow.ArrowException, OSError) as error:
            raise CorpusError(f"{shard.shown}: not a readable Arrow file ({error}); check the shard") from None
        path = _text_column(reader.schema, options.text_field, shard, pyarrow)
        index = reader.schema.get_field_index(path[0])
        columns = (_field(batch.column(index), path, pyarrow) for batch in reader)
        yield from _column_rows(columns, "Arrow", shard, options, skipped, pyarrow)


def _field(column: Any, path: tuple[str, ...], pyarrow: Any) -> Any:
    """The text of a column: itself, or the field ``path[1:]`` of a struct column (null where the struct is)."""
    if len(path) == 1:
        return column
    import pyarrow.compute

    return pyarrow.compute.struct_field(column, list(path[1:]))


def _text_column(schema: Any, name: str, shard: Shard, pyarrow: Any) -> tuple[str, ...]:
    """Where the text column ``name`` is in ``schema``: its name, or a struct column's and the names of the
    fields down to the text (``meta.text``: a nested field, as HF datasets and Spark write them), checked to
    hold text; a CorpusError otherwise."""
    path = (name,) if name in schema.names else _nested(schema, name, pyarrow)
    if path is None:
        columns = ", ".join(repr(column) for column in schema.names[:8]) or "none"
        nested = " (a.b for field b of a struct column a)" if any(pyarrow.types.is_struct(t) for t in schema.types) else ""
        raise CorpusError(
            f"{shard.shown}: no column {name!r} (columns: {columns:.200}); "
            f"set the text field to the column holding the text{nested}"
        )
    if schema.names.count(path[0]) > 1:  # pyarrow writes such files; it cannot tell which one is meant
        raise CorpusError(
            f"{shard.shown}: {schema.names.count(path[0])} columns are named {path[0]!r}; write the file again "
            "with one, or set the text field to another column"
        )
    kind = schema.field(path[0]).type
    for part in path[1:]:
        kind = kind.field(part).type
    value_kind = kind.value_type if pyarrow.types.is_dictionary(kind) else kind
    # A column of Arrow's null type (pandas writes an empty or all-None object column so) holds
    # records all the same: none in an empty shard, else null ones, bad records as in a string column.
    # Bytes (a string column written without Parquet's UTF-8 annotation, as old Hive and Impala did)
    # are decoded as a text shard's bytes are.
    binary = (pyarrow.types.is_binary(value_kind) or pyarrow.types.is_large_binary(value_kind)
              or pyarrow.types.is_binary_view(value_kind))
    if not (binary or pyarrow.types.is_string(value_kind) or pyarrow.types.is_large_string(value_kind)
            or pyarrow.types.is_string_view(value_kind) or pyarrow.types.is_null(value_kind)):
        raise CorpusError(
            f"{shard.shown}: column {name!r} holds {kind}, not strings; "
            "set the text field to the column holding the text"
        )
    return path


def _nested(schema: Any, name: str, pyarrow: Any) -> tuple[str, ...] | None:
    """``name`` split at dots into a struct column's name and fields down to a field, if it names one."""
    parts = tuple(name.split("."))
    if len(parts) < 2 or parts[0] not in schema.names:
        return None
    kind = schema.field(parts[0]).type if schema.names.count(parts[0]) == 1 else None
    for part in parts[1:]:
        if kind is None or not pyarrow.types.is_struct(kind) or kind.get_field_index(part) < 0:
            return None
        kind = kind.field(part).type
    return parts


def _column_rows(columns: Iterator[Any], what: str, shard: Shard, options: ReadOptions, skipped: SkippedRecords,
                 pyarrow: Any) -> Iterator[str]:
    """The text of each row of the text column, batch by batch; bad rows skipped or stopped on, as options say."""
    name = options.text_field
    row = 0
    try:
        for column in columns:
            for value in _column_bytes(column, pyarrow):
                row += 1
                try:
                    if value is not None:
                        value = _utf8_value(value, name, options.errors)
                    yield _text_value(value, name, options.errors)
                except BadRecord as bad:
                    _skip_or_stop(f"{shard.shown}: row {row}: {bad}", "row", shard, options, skipped)
    except pyarrow.ArrowException as error:
        raise CorpusError(f"{shard.shown}: {what} data after row {row} cannot be read ({error}); check the shard") from None


def _batch_rows(table: Any, name: str) -> int:
    """Rows a batch of column ``name`` may hold: :data:`PARQUET_BATCH_ROWS`, fewer where the file's metadata
    says its rows are long (:data:`PARQUET_BATCH_BYTES` a batch)."""
    metadata = table.metadata
    leaves = [index for index in range(metadata.num_columns) if table.schema.column(index).path == name]
    largest = 0
    for group in range(metadata.num_row_groups):
        rows = metadata.row_group(group).num_rows
        if rows and leaves:
            largest = max(largest, metadata.row_group(group).column(leaves[0]).total_uncompressed_size // rows)
    return max(1, min(PARQUET_BATCH_ROWS, PARQUET_BATCH_BYTES // max(largest, 1)))


def _column_bytes(column: Any, pyarrow: Any) -> list[bytes | None]:
    """The values of a text column as the bytes they hold (``None`` for a null), for :func:`_utf8_value` to
    decode: a string column is not checked to be UTF-8 on writing, and pyarrow's own conversion raised a
    bare UnicodeDecodeError on invalid UTF-8 (a traceback, never a bad record, ``errors`` not heeded)."""
    if pyarrow.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    as_bytes = {pyarrow.string(): pyarrow.binary(), pyarrow.large_string(): pyarrow.large_binary(),
                pyarrow.string_view(): pyarrow.binary_view()}.get(column.type)
    if as_bytes is not None:
        column = column.view(as_bytes)  # the same buffers, read as bytes
    return column.to_pylist()


class _Prefixed(io.RawIOBase):
    """A stream with the 8 bytes already read from it put back in front."""

    def __init__(self, stream: Any, head: bytes) -> None:
        self._stream, self._head = stream, head

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n], self._head = self._head[:n], self._head[n:]
            return n
        return self._stream.readinto(buffer)


class _ParquetSource:
    """The Parquet file itself, or, for a compressed one, a temporary file it is decompressed into (Parquet
    is read by seeking, which a compressed stream cannot do; the disk, not memory, takes its size)."""

    def __init__(self, shard: Shard) -> None:
        self.shard = shard
        self.spool: Any = None

    def __enter__(self) -> Any:
        if self.shard.compression is None:
            self.spool = open_raw(self.shard)  # seekable, local or through fsspec
            return self.spool
        self.spool = tempfile.TemporaryFile(prefix="bpe-tui-parquet-")
        with shard_bytes(self.shard) as stream:
            shutil.copyfileobj(stream, self.spool, 1 << 20)
        self.spool.seek(0)
        return self.spool

    def __exit__(self, *exc_info: object) -> None:
        if self.spool is not None:
            self.spool.close()
