"""Shards whose content is not what their name says: one line naming the shard, what it holds and the
name to give it (or what to fetch), whatever the options; once named so, it trains to the reference."""

from __future__ import annotations

import io
import json
import struct
import tarfile
from pathlib import Path

import pytest

from core import reference
from core.corpus import open_corpus
from core.errors import CorpusError
from core.train.run import train_bpe
from tests.core.corpus.corpus_cases import (
    SPECIAL, compress, joined_text, jsonl_bytes, parquet_bytes, sample_documents, write_shard,
)

DOCUMENTS = sample_documents()[:40]
SUFFIX = {"gz": ".gz", "bz2": ".bz2", "xz": ".xz", "zst": ".zst"}
NAME = {"gz": "gzip", "bz2": "bzip2", "xz": "xz", "zst": "zstd"}
LFS_POINTER = (b"version https://git-lfs.github.com/spec/v1\n"
               b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 1048576\n")


def refused(path: Path, **options: object) -> str:
    with pytest.raises(CorpusError) as caught:
        train_bpe(path, 300, [SPECIAL], workers=1, **options)
    message = str(caught.value)
    assert message.startswith(f"{path}") and "\n" not in message
    return message


def trains_to_the_reference(path: Path) -> None:
    assert train_bpe(path, 300, [SPECIAL], workers=1) == reference.train(joined_text(DOCUMENTS), 300, [SPECIAL])


@pytest.mark.parametrize("compression", ["gz", "bz2", "xz", "zst"])
@pytest.mark.parametrize("name", ["web.jsonl", "web.txt", "web.parquet"])
def test_compressed_data_under_a_plain_name_says_the_suffix_it_needs(tmp_path: Path, name: str,
                                                                     compression: str) -> None:
    """A .jsonl of gzip bytes was 'line 1: invalid UTF-8 ...; fix the record or skip bad records', a .txt
    'NUL byte ...; this looks like a binary file', a .parquet 'not a readable Parquet file'."""
    compressed = write_shard(tmp_path / "made", name + SUFFIX[compression], DOCUMENTS)
    path = tmp_path / name
    path.write_bytes(compressed.read_bytes())
    for options in ({}, {"skip_bad_records": True, "errors": "replace"}):
        message = refused(path, **options)
        assert message.endswith(f"holds {NAME[compression]}-compressed data, though its name does not end in "
                                f"{SUFFIX[compression]}; rename it '{name}{SUFFIX[compression]}'")
    path.rename(tmp_path / (name + SUFFIX[compression]))
    trains_to_the_reference(tmp_path / (name + SUFFIX[compression]))


def test_another_compression_than_the_name_says(tmp_path: Path) -> None:
    """A .zst named .gz was 'corrupt or truncated gzip data; download or compress the shard again'."""
    path = tmp_path / "web.jsonl.gz"
    path.write_bytes(compress(jsonl_bytes(DOCUMENTS), "zst"))
    assert refused(path).endswith("holds zstd-compressed data, though its name ends in .gz, not .zst; "
                                  "rename it 'web.jsonl.zst'")


@pytest.mark.parametrize("compression", ["gz", "zst"])
def test_a_shard_saved_decompressed_under_its_compressed_name(tmp_path: Path, compression: str) -> None:
    """A download tool that undoes the server's compression leaves plain JSON lines under the .gz name."""
    path = tmp_path / f"web.jsonl{SUFFIX[compression]}"
    path.write_bytes(jsonl_bytes(DOCUMENTS))
    first = json.dumps({"id": 0, "text": DOCUMENTS[0]})[:39] + "…"
    assert refused(path).endswith(f"is not {NAME[compression]} data but text starting {first!r} (saved "
                                  "decompressed?); rename it 'web.jsonl', or download it again")
    path.rename(tmp_path / "web.jsonl")
    trains_to_the_reference(tmp_path / "web.jsonl")


@pytest.mark.parametrize("suffix", [".jsonl", ".arrow"])
def test_parquet_under_another_name(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"train{suffix}"
    path.write_bytes(parquet_bytes(DOCUMENTS))
    assert refused(path).endswith("holds Parquet data, though its name does not end in .parquet; "
                                  "rename it 'train.parquet'")
    path.rename(tmp_path / "train.parquet")
    trains_to_the_reference(tmp_path / "train.parquet")


def test_an_error_page_saved_as_a_parquet_shard(tmp_path: Path) -> None:
    """A gated dataset fetched without a token: the server's message saved under the shard's name was 'not a
    readable Parquet file (Parquet magic bytes not found in footer...); check the shard'."""
    path = tmp_path / "train-00000-of-00001.parquet"
    path.write_bytes(b"Access to dataset is restricted. You must have access to it and be authenticated.")
    assert refused(path).endswith("holds text starting 'Access to dataset is restricted. You mu…', not Parquet data "
                                  "(a page saved in its place?); download it again")


@pytest.mark.parametrize("name", ["train-00000-of-00002.parquet", "shard.jsonl", "book.txt"])
def test_a_git_lfs_pointer_in_the_place_of_a_shard(tmp_path: Path, name: str) -> None:
    """A dataset repository cloned without Git LFS: a .txt pointer was trained on as the corpus, silently."""
    folder = tmp_path / "repo"
    write_shard(folder, "a.jsonl", DOCUMENTS)
    (folder / name).write_bytes(LFS_POINTER)
    message = refused(folder, skip_bad_records=True)
    assert message == (f"{folder / name}: is a Git LFS pointer, not the file it stands for; fetch the files "
                       "(git lfs pull in its repository)")


@pytest.mark.parametrize("form", [tarfile.GNU_FORMAT, tarfile.PAX_FORMAT])
def test_an_archive_named_as_a_shard(tmp_path: Path, form: int) -> None:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w", format=form) as archive:
        info = tarfile.TarInfo("a.txt")
        info.size = 5
        archive.addfile(info, io.BytesIO(b"hello"))
    (tmp_path / "texts.txt").write_bytes(data.getvalue())
    assert refused(tmp_path / "texts.txt").endswith("is a tar archive; extract it (tar -xf) and give the folder it makes")


def test_a_zstd_file_starting_with_a_skippable_frame_is_zstd(tmp_path: Path) -> None:
    """pzstd starts its files with a skippable frame: that is zstd too, and reads as such."""
    skippable = struct.pack("<II", 0x184D2A50, 4) + b"\x00\x00\x10\x00"
    path = tmp_path / "web.jsonl.zst"
    path.write_bytes(skippable + compress(jsonl_bytes(DOCUMENTS), "zst"))
    trains_to_the_reference(path)
    (tmp_path / "web.jsonl").write_bytes(path.read_bytes())
    assert "holds zstd-compressed data" in refused(tmp_path / "web.jsonl")


def test_text_that_merely_starts_like_a_magic_number_is_text(tmp_path: Path) -> None:
    """'BZh' and 'PAR1' are text too: only the whole mark, or binary bytes after it, tell a format."""
    mustard = "x" * 256 + "mustard and custard  " * 20  # 'ustar' at byte 257, as in a tar header
    for text in ("BZh is how the bzip2 header starts", "PAR1 of the report", mustard):
        path = tmp_path / "notes.txt"
        path.write_text(text, encoding="utf-8")
        assert [shard.kind for shard in open_corpus(path).shards] == ["text"]
        assert train_bpe(path, 300, [], workers=1) == reference.train(text, 300, [])


@pytest.mark.parametrize("name", ["web.jsonl.xz", "web.jsonl.gz", "web.parquet", "web.txt", "web.jsonl"])
def test_a_shard_of_nul_bytes_is_a_download_cut_short(tmp_path: Path, name: str) -> None:
    """A file made at its full size that a download never filled: an .xz of NUL bytes read as empty LZMA
    streams, an empty shard, without a word; the others were 'corrupt', 'binary' or 'line 1: not JSON'."""
    (tmp_path / name).write_bytes(b"\0" * 100_000)
    assert refused(tmp_path / name, skip_bad_records=True).endswith(
        "starts with nothing but NUL bytes (a download or copy cut short?); download it again")
