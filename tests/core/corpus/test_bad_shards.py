"""Hostile shards: every bad record, corrupt archive and odd folder gets one line naming the shard and the
line or row; ``skip_bad_records`` counts them instead; a missing optional package names its extra."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from core import reference
from core.errors import CorpusError, SettingsError
from core.train.run import TrainingRun, train_bpe
from tests.core.corpus.corpus_cases import SPECIAL, compress, joined_text, parquet_bytes, sample_documents, write_shard

GOOD = sample_documents()[:40]


def one_line_error(path: Path | str, *needles: str, **options: object) -> str:
    with pytest.raises(CorpusError) as caught:
        train_bpe(path, 300, [SPECIAL], workers=1, **options)
    message = str(caught.value)
    assert "\n" not in message
    for needle in needles:
        assert needle in message, (needle, message)
    return message


BAD_LINES = [
    (b"not json at all", "line 3: not valid JSON"),
    (b'["a", "b"]', "line 3: a JSON array, not an object"),
    (b'{"txt": "x", "id": 1}', "line 3: no 'text' field (fields: 'txt', 'id')"),
    (b'{"text": 5}', "line 3: the 'text' value is a number, not a string"),
    (b'{"text": null}', "line 3: the 'text' value is null, not a string"),
    (b'{"text": ["a"]}', "line 3: the 'text' value is an array, not a string"),
    (b'{"text": "caf\xe9"}', "line 3: invalid UTF-8 at column 14 (byte 0xe9)"),
    (b'{"text": "lone \\ud800 half"}', "line 3: the 'text' value holds a lone surrogate"),
    (b'{"text": "cut', "line 3: not valid JSON"),
]


@pytest.mark.parametrize(("line", "problem"), BAD_LINES, ids=[p.split(": ", 1)[1][:24] for _, p in BAD_LINES])
@pytest.mark.parametrize("compression", [None, "gz"])
def test_a_bad_json_line_names_shard_and_line(tmp_path: Path, line: bytes, problem: str, compression: str | None) -> None:
    data = b'{"text": "one"}\n\n' + line + b'\n{"text": "two"}\n'
    name = "bad.jsonl" + (f".{compression}" if compression else "")
    (tmp_path / name).write_bytes(compress(data, compression))
    message = one_line_error(tmp_path / name, f"{name}: {problem}", "skip bad records")
    assert message.startswith(str(tmp_path / name))


def test_a_json_array_file_gets_a_hint(tmp_path: Path) -> None:
    (tmp_path / "array.json").write_text(json.dumps([{"text": "a"}], indent=1), encoding="utf-8")
    one_line_error(tmp_path / "array.json", "array.json: line 1: not valid JSON", "looks like one JSON array")


@pytest.mark.parametrize("workers", [1, 2])
def test_skip_bad_records_counts_them_and_trains_on_the_rest(tmp_path: Path, workers: int) -> None:
    corpus = tmp_path / "corpus"
    write_shard(corpus, "a.jsonl", GOOD[:20])
    bad = b"".join(line + b"\n" for line, _ in BAD_LINES)
    (corpus / "b.jsonl").write_bytes(bad + b'{"text": ' + json.dumps(GOOD[20]).encode() + b"}\n")
    (corpus / "c.parquet").write_bytes(parquet_bytes(GOOD[21:] + [None]))  # type: ignore[list-item]
    # Big enough for the worker pool to be used with 2 workers (see the next test for the pool's error).
    write_shard(corpus, "d.txt", sample_documents() * 3)
    run = TrainingRun(corpus, 300, [SPECIAL], workers=workers, skip_bad_records=True)
    list(run.events())
    assert run.skipped.count == len(BAD_LINES) + 1
    assert run.skipped.by_shard == {str(corpus / "b.jsonl"): len(BAD_LINES), str(corpus / "c.parquet"): 1}
    assert run.skipped.first == f"{corpus / 'b.jsonl'}: line 1: not valid JSON (Expecting value at column 1)"
    expected = reference.train(joined_text(GOOD + sample_documents() * 3), 300, [SPECIAL])
    assert (run.result().vocab, run.result().merges) == expected


def test_a_null_parquet_row_is_named_by_its_row(tmp_path: Path) -> None:
    (tmp_path / "rows.parquet").write_bytes(parquet_bytes(["a", "b", None, "c"], row_group_size=2))  # type: ignore[list-item]
    one_line_error(tmp_path / "rows.parquet", "rows.parquet: row 3: the 'text' value is null, not a string")


def test_a_parquet_without_the_column_names_its_columns(tmp_path: Path) -> None:
    (tmp_path / "p.parquet").write_bytes(parquet_bytes(GOOD, column="body"))
    one_line_error(tmp_path / "p.parquet", "p.parquet: no column 'text' (columns: 'id', 'body')", "set the text field",
                   skip_bad_records=True)  # a whole shard is not a bad record: never skipped


def test_a_parquet_column_of_numbers_is_refused(tmp_path: Path) -> None:
    (tmp_path / "p.parquet").write_bytes(parquet_bytes(GOOD))
    one_line_error(tmp_path / "p.parquet", "p.parquet: column 'id' holds int64, not strings", text_field="id")


def test_a_file_that_is_not_parquet(tmp_path: Path) -> None:
    (tmp_path / "p.parquet").write_bytes(b"PAR1 but not really" * 10)
    one_line_error(tmp_path / "p.parquet", "p.parquet: not a readable Parquet file")


def test_a_truncated_parquet(tmp_path: Path) -> None:
    data = parquet_bytes(GOOD)
    (tmp_path / "p.parquet").write_bytes(data[: len(data) // 2])
    one_line_error(tmp_path / "p.parquet", "p.parquet: not a readable Parquet file")


@pytest.mark.parametrize("compression", ["gz", "bz2", "xz", "zst"])
@pytest.mark.parametrize("damage", ["truncated", "garbage", "flipped"])
def test_a_corrupt_archive_names_the_shard(tmp_path: Path, compression: str, damage: str) -> None:
    data = compress(b'{"text": "hello there"}\n' * 2000, compression)
    if damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "garbage":
        data = bytes(range(256)) * 3  # binary, but no archive (text is told apart: test_misnamed_shards)
    else:
        middle = len(data) // 2
        data = data[:middle] + bytes(b ^ 0xFF for b in data[middle : middle + 16]) + data[middle + 16 :]
    name = f"s.jsonl.{compression}"
    (tmp_path / name).write_bytes(data)
    names = {"gz": "gzip", "bz2": "bzip2", "xz": "xz", "zst": "zstd"}
    # A flipped block in the middle may still decode to other bytes in a format without checksums per
    # block: then the line it lands in is the bad record. Either way, one line naming the shard.
    with pytest.raises(CorpusError) as caught:
        train_bpe(tmp_path / name, 300, [], workers=1, skip_bad_records=damage != "flipped")
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / name}: ") and "\n" not in message
    if damage != "flipped":
        assert f"corrupt or truncated {names[compression]} data" in message


def test_a_truncated_compressed_text_shard(tmp_path: Path) -> None:
    data = compress(joined_text(GOOD).encode(), "zst")
    (tmp_path / "t.txt.zst").write_bytes(data[:-5])
    one_line_error(tmp_path / "t.txt.zst", "t.txt.zst: corrupt or truncated zstd data", "ends inside a zstd frame")


def test_invalid_utf8_in_a_compressed_text_shard_names_its_offset(tmp_path: Path) -> None:
    (tmp_path / "t.txt.gz").write_bytes(compress(b"fine text " * 10 + b"\xff more", "gz"))
    one_line_error(tmp_path / "t.txt.gz", "t.txt.gz: invalid UTF-8 at byte offset 100 of the text (byte 0xff)")
    _, merges = train_bpe(tmp_path / "t.txt.gz", 300, [], workers=1, errors="replace")
    assert merges == reference.train("fine text " * 10 + "\ufffd more", 300)[1]


def test_a_bad_record_in_a_worker_process_names_its_shard(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    write_shard(corpus, "a.txt", sample_documents() * 8)  # large enough for the pool (over 512 KiB)
    (corpus / "b.jsonl").write_bytes(b'{"text": "ok"}\n{"text": 1}\n')
    one = str(corpus / "b.jsonl")
    with pytest.raises(CorpusError, match=f"^{one}: line 2: the 'text' value is a number"):
        train_bpe(corpus, 300, [SPECIAL], workers=2)


def test_a_glob_matching_nothing(tmp_path: Path) -> None:
    one_line_error(str(tmp_path / "*.jsonl"), "*.jsonl: the pattern matches no file", "quote it")


def test_a_folder_of_unrelated_files(tmp_path: Path) -> None:
    for name in ("README.md", "notes.csv", "model.bin", ".hidden.txt", "_SUCCESS"):
        (tmp_path / name).write_bytes(b"x")
    (tmp_path / "sub").mkdir()
    one_line_error(tmp_path, "the folder holds no corpus shard (.txt, .jsonl", "give a folder of shards or a file")


def test_a_fifo_among_the_shards_is_refused_without_blocking(tmp_path: Path) -> None:
    import os

    write_shard(tmp_path, "a.jsonl", GOOD)
    os.mkfifo(tmp_path / "b.jsonl")
    one_line_error(tmp_path, "b.jsonl: is a named pipe (FIFO), not a regular file")


@pytest.mark.parametrize(("module", "name", "make"), [
    ("pyarrow", "p.parquet", lambda: parquet_bytes(GOOD)),
    ("zstandard", "z.jsonl.zst", lambda: compress(b'{"text": "a"}\n', "zst")),
])
def test_a_missing_optional_package_names_its_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   module: str, name: str, make) -> None:
    (tmp_path / name).write_bytes(make())
    for loaded in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        monkeypatch.delitem(sys.modules, loaded)
    monkeypatch.setitem(sys.modules, module, None)  # import now fails, as without the package
    message = one_line_error(tmp_path / name, f"needs the {module} package", "pip install 'bpe-tui[formats]'")
    assert name in message


def test_an_empty_text_field_is_refused(tmp_path: Path) -> None:
    write_shard(tmp_path, "a.jsonl", GOOD)
    with pytest.raises(SettingsError, match="text field ''"):
        TrainingRun(tmp_path / "a.jsonl", 300, text_field="")


@pytest.mark.parametrize("compression", [None, "gz"])
def test_a_json_lines_shard_may_start_with_a_byte_order_mark(tmp_path: Path, compression: str | None) -> None:
    # Editors on Windows save UTF-8 with one; it is not part of the first record. Elsewhere it stays an error.
    name = "bom.jsonl" + (f".{compression}" if compression else "")
    data = b"".join(json.dumps({"text": text}).encode() + b"\n" for text in GOOD)
    (tmp_path / name).write_bytes(compress(b"\xef\xbb\xbf" + data, compression))
    assert train_bpe(tmp_path / name, 300, [SPECIAL], workers=1) == reference.train(joined_text(GOOD), 300, [SPECIAL])
    (tmp_path / name).write_bytes(compress(data + b"\xef\xbb\xbf" + data, compression))
    one_line_error(tmp_path / name, f"{name}: line {len(GOOD) + 1}: not valid JSON")


@pytest.mark.parametrize("compression", [None, "gz"])
def test_a_json_lines_shard_in_utf16_says_to_convert_it(tmp_path: Path, compression: str | None) -> None:
    """Windows PowerShell 5 writes '>' in UTF-16: line 1 was 'invalid UTF-8 at column 1 (byte 0xff); fix the
    record or skip bad records', and skipping them all was 'every record was bad (3 skipped)' of 2 records."""
    name = "u16.jsonl" + (f".{compression}" if compression else "")
    data = "".join(json.dumps({"text": text}) + "\r\n" for text in GOOD[:2]).encode("utf-16")
    (tmp_path / name).write_bytes(compress(data, compression))
    message = one_line_error(tmp_path / name, skip_bad_records=True)
    assert message == (f"{tmp_path / name}: it starts with a UTF-16 byte-order mark: convert it to UTF-8 first "
                       "(e.g. iconv -f UTF-16 -t UTF-8)")


