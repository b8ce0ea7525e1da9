"""Atomic file writes: a reader sees the old file or the complete new one, never a half-written file.

Every save in bpe-tui (tokenizer files, trained models, exported ids) goes through here. The data is
written to a temporary file in the destination's own directory (so the final ``os.replace`` is a rename
within one file system, which POSIX makes atomic), flushed and fsynced, then renamed over the target. On
any error, including KeyboardInterrupt, the temporary file is removed and the target is left untouched.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from core.errors import BPEError


class OutputError(BPEError):
    """An output file cannot be written (missing directory, no permission, disk full...)."""


def _read_umask() -> int:
    # os.umask can only be read by setting it; done once at import, before any worker threads exist.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def _describe(error: OSError) -> str:
    return error.strerror or str(error)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """Open a binary temporary file that replaces ``path`` when the ``with`` block ends without error.

    For writers that stream (the corpus exporter writes ids chunk by chunk, then seeks back to fill in
    the header). The file object is seekable; do not close it yourself.

    Raises:
        OutputError: the directory is missing or not writable, or writing failed (one line, names ``path``).

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.bin"
    >>> with atomic_open(target) as f:
    ...     _ = f.write(b"abc")
    >>> target.read_bytes()
    b'abc'
    """
    target = Path(path)
    directory = target.parent
    if not directory.is_dir():
        raise OutputError(f"cannot write {target}: directory {directory} does not exist; create it first")
    if target.is_dir():
        raise OutputError(f"cannot write {target}: it is a directory; give a file name")
    try:
        fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as error:
        raise OutputError(f"cannot write {target}: {_describe(error)}") from None
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "w+b") as handle:
            yield handle
            try:
                handle.flush()
                os.fsync(handle.fileno())
            except OSError as error:
                raise OutputError(f"cannot write {target}: {_describe(error)}") from None
        try:
            # mkstemp makes files readable by the owner only; a saved file should get the usual permissions.
            os.chmod(temp, 0o666 & ~_UMASK)
            os.replace(temp, target)
        except OSError as error:
            raise OutputError(f"cannot write {target}: {_describe(error)}") from None
    except BaseException:
        # Whatever went wrong (including an error in the caller's block or Ctrl-C), leave no temp file behind.
        temp.unlink(missing_ok=True)
        raise
    _fsync_directory(directory)


def _fsync_directory(directory: Path) -> None:
    # Makes the rename itself durable; not every platform or file system allows it, and the data is safe anyway.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically and return the path.

    Raises:
        OutputError: the file cannot be written; ``path`` is unchanged and no temporary file is left.

    >>> import tempfile, pathlib
    >>> atomic_write_bytes(pathlib.Path(tempfile.mkdtemp()) / "x.bin", b"\\x00\\x01").read_bytes()
    b'\\x00\\x01'
    """
    with atomic_open(path) as handle:
        try:
            handle.write(data)
        except OSError as error:
            raise OutputError(f"cannot write {path}: {_describe(error)}") from None
    return Path(path)


def atomic_write_text(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically (UTF-8, newlines untranslated) and return the path.

    Raises:
        OutputError: the file cannot be written; ``path`` is unchanged and no temporary file is left.

    >>> import tempfile, pathlib
    >>> atomic_write_text(pathlib.Path(tempfile.mkdtemp()) / "t.txt", "héllo\\n").read_text(encoding="utf-8")
    'héllo\\n'
    """
    return atomic_write_bytes(path, text.encode(encoding))
