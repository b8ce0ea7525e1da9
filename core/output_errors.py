"""What goes wrong when an output is written: ``OutputError``, what an OSError means in one line, and the
check of the folder a file is to be written in.

Apart from :mod:`core.atomic` because the exporters and the CLI raise and describe the same errors for
writes of their own, without needing the temporary-file mechanics.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from core.errors import BPEError
from core.input_files import open_files_problem, shown_path


class OutputError(BPEError):
    """An output file cannot be written (missing directory, no permission, disk full...)."""


_PROBLEMS = {
    errno.ENOSPC: "no space left on the device; free some space or write elsewhere",
    errno.EDQUOT: "disk quota exceeded; free some space or write elsewhere",
    errno.EROFS: "the file system is read-only; write elsewhere",
    errno.EACCES: "permission denied; write to a folder you may write to",
    errno.EPERM: "permission denied; write to a folder you may write to",
    errno.ENAMETOOLONG: "the name is too long for the file system; use a shorter name",
    errno.ENOTDIR: "a part of the path is not a directory; check the path",
    errno.ELOOP: "too many levels of symbolic links (a loop?); check the path",
    errno.EFBIG: "the file would be larger than allowed here (a file-size limit, ulimit -f, or the file "
                 "system's largest file); raise the limit or write elsewhere",
}


def describe_write_error(error: OSError) -> str:
    """What an OSError met while writing means, and what to do about it.

    >>> describe_write_error(OSError(errno.ENOSPC, "No space left on device"))
    'no space left on the device; free some space or write elsewhere'
    """
    return _PROBLEMS.get(error.errno or 0) or open_files_problem(error) or error.strerror or str(error)


def check_output_directory(target: Path) -> Path:
    """The folder ``target`` goes in, if it is one; otherwise a one-line OutputError."""
    directory = target.parent
    shown = shown_path(target)
    try:
        if not stat.S_ISDIR(os.stat(directory).st_mode):
            raise OutputError(f"cannot write {shown}: {shown_path(directory)} is not a directory")
    except FileNotFoundError:
        raise OutputError(
            f"cannot write {shown}: directory {shown_path(directory)} does not exist; create it first"
        ) from None
    except OSError as error:
        raise OutputError(f"cannot write {shown}: {describe_write_error(error)}") from None
    try:
        is_directory = stat.S_ISDIR(os.stat(target).st_mode)
    except OSError:
        is_directory = False
    if is_directory:
        raise OutputError(f"cannot write {shown}: it is a directory; give a file name")
    return directory