def test_a_parquet_column_of_nulls_is_a_column_of_null_records(tmp_path: Path) -> None:
    """pandas writes an empty or all-None object column as Arrow's ``null`` type: an empty shard is
    empty, and each null row is a bad record as a null in a string column is (named, skippable)."""
    import pyarrow
    import pyarrow.parquet

    pyarrow.parquet.write_table(pyarrow.table({"text": pyarrow.array([], pyarrow.null())}), tmp_path / "empty.parquet")
    write_shard(tmp_path, "rest.parquet", GOOD)
    assert train_bpe(tmp_path, 300, [SPECIAL], workers=1) == reference.train(joined_text(GOOD), 300, [SPECIAL])
    pyarrow.parquet.write_table(pyarrow.table({"text": pyarrow.array([None, None], pyarrow.null())}), tmp_path / "nulls.parquet")
    one_line_error(tmp_path, "nulls.parquet: row 1: the 'text' value is null, not a string", "skip bad records")
    run = TrainingRun(tmp_path, 300, [SPECIAL], workers=1, skip_bad_records=True)
    list(run.events())
    assert run.skipped.count == 2
    assert (run.result().vocab, run.result().merges) == reference.train(joined_text(GOOD), 300, [SPECIAL])


def test_a_parquet_column_of_utf8_bytes_is_text(tmp_path: Path) -> None:
    """Tools that write strings without Parquet's UTF-8 annotation (old Hive, Impala) leave a binary
    column: its values are decoded as UTF-8 text is, invalid UTF-8 being a bad record (or U+FFFD)."""
    import pyarrow
    import pyarrow.parquet

    values = [document.encode("utf-8") for document in GOOD]
    pyarrow.parquet.write_table(pyarrow.table({"text": pyarrow.array(values, pyarrow.binary())}), tmp_path / "b.parquet")
    assert train_bpe(tmp_path, 300, [SPECIAL], workers=1) == reference.train(joined_text(GOOD), 300, [SPECIAL])
    bad = pyarrow.array([b"ok", b"caf\xe9"], pyarrow.large_binary())
    pyarrow.parquet.write_table(pyarrow.table({"text": bad}), tmp_path / "b.parquet")
    one_line_error(tmp_path, "b.parquet: row 2: invalid UTF-8 at byte 4 of the 'text' value (byte 0xe9)", "skip bad records")
    assert train_bpe(tmp_path, 300, [SPECIAL], workers=1, errors="replace") == reference.train(
        f"ok{SPECIAL}caf\ufffd", 300, [SPECIAL])


