"""What a shard's first bytes say it holds, where that is not what its name says.

A shard's format comes from its name (:mod:`core.corpus.shards`), and files are not always named for
what they hold: a ``.jsonl.gz`` saved decompressed by a tool that undid the server's compression, a
gzip file saved as ``.txt``, a ``.zst`` renamed ``.gz``, Parquet named ``.jsonl``, or, in a dataset
repository cloned without Git LFS, a small pointer file in the place of each shard. Read by its name,
such a file was trained on as text (a pointer became the corpus, without a word), or refused with
advice that could not help ("fix the record or skip bad records" for every line of a gzip file,
"download the shard again" for one that was fine). The first bytes of each format are fixed, so the
file's head says what it is, and the message says how to name it or what to fetch.
"""

from __future__ import annotations

from core.input_files import shown_path

HEAD_BYTES = 512
"""Bytes of a shard's start read to tell its content (a tar header's mark is at byte 257)."""

LFS_POINTER = b"version https://git-lfs.github.com/spec/"
"""How a Git LFS pointer file starts: what a dataset repository cloned without ``git lfs`` holds."""

_SUFFIXES = {"gz": ".gz", "bz2": ".bz2", "xz": ".xz", "zst": ".zst"}
_NAMES = {"gz": "gzip", "bz2": "bzip2", "xz": "xz", "zst": "zstd"}


def compression_of(head: bytes) -> str | None:
    """The compression the bytes ``head`` start with (``gz``, ``bz2``, ``xz``, ``zst``), or None.

    >>> compression_of(b"\\x1f\\x8b\\x08\\x00"), compression_of(b"(\\xb5/\\xfd\\x00"), compression_of(b"BZh is text")
    ('gz', 'zst', None)
    """
    if head.startswith(b"\x1f\x8b"):
        return "gz"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    if head.startswith(b"\x28\xb5\x2f\xfd") or (len(head) >= 4 and head[1:4] == b"\x2a\x4d\x18"
                                                 and 0x50 <= head[0] <= 0x5F):  # a frame, or pzstd's skippable one
        return "zst"
    # "BZh", the block size, then the first block's mark or that of the end of an empty stream
    if head[:3] == b"BZh" and head[3:4] in b"123456789" and head[4:10] in (b"1AY&SY", b"\x17rE8P\x90"):
        return "bz2"
    return None


def content_problem(head: bytes, kind: str, compression: str | None, name: str) -> str | None:
    """What is wrong with a shard named ``name`` (read as ``kind``, ``compression``) whose first bytes are
    ``head``, and what to do, for a one-line message; None when its content may well be what its name says.

    >>> content_problem(b"\\x1f\\x8b\\x08\\x00rest", "text", None, "web.txt")
    "holds gzip-compressed data, though its name does not end in .gz; rename it 'web.txt.gz'"
    >>> print(content_problem(b'{"text": "hi"}\\n', "jsonl", "gz", "a.jsonl.gz"))
    is not gzip data but text starting '{"text": "hi"}' (saved decompressed?); rename it 'a.jsonl', or download it again
    >>> content_problem(b"\\x1f\\x8b\\x08\\x00rest", "jsonl", "gz", "a.jsonl.gz") is None
    True
    """
    if head and not head.strip(b"\0"):  # a file made at its full size, which the download never filled
        return "starts with nothing but NUL bytes (a download or copy cut short?); download it again"
    if head.startswith(LFS_POINTER):
        return "is a Git LFS pointer, not the file it stands for; fetch the files (git lfs pull in its repository)"
    found = compression_of(head)
    stem = name[: -len(_SUFFIXES[compression])] if compression is not None else name
    if found is not None and found != compression:
        said = "its name does not end in" if compression is None else f"its name ends in {_SUFFIXES[compression]}, not"
        return (f"holds {_NAMES[found]}-compressed data, though {said} {_SUFFIXES[found]}; "
                f"rename it {_quoted(stem + _SUFFIXES[found])}")
    if compression is None and head.startswith(b"PK\x03\x04"):
        return "is a zip archive; unzip it and give the folder it makes"
    if compression is None and head[257:265] in (b"ustar\x0000", b"ustar  \x00"):  # POSIX's mark, or GNU's
        return "is a tar archive; extract it (tar -xf) and give the folder it makes"
    if compression is None and kind != "parquet" and head.startswith(b"PAR1") and _binary(head):
        return f"holds Parquet data, though its name does not end in .parquet; rename it {_quoted(_parquet_name(name))}"
    if compression is not None and found is None and head and not _binary(head):
        return (f"is not {_NAMES[compression]} data but text starting {_start(head)} (saved decompressed?); "
                f"rename it {_quoted(stem)}, or download it again")
    if compression is None and kind == "parquet" and head and not head.startswith(b"PAR1") and not _binary(head):
        # an error page or message saved under the shard's name: a gated dataset fetched without a token
        return f"holds text starting {_start(head)}, not Parquet data (a page saved in its place?); download it again"
    return None


def _start(head: bytes) -> str:
    """The first words of a text head, quoted, for a message.

    >>> _start(b'<!DOCTYPE html>\\n<html><head><title>Access denied</title>')
    "'<!DOCTYPE html>'"
    """
    line = head.decode("utf-8", "replace").strip().split("\n", 1)[0].strip()
    return repr(line if len(line) <= 40 else line[:39] + "…")


def _binary(head: bytes) -> bool:
    """Whether ``head`` holds a NUL or is not UTF-8 (a character cut at its end aside): no text does."""
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.reason != "unexpected end of data"
    return False


def _quoted(name: str) -> str:
    return f"'{shown_path(name)}'"


def _parquet_name(name: str) -> str:
    for suffix in (".jsonl", ".json", ".ndjson", ".txt", ".text", ".arrow", ".feather"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)] + ".parquet"
    return name + ".parquet"
