"""Checking input files before reading them: regular files only, and never an open or a read that blocks.

A path given as a corpus or a tokenizer can name anything the file system holds: a named pipe with no
writer (opening it waits forever), ``/dev/zero`` or ``/dev/urandom`` (a read never ends), a ``/proc``
file (its size says 0 although it has content, so it would pass for an empty file). Only regular files
are accepted. The kind is checked with ``stat`` before opening and again with ``fstat`` on the open file,
since the path can change in between, and the open is non-blocking, so a FIFO put there meanwhile cannot
hang it. A file whose content does not end where its size says (``/proc``, ``/sys``) is refused too: the
readers trust the size to cut the file into chunks.

Every problem is one line that names the path and the fix; :func:`shown_path` makes a path printable
in such a line.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from core.errors import BPEError

try:
    import resource  # imported now: out of descriptors, an import cannot open its file
except ImportError:  # Windows
    resource = None  # type: ignore[assignment]

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)

_OS_PROBLEMS = {
    errno.ENOENT: "no such file; check the path",
    errno.ENOTDIR: "a part of the path is not a directory; check the path",
    errno.ENAMETOOLONG: "the path is too long for the file system; use a shorter name",
    errno.ELOOP: "too many levels of symbolic links (a loop?); check the path",
    errno.EACCES: "permission denied; make the file readable",
    errno.EPERM: "permission denied; make the file readable",
}

_SHOWN_AT_MOST = 160
"""A longer path is shown by its start and end in messages (a path can be thousands of characters)."""

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def shown_path(path: str | os.PathLike[str]) -> str:
    """``path`` as it can be printed in a one-line message: undecodable bytes as ``\\xNN``, long paths cut.

    A byte that is not UTF-8 reaches Python as a lone surrogate, which cannot even be written to a UTF-8
    stream; it is shown as the byte it stands for.

    >>> shown_path("caf\\udce9.txt"), shown_path("/" + "a" * 300)[-8:]
    ('caf\\\\xe9.txt', 'aaaaaaaa')
    >>> len(shown_path("/" + "a" * 300))
    160
    """
    text = os.fsdecode(os.fspath(path))
    text = "".join(f"\\x{ord(ch) - 0xDC00:02x}" if 0xDC80 <= ord(ch) <= 0xDCFF else ch for ch in text)
    if len(text) > _SHOWN_AT_MOST:
        half = (_SHOWN_AT_MOST - 1) // 2
        text = f"{text[:half]}…{text[-(_SHOWN_AT_MOST - 1 - half):]}"
    return text


def open_files_problem(error: OSError) -> str | None:
    """What running out of file descriptors means, and what to do; None for any other error.

    Worker processes, shards and pipes each take descriptors, and a low ``ulimit -n`` runs out; the bare
    "Too many open files" named no limit and no way out (and, taken in a library, a library's file).

    >>> open_files_problem(OSError(errno.ENFILE, "Too many open files in system"))
    'the system has too many open files; close some programs or use fewer --workers'
    """
    if error.errno == errno.ENFILE:
        return "the system has too many open files; close some programs or use fewer --workers"
    if error.errno != errno.EMFILE:
        return None
    try:
        limit = f" (at most {resource.getrlimit(resource.RLIMIT_NOFILE)[0]:,} here)"
    except (AttributeError, OSError, ValueError):  # no resource module (Windows)
        limit = ""
    return f"too many open files{limit}; raise the limit (ulimit -n) or use fewer --workers"


def os_problem(error: OSError) -> str:
    """What an OSError on an input path means, and what to do, as the second half of a one-line message.

    >>> os_problem(FileNotFoundError(2, "No such file or directory"))
    'no such file; check the path'
    """
    known = _OS_PROBLEMS.get(error.errno or 0) or open_files_problem(error)
    if known is not None:
        return known
    return f"cannot be read ({error.strerror or error}); check the file"


UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
"""How a UTF-16 file starts (little- and big-endian byte-order marks); UTF-32's begin the same way."""


UTF16_PROBLEM = "it starts with a UTF-16 byte-order mark: convert it to UTF-8 first (e.g. iconv -f UTF-16 -t UTF-8)"
"""What a UTF-16 text file is, and what to do, for a one-line message."""


def utf16_problem(start: bytes) -> str | None:
    """What a file that begins with ``start`` is, and what to do, if it is UTF-16 text; ``None`` otherwise.

    Japanese text in UTF-16 holds no NUL byte at all (``こ`` is ``53 30``), so it is met as invalid UTF-8,
    not as a NUL: both must name UTF-16, or its owner reaches for ``errors 'replace'`` and trains on noise.

    >>> utf16_problem("\ufeffこ".encode("utf-16-le")), utf16_problem(b"ok")
    ('it starts with a UTF-16 byte-order mark: convert it to UTF-8 first (e.g. iconv -f UTF-16 -t UTF-8)', None)
    """
    return UTF16_PROBLEM if start[:2] in UTF16_BOMS else None


HEAD_BYTES = 4096
"""How much of a file's start :func:`encoding_problem` looks at."""

_JAPANESE_ENCODINGS = (("cp932", "Shift_JIS", "SHIFT_JIS"), ("euc_jp", "EUC-JP", "EUC-JP"))
"""Python's codec, the name people know, and iconv's name, of the encodings Japanese text comes in besides
UTF-8: Aozora Bunko's files are Shift_JIS, and so are many Windows ones."""


def encoding_problem(head: bytes) -> str | None:
    """What a file is and what to do, when its start ``head`` (up to :data:`HEAD_BYTES`) is not UTF-8 but
    UTF-16 or Japanese in Shift_JIS or EUC-JP; ``None`` when it is UTF-8 or there is nothing to go by.

    Japanese text is told by its kana: ``head`` must decode wholly (a character cut at its end aside),
    with no control character but tab and line breaks, and hold hiragana or katakana. Without that hint,
    invalid UTF-8 in a Japanese file read 'train with errors 'replace'', which trains on noise.

    >>> encoding_problem("吾輩は猫である".encode("shift_jis"))
    'it looks like Shift_JIS, not UTF-8: convert it to UTF-8 first (e.g. iconv -f SHIFT_JIS -t UTF-8)'
    >>> encoding_problem("吾輩は猫である".encode("euc_jp"))[:28], encoding_problem("café".encode("latin-1"))
    ('it looks like EUC-JP, not UT', None)
    """
    head = head[:HEAD_BYTES]
    problem = utf16_problem(head)
    if problem is not None:
        return problem
    if _decodes(head, "utf-8") is not None:
        return None
    for codec, name, iconv_name in _JAPANESE_ENCODINGS:
        text = _decodes(head, codec)
        if text is None or any(ch < " " and ch not in "\t\r\n" for ch in text):
            continue
        if any("\u3041" <= ch <= "\u30ff" for ch in text):
            return f"it looks like {name}, not UTF-8: convert it to UTF-8 first (e.g. iconv -f {iconv_name} -t UTF-8)"
    return None


def _decodes(data: bytes, codec: str) -> str | None:
    """``data`` decoded, allowing a character cut off at its end; ``None`` if it is not in ``codec``."""
    try:
        return data.decode(codec)
    except UnicodeDecodeError as error:
        if error.start < len(data) - 3:
            return None
        try:
            return data[: error.start].decode(codec)
        except UnicodeDecodeError:
            return None


def nul_byte_problem(start: bytes) -> str:
    """What a NUL byte in a text corpus that begins with ``start`` means, and what to do, for a one-line message.

    Text in UTF-16 holds a NUL beside every ASCII character; called binary, its owner would look for
    the wrong fix.

    >>> nul_byte_problem(b"\\xff\\xfeh\\x00")
    'it starts with a UTF-16 byte-order mark: convert it to UTF-8 first (e.g. iconv -f UTF-16 -t UTF-8)'
    >>> nul_byte_problem(b"\\x7fELF")
    'this looks like a binary file, give a text corpus'
    """
    return utf16_problem(start) or "this looks like a binary file, give a text corpus"


def file_kind(mode: int) -> str | None:
    """What a file that is not a regular file or a directory is, from its ``st_mode``; ``None`` otherwise.

    >>> file_kind(stat.S_IFIFO), file_kind(stat.S_IFREG) is None
    ('a named pipe (FIFO)', True)
    """
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return None


def check_regular_file(
    path: str | os.PathLike[str],
    error: type[BPEError] = BPEError,
    *,
    fix: str = "copy its content to a regular file first",
) -> Path:
    """Return ``path`` as a Path if it is a readable regular file whose size is its length.

    Never blocks: a FIFO is refused before it is opened, and the open itself is non-blocking. ``fix``
    ends the message for a file that is not a regular file.

    Raises:
        error: (one line naming the path) missing, a directory, a FIFO, device or socket, unreadable, a
            path that is too long or loops, or a file whose size is not its length (``/proc``, ``/sys``).

    >>> check_regular_file("/dev/null")
    Traceback (most recent call last):
    core.errors.BPEError: /dev/null: is a character device, not a regular file; copy its content to a regular file first
    """
    p = Path(path)
    shown = shown_path(p)
    try:
        mode = os.stat(p).st_mode
    except OSError as problem:
        raise error(f"{shown}: {_dangling_link(p) or os_problem(problem)}") from None
    _check_mode(mode, shown, error, fix)
    try:
        fd = os.open(p, _OPEN_FLAGS)
    except OSError as problem:
        raise error(f"{shown}: {os_problem(problem)}") from None
    try:
        status = os.fstat(fd)
        _check_mode(status.st_mode, shown, error, fix)  # the path may have changed since the stat above
        _check_length(fd, status.st_size, shown, error)
    except OSError as problem:
        raise error(f"{shown}: {os_problem(problem)}") from None
    finally:
        os.close(fd)
    return p


def _dangling_link(path: Path) -> str | None:
    """What a symbolic link whose target is missing is, for a message: ``ls`` lists such a link, so "no such
    file" sent its owner looking for a typo that was not there. None when ``path`` is no such link."""
    try:
        target = os.readlink(path)
    except OSError:
        return None
    if os.path.lexists(os.path.join(os.path.dirname(path), target)):
        return None  # a loop, or a link through a link: the system's words say it
    return f"a symbolic link to {shown_path(target)}, which does not exist; fix or remove the link"


def _check_mode(mode: int, shown: str, error: type[BPEError], fix: str) -> None:
    if stat.S_ISDIR(mode):
        raise error(f"{shown}: is a directory; give a file inside it")
    if not stat.S_ISREG(mode):
        kind = file_kind(mode) or "not a regular file"
        raise error(f"{shown}: is {kind}, not a regular file; {fix}")


def _check_length(fd: int, size: int, shown: str, error: type[BPEError]) -> None:
    """The last byte the size promises is there; an empty file has none (two reads of one byte)."""
    if size == 0:
        if os.pread(fd, 1, 0):
            raise error(
                f"{shown}: its size reads 0 bytes but it has content (a /proc or /sys file?); "
                "copy its content to a regular file first"
            )
    elif not os.pread(fd, 1, size - 1):
        raise error(
            f"{shown}: its size reads {size:,} bytes but its content ends sooner (a /sys file, or one "
            "being cut short?); copy its content to a regular file first"
        )