def test_invalid_utf8_in_a_parquet_string_column_is_a_bad_record(tmp_path: Path) -> None:
    """Parquet writers do not check a string column is UTF-8; pyarrow's conversion of such a value raised a
    bare UnicodeDecodeError (a traceback). It is a bad record, named, skippable, and U+FFFD with 'replace';
    dictionary-encoded and view columns read as plain ones."""
    import pyarrow
    import pyarrow.parquet

    bad = pyarrow.array([b"ok", b"caf\xe9", b"fin"], pyarrow.binary()).view(pyarrow.string())
    pyarrow.parquet.write_table(pyarrow.table({"text": bad}), tmp_path / "s.parquet")
    one_line_error(tmp_path, "s.parquet: row 2: invalid UTF-8 at byte 4 of the 'text' value (byte 0xe9)", "skip bad records")
    assert train_bpe(tmp_path, 300, [SPECIAL], workers=1, skip_bad_records=True) == reference.train(
        f"ok{SPECIAL}fin", 300, [SPECIAL])
    assert train_bpe(tmp_path, 300, [SPECIAL], workers=1, errors="replace") == reference.train(
        f"ok{SPECIAL}caf\ufffd{SPECIAL}fin", 300, [SPECIAL])
    for column in (pyarrow.array(GOOD).dictionary_encode(), pyarrow.array(GOOD, pyarrow.string_view())):
        pyarrow.parquet.write_table(pyarrow.table({"text": column}), tmp_path / "s.parquet")
        assert train_bpe(tmp_path, 300, [SPECIAL], workers=1) == reference.train(joined_text(GOOD), 300, [SPECIAL])


