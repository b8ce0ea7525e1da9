"""Id files without a ``.npy`` header: llm.c's token files and raw arrays such as nanoGPT's ``train.bin``.

llm.c writes a 1 KiB header of 256 little-endian int32s (magic 20240520, a version, the token count)
before its ids: version 1 holds ``uint16`` ids (GPT-2), version 2 ``uint32`` (Llama 3), so the file
says everything. A raw array (nanoGPT's ``ids.tofile("train.bin")``, read back with ``np.memmap``) says
nothing: only the user knows its type, which ``bpe-tui decode --dtype`` gives. Both are read as
:class:`~core.export.npy_ids.NpyIds`, streamed in blocks like a ``.npy`` file.
"""

from __future__ import annotations

import os

from core.export.npy_ids import MAGIC, IdsFileError, NpyIds, read_npy_header
from core.input_files import check_regular_file, os_problem, shown_path

LLMC_MAGIC = 20240520
"""The first int32 of an llm.c token file."""

LLMC_HEADER_BYTES = 256 * 4
"""An llm.c token file's header: 256 int32s."""

_LLMC_DTYPES = {1: "uint16", 2: "uint32"}
"""llm.c's header version -> the type of its ids."""

RAW_DTYPES = ("uint16", "uint32", "int32", "int64")
"""The types a raw id file may be given as (little-endian, as numpy writes them on every common machine)."""


def is_llmc(start: bytes) -> bool:
    """Whether a file's first bytes are an llm.c token file's magic number.

    >>> is_llmc((20240520).to_bytes(4, "little") + b"..."), is_llmc(b"\\x93NUMPY")
    (True, False)
    """
    return len(start) >= 4 and int.from_bytes(start[:4], "little") == LLMC_MAGIC


def read_llmc_header(path: str | os.PathLike[str]) -> NpyIds:
    """The ids of the llm.c token file ``path`` (read later, with :meth:`NpyIds.blocks`).

    Raises:
        IdsFileError: no llm.c header, a version with no known id type, or unreadable.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "val.bin"
    >>> header = [LLMC_MAGIC, 1, 3] + [0] * 253
    >>> _ = target.write_bytes(b"".join(n.to_bytes(4, "little") for n in header) + bytes([1, 0, 2, 0, 3, 1]))
    >>> ids = read_llmc_header(target)
    >>> ids.dtype, ids.length, [list(block) for block in ids.blocks()]
    ('uint16', 3, [[1, 2, 259]])
    """
    checked = check_regular_file(path, IdsFileError)
    shown = shown_path(checked)
    try:
        with open(checked, "rb") as handle:
            header = handle.read(LLMC_HEADER_BYTES)
            size = os.fstat(handle.fileno()).st_size
    except OSError as problem:
        raise IdsFileError(f"{shown}: {os_problem(problem)}") from None
    if len(header) < LLMC_HEADER_BYTES or not is_llmc(header):
        raise IdsFileError(f"{shown} is not an llm.c token file (no 1 KiB header starting with {LLMC_MAGIC})")
    version = int.from_bytes(header[4:8], "little")
    count = int.from_bytes(header[8:12], "little")
    if version not in _LLMC_DTYPES:
        raise IdsFileError(f"{shown}: llm.c token file version {version} is not known (1: uint16 ids, 2: uint32)")
    return NpyIds(checked, _LLMC_DTYPES[version], count, LLMC_HEADER_BYTES, size)


def read_raw_ids(path: str | os.PathLike[str], dtype: str) -> NpyIds:
    """The ids of the raw array ``path``, each a little-endian ``dtype`` (one of :data:`RAW_DTYPES`).

    Raises:
        IdsFileError: the file's size is not a whole number of such ids, or it is unreadable.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "train.bin"
    >>> _ = target.write_bytes(bytes([1, 0, 2, 1]))
    >>> [list(block) for block in read_raw_ids(target, "uint16").blocks()]
    [[1, 258]]
    """
    if dtype not in RAW_DTYPES:
        raise IdsFileError(f"{dtype!r} is not an id type; give one of {', '.join(RAW_DTYPES)}")
    checked = check_regular_file(path, IdsFileError)
    try:
        size = checked.stat().st_size
    except OSError as problem:
        raise IdsFileError(f"{shown_path(checked)}: {os_problem(problem)}") from None
    item = int(dtype.removeprefix("u").removeprefix("int")) // 8
    if size % item:
        raise IdsFileError(
            f"{shown_path(checked)} holds {size:,} bytes, not a whole number of {item}-byte {dtype} ids; "
            "check --dtype"
        )
    return NpyIds(checked, dtype, size // item, 0, size)


def id_file_kind(start: bytes) -> str | None:
    """What a file's first bytes say it is: ``"a .npy array"``, ``"an llm.c token file"``, or None (raw
    ids or text: the bytes cannot tell).

    >>> id_file_kind(MAGIC + b"rest"), id_file_kind(b"1 2 3")
    ('a .npy array', None)
    """
    if start.startswith(MAGIC):
        return "a .npy array"
    if is_llmc(start):
        return "an llm.c token file"
    return None


def read_id_file(path: str | os.PathLike[str]) -> NpyIds:
    """The ids of a ``.npy`` array or an llm.c token file, told by its first bytes, not its name.

    Raises:
        IdsFileError: neither, or damaged, or unreadable.
    """
    checked = check_regular_file(path, IdsFileError)
    try:
        with open(checked, "rb") as handle:
            start = handle.read(len(MAGIC))
    except OSError as problem:
        raise IdsFileError(f"{shown_path(checked)}: {os_problem(problem)}") from None
    if is_llmc(start):
        return read_llmc_header(checked)
    return read_npy_header(checked)

