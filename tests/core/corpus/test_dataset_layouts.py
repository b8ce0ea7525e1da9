"""Datasets as people download them, beyond one file of one format: long Parquet rows, a Hugging Face
``datasets`` folder of Arrow files, ``.xz`` with stream padding, text nested in a struct or an object. Each
reads to the documents it holds, as :mod:`tests.core.corpus.test_shard_formats` holds the plain formats to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import reference
from core.corpus import open_corpus
from core.corpus.records import ReadOptions, SkippedRecords, shard_documents
from core.errors import CorpusError
from core.train.run import train_bpe
from tests.core.corpus.corpus_cases import SPECIAL, joined_text, jsonl_bytes, sample_documents, write_shard


def test_a_parquet_of_long_rows_is_read_a_few_rows_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dataset of books (a megabyte a row) was read 1,024 rows at a time: with HF's row groups of 1,000
    rows, each worker held a gigabyte of them as Python bytes besides pyarrow's copy. A batch now holds
    about PARQUET_BATCH_BYTES of text (here 1 MiB: ten rows of 100 KB), and the documents are the same."""
    import pyarrow
    import pyarrow.parquet

    from core.corpus import records

    documents = [f"book {i} " + "long text of a book " * 5000 for i in range(40)]  # 100 KB each
    pyarrow.parquet.write_table(pyarrow.table({"id": list(range(40)), "text": documents}), tmp_path / "books.parquet",
                                row_group_size=40)
    monkeypatch.setattr(records, "PARQUET_BATCH_BYTES", 1 << 20)
    sizes: list[int] = []
    iter_batches = pyarrow.parquet.ParquetFile.iter_batches

    def recorded(self, batch_size=65536, **options):
        sizes.append(batch_size)
        return iter_batches(self, batch_size=batch_size, **options)

    monkeypatch.setattr(pyarrow.parquet.ParquetFile, "iter_batches", recorded)
    shard = open_corpus(tmp_path / "books.parquet").shards[0]
    assert [text for text, _ in shard_documents(shard, ReadOptions(), SkippedRecords())] == documents
    assert len(sizes) == 1 and 5 <= sizes[0] <= 10


def test_a_hugging_face_datasets_folder_of_arrow_files(tmp_path: Path) -> None:
    """``save_to_disk`` and the ``datasets`` cache keep a dataset as ``.arrow`` files (Arrow IPC streams) beside
    their metadata (one-line JSON at times) and ``cache-*.arrow`` copies made by ``map``: such a folder was
    'no corpus shard', or its metadata a JSON-lines shard with no 'text' field. The dataset's own files are
    read, as Parquet is; a .feather file (IPC file format) too."""
    import pyarrow
    import pyarrow.feather
    import pyarrow.ipc

    documents = sample_documents()
    folder = tmp_path / "wiki" / "train"
    write_shard(folder, "data-00000-of-00002.arrow", documents[:300])
    write_shard(folder, "data-00001-of-00002.arrow", documents[300:])
    (folder / "dataset_info.json").write_text('{"description": "", "features": {"text": {"dtype": "string"}}}')
    (folder / "state.json").write_text('{"_data_files": [{"filename": "data-00000-of-00002.arrow"}]}')
    (tmp_path / "wiki" / "dataset_dict.json").write_text('{"splits": ["train"]}')
    with pyarrow.ipc.new_stream(folder / "cache-5f1d2c.arrow", pyarrow.schema([("input_ids", pyarrow.int32())])):
        pass
    corpus = open_corpus(tmp_path / "wiki")
    assert [Path(s.path).name for s in corpus.shards] == ["data-00000-of-00002.arrow", "data-00001-of-00002.arrow"]
    expected = reference.train(joined_text(documents), 330, [SPECIAL])
    assert train_bpe(tmp_path / "wiki", 330, [SPECIAL], workers=1) == expected
    table = pyarrow.table({"text": documents})
    pyarrow.feather.write_feather(table, tmp_path / "docs.feather", compression="zstd")
    assert train_bpe(tmp_path / "docs.feather", 330, [SPECIAL], workers=1) == expected


def test_an_xz_shard_with_stream_padding_reads_as_xz_reads_it(tmp_path: Path) -> None:
    """The .xz format allows NUL bytes of stream padding between and after streams ('xz -d' skips them);
    read with LZMAFile, they were 'corrupt or truncated xz data (Compressed file ended before the
    end-of-stream marker was reached)'. A stream cut short is still an error."""
    import lzma

    documents = sample_documents()
    first, second = jsonl_bytes(documents[:300]), jsonl_bytes(documents[300:])
    padded = lzma.compress(first) + b"\0" * 8 + lzma.compress(second) + b"\0" * 4
    (tmp_path / "docs.jsonl.xz").write_bytes(padded)
    assert train_bpe(tmp_path / "docs.jsonl.xz", 330, [SPECIAL], workers=1) == reference.train(
        joined_text(documents), 330, [SPECIAL])
    (tmp_path / "docs.jsonl.xz").write_bytes(lzma.compress(first) + lzma.compress(second)[:-9])
    with pytest.raises(CorpusError, match="corrupt or truncated xz data .the file ends inside an xz stream."):
        train_bpe(tmp_path / "docs.jsonl.xz", 330, [SPECIAL], workers=1)
    (tmp_path / "docs.jsonl.xz").write_bytes(b"\0" * 4096)  # padding with no stream: no xz file (xz -d agrees)
    with pytest.raises(CorpusError, match="starts with nothing but NUL bytes"):
        train_bpe(tmp_path / "docs.jsonl.xz", 330, [SPECIAL], workers=1)


def test_a_text_field_nested_in_a_struct_or_an_object(tmp_path: Path) -> None:
    """Text kept in a field of a struct column (Parquet, Arrow) or of an object (JSON lines), as in
    {"meta": {"text": ...}}, could not be read: 'no column 'text' (columns: 'meta'); set the text field',
    and no text field reached it. --text-field meta.text does; a null struct is a null record."""
    import pyarrow
    import pyarrow.parquet

    documents = sample_documents()[:60]
    rows = [{"text": document, "lang": "en"} for document in documents]
    pyarrow.parquet.write_table(pyarrow.table({"meta": rows, "id": list(range(60))}), tmp_path / "s.parquet",
                                row_group_size=7)
    (tmp_path / "o.jsonl").write_text("".join(json.dumps({"meta": row}) + "\n" for row in rows), encoding="utf-8")
    expected = reference.train(joined_text(documents), 300, [SPECIAL])
    for name in ("s.parquet", "o.jsonl"):
        assert train_bpe(tmp_path / name, 300, [SPECIAL], workers=1, text_field="meta.text") == expected
        with pytest.raises(CorpusError, match=r"\(a\.b for field b of (a struct column|an object in field) a\)"):
            train_bpe(tmp_path / name, 300, [SPECIAL], workers=1)
    pyarrow.parquet.write_table(pyarrow.table({"meta": [rows[0], None]}), tmp_path / "s.parquet")
    with pytest.raises(CorpusError, match="s.parquet: row 2: the 'meta.text' value is null"):
        train_bpe(tmp_path / "s.parquet", 300, [SPECIAL], workers=1, text_field="meta.text")