def test_a_record_with_a_huge_number_beside_its_text_is_read(tmp_path: Path) -> None:
    """Python refuses to turn more than 4,300 digits into an int (a bare ValueError, a traceback); numbers
    in a record are never the text, so such a record is read like any other."""
    (tmp_path / "a.jsonl").write_text('{"text": "hi", "n": ' + "9" * 5000 + '}\n{"text": "there"}\n', encoding="utf-8")
    assert train_bpe(tmp_path, 300, [SPECIAL], workers=1) == reference.train(f"hi{SPECIAL}there", 300, [SPECIAL])
    (tmp_path / "a.jsonl").write_text('{"text": ' + "9" * 5000 + '}\n', encoding="utf-8")
    one_line_error(tmp_path, "a.jsonl: line 1: the 'text' value is a number, not a string")


def test_a_record_nested_too_deeply_is_a_bad_record(tmp_path: Path) -> None:
    """json.loads raised a bare RecursionError (a traceback) on a record nested past the interpreter's limit."""
    deep = "[" * 100_000 + "]" * 100_000
    (tmp_path / "a.jsonl").write_text(f'{{"text": "hi", "tree": {deep}}}\n{{"text": "there"}}\n', encoding="utf-8")
    one_line_error(tmp_path, "a.jsonl: line 1: nested deeper than Python's JSON reader goes", "skip bad records")
    assert train_bpe(tmp_path, 300, [SPECIAL], workers=1, skip_bad_records=True) == reference.train("there", 300, [SPECIAL])


