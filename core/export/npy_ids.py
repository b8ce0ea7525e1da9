"""Reading a ``.npy`` array of token ids without numpy: the header parsed, the ids streamed in blocks.

``bpe-tui export`` writes 1-D little-endian ``uint16``/``uint32`` arrays (format 1.0); ``decode`` and
``verify`` read those, and also the 1-D integer arrays numpy itself saves (``np.save("ids.npy", ids)``
gives ``int64``), so ids cut or converted with numpy still decode. The header is a Python dict literal,
read with :func:`ast.literal_eval`, which evaluates no code.
"""

from __future__ import annotations

import ast
import os
import sys
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core.errors import BPEError
from core.input_files import check_regular_file, os_problem, shown_path

MAGIC = b"\x93NUMPY"
"""How every ``.npy`` file starts."""

BLOCK_IDS = 1 << 18
"""Ids read at a time: memory stays bounded whatever the array's length."""

_DESCR = {"<u2": "uint16", "<u4": "uint32", "<u8": "uint64", "<i2": "int16", "<i4": "int32", "<i8": "int64",
          "|u1": "uint8", "|i1": "int8"}
"""The array types accepted (1-D, little-endian integers), by their ``descr`` in the header."""


class IdsFileError(BPEError):
    """An id file is not a 1-D integer ``.npy`` array, or is cut short."""


def _typecode(signed: bool, size: int) -> str:
    for code in ("bhilq" if signed else "BHILQ"):
        if array(code).itemsize == size:
            return code
    raise AssertionError(f"no array typecode holds {size}-byte integers")


@dataclass(frozen=True, slots=True)
class NpyIds:
    """The header of a ``.npy`` id file: ``length`` ids of type ``dtype`` starting at byte ``offset``."""

    path: Path
    dtype: str
    length: int
    offset: int
    file_bytes: int

    @property
    def item_bytes(self) -> int:
        return int(self.dtype.removeprefix("u").removeprefix("int")) // 8

    @property
    def held(self) -> int:
        """How many whole ids the file really holds after its header (fewer than ``length`` if cut short)."""
        return max(self.file_bytes - self.offset, 0) // self.item_bytes

    def check_whole(self) -> None:
        """Raise IdsFileError when the file holds fewer or more bytes than its header says."""
        expected = self.offset + self.length * self.item_bytes
        if self.file_bytes < expected:
            raise IdsFileError(
                f"{shown_path(self.path)} is cut short: its header says {self.length:,} ids but it holds "
                f"{self.held:,}; export it again"
            )
        if self.file_bytes > expected:
            raise IdsFileError(
                f"{shown_path(self.path)} has {self.file_bytes - expected:,} bytes after its {self.length:,} ids; "
                "export it again"
            )

    def blocks(self) -> Iterator[array]:
        """The ids in file order, :data:`BLOCK_IDS` at a time (stops early, without error, if cut short)."""
        code = _typecode(self.dtype.startswith("int"), self.item_bytes)
        left = min(self.length, self.held)
        with open(self.path, "rb") as handle:
            handle.seek(self.offset)
            while left > 0:
                count = min(left, BLOCK_IDS)
                block = array(code)
                block.frombytes(handle.read(count * self.item_bytes))
                if sys.byteorder == "big":
                    block.byteswap()
                yield block
                left -= count


def read_npy_header(path: str | os.PathLike[str]) -> NpyIds:
    """Parse the header of the ``.npy`` file ``path``; the ids are read later, with :meth:`NpyIds.blocks`.

    Raises:
        IdsFileError: not a ``.npy`` file, not a 1-D array of little-endian integers, or unreadable.

    >>> import tempfile, pathlib
    >>> from core.export.run import npy_header
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "ids.npy"
    >>> _ = target.write_bytes(npy_header("uint16", 2) + bytes([1, 0, 2, 1]))
    >>> ids = read_npy_header(target)
    >>> ids.dtype, ids.length, [list(block) for block in ids.blocks()]
    ('uint16', 2, [[1, 258]])
    """
    p = check_regular_file(path, IdsFileError)
    shown = shown_path(p)
    try:
        with open(p, "rb") as handle:
            start = handle.read(12)
            if not start.startswith(MAGIC) or len(start) < 10:
                raise IdsFileError(f"{shown} is not a .npy file (it does not start with \\x93NUMPY); "
                                   "give an array saved by bpe-tui export or numpy.save")
            major = start[6]
            if major == 1:
                length_bytes, header_start = 2, 10
            elif major in (2, 3):
                length_bytes, header_start = 4, 12
            else:
                raise IdsFileError(f"{shown}: .npy format version {major} is not supported (1 to 3 are)")
            header_length = int.from_bytes(start[8 : 8 + length_bytes], "little")
            handle.seek(header_start)
            text = handle.read(header_length)
            size = os.fstat(handle.fileno()).st_size
    except OSError as problem:
        raise IdsFileError(f"{shown}: {os_problem(problem)}") from None
    try:
        header = ast.literal_eval(text.decode("latin-1"))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):  # TypeError: {[1]: 2}
        header = None
    if not isinstance(header, dict) or not {"descr", "fortran_order", "shape"} <= header.keys():
        raise IdsFileError(f"{shown}: the .npy header is damaged; export it again")
    descr, shape = header["descr"], header["shape"]
    if not isinstance(descr, str) or descr not in _DESCR:  # a structured dtype's descr is a list
        raise IdsFileError(
            f"{shown} holds {descr!r:.20} values, not little-endian integers; save the ids as integers "
            "(e.g. ids.astype('<u4'))"
        )
    if not (isinstance(shape, tuple) and len(shape) == 1 and isinstance(shape[0], int) and shape[0] >= 0):
        raise IdsFileError(f"{shown} holds an array of shape {shape!r:.30}, not a 1-D list of ids; flatten it first")
    return NpyIds(p, _DESCR[descr], shape[0], header_start + header_length, size)
