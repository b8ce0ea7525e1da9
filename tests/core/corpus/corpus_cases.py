"""Shared helpers for the corpus tests: real documents from the bundled samples, written in every shard format."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
from pathlib import Path

from tests.data_paths import SAMPLES

SPECIAL = "<|endoftext|>"


def sample_documents() -> list[str]:
    """English, Japanese and mixed text from the samples, cut into paragraphs: about 600 documents, some
    empty, one with a special token's text inside it (a document boundary there too, as in a .txt)."""
    documents: list[str] = []
    for name in ("english", "japanese", "mixed"):
        documents += (SAMPLES / f"{name}.txt").read_text(encoding="utf-8").split("\n\n")
    documents[3] = f"before{SPECIAL}after the marker"
    documents[5] = ""
    return documents


def joined_text(documents: list[str]) -> str:
    """The documents as one text file holds them: joined by the special token."""
    return SPECIAL.join(documents)


def compress(data: bytes, compression: str | None) -> bytes:
    if compression is None:
        return data
    if compression == "gz":
        return gzip.compress(data)
    if compression == "bz2":
        return bz2.compress(data)
    if compression == "xz":
        return lzma.compress(data)
    import zstandard

    return zstandard.ZstdCompressor().compress(data)


def jsonl_bytes(documents: list[str], field: str = "text") -> bytes:
    return "".join(json.dumps({"id": i, field: d}) + "\n" for i, d in enumerate(documents)).encode("utf-8")


def parquet_bytes(documents: list[str], column: str = "text", row_group_size: int = 100) -> bytes:
    import io

    import pyarrow
    import pyarrow.parquet

    table = pyarrow.table({"id": list(range(len(documents))), column: pyarrow.array(documents, pyarrow.string())})
    sink = io.BytesIO()
    pyarrow.parquet.write_table(table, sink, row_group_size=row_group_size)
    return sink.getvalue()


def arrow_bytes(documents: list[str], column: str = "text", batch_rows: int = 100) -> bytes:
    """``documents`` as an Arrow IPC stream, as Hugging Face ``datasets`` writes its ``.arrow`` files."""
    import io

    import pyarrow
    import pyarrow.ipc

    table = pyarrow.table({column: pyarrow.array(documents, pyarrow.string()), "id": list(range(len(documents)))})
    sink = io.BytesIO()
    with pyarrow.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table, max_chunksize=batch_rows)
    return sink.getvalue()


def write_shard(folder: Path, name: str, documents: list[str]) -> Path:
    """``documents`` as the shard ``name`` says (``a.jsonl.gz``, ``b.parquet``, ``c.txt.zst``, ``d.arrow``...)."""
    path = folder / name
    parts = name.split(".")
    compression = parts[-1] if parts[-1] in ("gz", "bz2", "xz", "zst") else None
    kind = parts[-2] if compression else parts[-1]
    if kind in ("jsonl", "json"):
        data = jsonl_bytes(documents)
    elif kind == "parquet":
        data = parquet_bytes(documents)
    elif kind == "arrow":
        data = arrow_bytes(documents)
    else:
        data = joined_text(documents).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(compress(data, compression))
    return path