def test_a_parquet_with_two_columns_of_the_text_fields_name(tmp_path: Path) -> None:
    """pyarrow writes a table whose columns share a name; reading one by that name raised a bare KeyError
    (a traceback). One line says so; another column of the file is read as usual."""
    import pyarrow
    import pyarrow.parquet

    table = pyarrow.Table.from_arrays([pyarrow.array(GOOD), pyarrow.array(GOOD), pyarrow.array(GOOD)],
                                      names=["text", "text", "body"])
    pyarrow.parquet.write_table(table, tmp_path / "twice.parquet")
    one_line_error(tmp_path / "twice.parquet", "twice.parquet: 2 columns are named 'text'; write the file again with "
                   "one, or set the text field to another column", skip_bad_records=True)
    assert train_bpe(tmp_path / "twice.parquet", 300, [SPECIAL], workers=1, text_field="body") == reference.train(
        joined_text(GOOD), 300, [SPECIAL])


def test_a_dangling_link_among_the_shards_is_named_as_one(tmp_path: Path) -> None:
    """``ls`` lists a link whose target is gone (a blob deleted from a cache, a half-synced folder), so
    'no such file; check the path' sent the user looking for a typo; the line says it is such a link."""
    write_shard(tmp_path / "corpus", "a.jsonl", GOOD)
    (tmp_path / "corpus" / "b.jsonl").symlink_to("../blobs/4d7a2146")
    for path in (tmp_path / "corpus", tmp_path / "corpus" / "b.jsonl"):
        assert one_line_error(path) == (f"{tmp_path / 'corpus' / 'b.jsonl'}: a symbolic link to ../blobs/4d7a2146, "
                                        "which does not exist; fix or remove the link")
    (tmp_path / "corpus" / "loop.jsonl").symlink_to("loop.jsonl")
    (tmp_path / "corpus" / "b.jsonl").unlink()
    one_line_error(tmp_path / "corpus", "loop.jsonl: too many levels of symbolic links")


def test_bad_arrow_shards_name_the_shard_and_the_row(tmp_path: Path) -> None:
    import pyarrow
    import pyarrow.ipc

    def arrow(name: str, table: object) -> Path:
        with pyarrow.ipc.new_stream(tmp_path / name, table.schema) as writer:  # type: ignore[attr-defined]
            writer.write_table(table)
        return tmp_path / name

    nulls = arrow("nulls.arrow", pyarrow.table({"text": ["fine", None, "also fine"]}))
    one_line_error(nulls, "nulls.arrow: row 2: the 'text' value is null, not a string", "skip bad records")
    assert train_bpe(nulls, 300, [SPECIAL], workers=1, skip_bad_records=True) == reference.train(
        f"fine{SPECIAL}also fine", 300, [SPECIAL])
    one_line_error(arrow("ids.arrow", pyarrow.table({"input_ids": [[1, 2]]})),
                   "ids.arrow: no column 'text' (columns: 'input_ids'); set the text field")
    (tmp_path / "cut.arrow").write_bytes(nulls.read_bytes()[:100])
    one_line_error(tmp_path / "cut.arrow", "cut.arrow: ", "check the shard")
