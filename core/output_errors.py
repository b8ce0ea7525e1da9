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
from core.input_files import file_kind, open_files_problem, shown_path


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
    """The folder ``target`` goes in, if it is one and ``target`` is nothing yet or a regular file (or a link
    to one); otherwise a one-line OutputError.

    >>> check_output_directory(Path("/dev/null"))
    Traceback (most recent call last):
    core.output_errors.OutputError: cannot write /dev/null: it is a character device; only a regular file is ever replaced
    """
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
        mode: int | None = os.stat(target).st_mode
    except OSError:
        mode = None  # nothing there, or a dangling link: replacing it loses nothing
    if mode is not None and stat.S_ISDIR(mode):
        raise OutputError(f"cannot write {shown}: it is a directory; give a file name")
    if mode is not None and not stat.S_ISREG(mode):
        # The rename would put a regular file in its place: /dev/null, or /dev/stdout (a link to the
        # terminal or a pipe) made into a file for every program, where one may write in /dev.
        what = "leads to" if os.path.islink(target) else "is"
        raise OutputError(
            f"cannot write {shown}: it {what} {file_kind(mode) or 'not a regular file'}; "
            "only a regular file is ever replaced"
        )
    return directory
