"""Atomic file writes: a reader sees the old file or the complete new one, never a half-written file.

Every save in bpe-tui (tokenizer files, trained models, exported ids) goes through here. The data is
written to a temporary file in the destination's own directory (so the final ``os.replace`` is a rename
within one file system, which POSIX makes atomic), flushed and fsynced, then renamed over the target. On
any error, including KeyboardInterrupt, the temporary file is removed and the target is left untouched.
A new folder of files (GPT-2's ``vocab.json`` + ``merges.txt``) is made the same way, as a temporary
folder renamed into place (:func:`atomic_directory`).

Only a process killed outright (``kill -9``, the out-of-memory killer, a power cut) leaves a temporary
behind. So every temporary's name says whose it is::

    .NAME.bpe-tui.PID.START.HOST.RANDOM.KIND

(``START``: when process ``PID`` started, in clock ticks since boot; ``HOST``: this boot of this machine
and its process namespace; ``KIND``: ``tmp``, ``part``, ``words`` or ``tmpdir``), and the next save to the
same target first removes the temporaries of owners that are gone (:func:`remove_stale_temporaries`).
A process id is reused in time, which is why the start time is in the name: a live process with the
same id but another start time is not the owner. Anything that cannot be told for sure (another
machine on a shared disk, another boot) is kept.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import platform
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from core.errors import BPEError
from core.input_files import shown_path


class OutputError(BPEError):
    """An output file cannot be written (missing directory, no permission, disk full...)."""


def _read_umask() -> int:
    # os.umask can only be read by setting it; done once at import, before any worker threads exist.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()

TEMP_MARK = "bpe-tui"
"""Between the target's name and the owner in every temporary's name."""

TEMP_KINDS = ("tmp", "part", "words", "tmpdir")
"""The endings of temporaries: an atomic write's file, an export's part and words files, a new folder."""

_NAME_BYTES = 140
"""How much of the target's name a temporary's name keeps: the rest of it takes up to about 80 bytes, and
a name must fit in 255 bytes, so a target with a long name still gets temporaries."""

_OWNER = re.compile(r"(\d+)\.(\d+)\.([0-9a-f]{8})\..+\.(?:" + "|".join(TEMP_KINDS) + r")")
"""What follows ``.NAME.bpe-tui.`` in a temporary's name: pid, start time, host, anything, kind."""

_PROBLEMS = {
    errno.ENOSPC: "no space left on the device; free some space or write elsewhere",
    errno.EDQUOT: "disk quota exceeded; free some space or write elsewhere",
    errno.EROFS: "the file system is read-only; write elsewhere",
    errno.EACCES: "permission denied; write to a folder you may write to",
    errno.EPERM: "permission denied; write to a folder you may write to",
    errno.ENAMETOOLONG: "the name is too long for the file system; use a shorter name",
    errno.ENOTDIR: "a part of the path is not a directory; check the path",
    errno.ELOOP: "too many levels of symbolic links (a loop?); check the path",
}


def describe_write_error(error: OSError) -> str:
    """What an OSError met while writing means, and what to do about it.

    >>> describe_write_error(OSError(errno.ENOSPC, "No space left on device"))
    'no space left on the device; free some space or write elsewhere'
    """
    return _PROBLEMS.get(error.errno or 0) or error.strerror or str(error)


# ------------------------------------------------------------------------------------- whose temporary


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def _process_state(pid: int) -> tuple[str, int] | None:
    """(state letter, start time in clock ticks since boot) of process ``pid``, from ``/proc``; None if unknown."""
    text = _read(f"/proc/{pid}/stat")
    if text is None:
        return None
    # The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
    fields = text[text.rfind(")") + 2 :].split()
    try:
        return fields[0], int(fields[19])
    except (IndexError, ValueError):
        return None


def _host() -> str:
    """Eight hex digits naming this boot of this machine and this process namespace (the node name where
    there is no ``/proc``): process ids and start times only mean something within one."""
    boot = _read("/proc/sys/kernel/random/boot_id")
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        namespace = ""
    key = f"{boot.strip()}:{namespace}" if boot else f"node:{platform.node()}"
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:8]


_HOST = _host()
_owners: dict[int, str] = {}


def owner_tag() -> str:
    """``PID.START.HOST`` for this process (START is 0 where it cannot be known).

    >>> owner_tag().split(".")[0] == str(os.getpid())
    True
    """
    pid = os.getpid()  # not cached across fork: a child is another owner
    if pid not in _owners:
        state = _process_state(pid)
        _owners[pid] = f"{pid}.{state[1] if state else 0}.{_HOST}"
    return _owners[pid]


def _short_name(name: str) -> str:
    raw = os.fsencode(name)[:_NAME_BYTES]
    return os.fsdecode(raw)


def temp_prefix(target: str | os.PathLike[str]) -> str:
    """How the names of this process's temporaries for ``target`` begin: ``.NAME.bpe-tui.PID.START.HOST.``.

    >>> temp_prefix("out/ids.npy").startswith(".ids.npy.bpe-tui." + str(os.getpid()) + ".")
    True
    """
    return f".{_short_name(Path(target).name)}.{TEMP_MARK}.{owner_tag()}."


def owner_alive(pid: int, start: int, host: str) -> bool:
    """Whether the process that made a temporary may still be alive (when unsure: yes).

    >>> pid, start, host = owner_tag().split(".")
    >>> owner_alive(int(pid), int(start), host)
    True
    """
    if host != _HOST:
        return True  # another machine or boot: nothing here can tell
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    except OSError:
        return True
    if start == 0:
        return True  # made where start times are unknown: the process id alone cannot tell
    state = _process_state(pid)
    if state is None:
        return False  # it ended between the two looks
    letter, started = state
    return letter not in ("Z", "X") and started == start


def remove_stale_temporaries(target: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporaries for ``target`` beside it whose owners are gone; return what was removed.

    Only names of the form described in the module docstring, for this very target, are looked at, and
    only those whose owner :func:`owner_alive` says is gone are removed, so no live process loses a
    file. A folder that cannot be listed is left alone.
    """
    target = Path(target)
    start = f".{_short_name(target.name)}.{TEMP_MARK}."
    removed: list[Path] = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(start):
            continue
        match = _OWNER.fullmatch(entry.name, len(start))
        if match is None or owner_alive(int(match[1]), int(match[2]), match[3]):
            continue
        path = Path(entry.path)
        try:
            if entry.name.endswith(".tmpdir") and entry.is_dir(follow_symlinks=False):
                shutil.rmtree(path)
            else:
                path.unlink()
        except OSError:
            continue
        removed.append(path)
    return removed


# --------------------------------------------------------------------------------------------- writing


class _OutputFile(io.BufferedRandom):
    """The temporary file of an atomic write: a failed write (a full disk) is an OutputError naming the
    target, not an OSError naming a temporary file."""

    def __init__(self, raw: io.RawIOBase, target: Path) -> None:
        super().__init__(raw)
        self.target = target

    def write(self, data: bytes) -> int:  # type: ignore[override]
        try:
            return super().write(data)
        except OSError as error:
            raise OutputError(f"cannot write {shown_path(self.target)}: {describe_write_error(error)}") from None

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as error:
            raise OutputError(f"cannot write {shown_path(self.target)}: {describe_write_error(error)}") from None

    def sync(self) -> None:
        """Flush and fsync: everything written so far is on disk (a full disk shows here, as an OutputError)."""
        self.flush()
        try:
            os.fsync(self.fileno())
        except OSError as error:
            raise OutputError(f"cannot write {shown_path(self.target)}: {describe_write_error(error)}") from None


_raw_file = io.FileIO
"""Opens the temporary file's descriptor (a seam: tests put a disk that fills up here)."""


def _commit(temp: Path, target: Path) -> None:
    """The rename that makes a write visible (a seam: tests make a process wait just before or after it)."""
    os.replace(temp, target)


def _check_directory(target: Path) -> Path:
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


def _new_temporary(target: Path) -> tuple[Path, int, Path]:
    """Check where ``target`` goes, clear dead processes' temporaries there, and make this one's: (its
    folder, an open descriptor, its path)."""
    directory = _check_directory(target)
    remove_stale_temporaries(target)
    try:
        fd, temp_name = tempfile.mkstemp(prefix=temp_prefix(target), suffix=".tmp", dir=directory)
    except OSError as error:
        raise OutputError(f"cannot write {shown_path(target)}: {describe_write_error(error)}") from None
    return directory, fd, Path(temp_name)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """Open a binary temporary file that replaces ``path`` when the ``with`` block ends without error.

    For writers that stream (the corpus exporter writes ids chunk by chunk, then seeks back to fill in
    the header). The file object is seekable; do not close it yourself. Its ``write``, ``flush`` and
    ``sync`` (flush and fsync) raise OutputError, not OSError, when the disk is full. Temporaries left beside ``path`` by dead
    processes are removed first (see the module docstring).

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
    directory, fd, temp = _new_temporary(target)
    try:
        with _OutputFile(_raw_file(fd, "r+"), target) as handle:
            yield handle
            handle.sync()
        try:
            # mkstemp makes files readable by the owner only; a saved file should get the usual permissions.
            os.chmod(temp, 0o666 & ~_UMASK)
            _commit(temp, target)
        except OSError as error:
            raise OutputError(f"cannot write {shown_path(target)}: {describe_write_error(error)}") from None
    except BaseException:
        # Whatever went wrong (including an error in the caller's block or Ctrl-C), leave no temp file behind.
        temp.unlink(missing_ok=True)
        raise
    _fsync_directory(directory)


@contextlib.contextmanager
def atomic_directory(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary folder beside ``path`` that becomes the new folder ``path`` when the block ends without error.

    For a set of files that belong together in a folder of their own. ``path`` must not exist yet (or be
    an empty folder). On any error, including KeyboardInterrupt, the temporary folder and all in it are
    removed, so there is either no folder or the complete one.

    Raises:
        OutputError: the parent folder is missing or not writable, or ``path`` appeared meanwhile.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "pair"
    >>> with atomic_directory(target) as folder:
    ...     _ = (folder / "a.txt").write_text("a")
    >>> sorted(p.name for p in target.iterdir())
    ['a.txt']
    """
    target = Path(path)
    directory = _check_directory(target)
    remove_stale_temporaries(target)
    try:
        temp = Path(tempfile.mkdtemp(prefix=temp_prefix(target), suffix=".tmpdir", dir=directory))
    except OSError as error:
        raise OutputError(f"cannot create directory {shown_path(target)}: {describe_write_error(error)}") from None
    try:
        yield temp
        try:
            os.chmod(temp, 0o777 & ~_UMASK)
            _commit(temp, target)
        except OSError as error:
            raise OutputError(f"cannot create directory {shown_path(target)}: {describe_write_error(error)}") from None
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
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
        handle.write(data)
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


class AtomicGroup:
    """Files that are saved together or not at all (see :func:`atomic_group`)."""

    def __init__(self) -> None:
        self._files: list[tuple[Path, Path, _OutputFile]] = []  # (target, temporary, handle)

    def open(self, path: str | os.PathLike[str]) -> BinaryIO:
        """A binary temporary file that becomes ``path`` when the group is saved; checked and made now.

        Raises:
            OutputError: the directory is missing or not writable, or ``path`` is a directory.
        """
        target = Path(path)
        _, fd, temp = _new_temporary(target)
        try:
            handle = _OutputFile(_raw_file(fd, "r+"), target)
        except BaseException:
            os.close(fd)
            temp.unlink()
            raise
        self._files.append((target, temp, handle))
        return handle

    def _save(self) -> None:
        for _, temp, handle in self._files:
            handle.sync()
            handle.close()
            try:
                os.chmod(temp, 0o666 & ~_UMASK)
            except OSError as error:
                raise OutputError(f"cannot write {shown_path(handle.target)}: {describe_write_error(error)}") from None
        try:
            for target, temp, _ in self._files:
                try:
                    _commit(temp, target)
                except OSError as error:
                    raise OutputError(f"cannot write {shown_path(target)}: {describe_write_error(error)}") from None
        except BaseException:
            # Told by the temporaries, not by counting: Ctrl-C can come just after a rename, before any count.
            if any(not os.path.lexists(temp) for _, temp, _ in self._files):
                # Some are new, the others still old: none of them belongs with the rest any more.
                for target, _, _ in self._files:
                    with contextlib.suppress(OSError):
                        target.unlink()
            raise
        for directory in {target.parent for target, _, _ in self._files}:
            _fsync_directory(directory)

    def _discard(self) -> None:
        for _, temp, handle in self._files:
            # Closing flushes what is buffered, which fails again on a full disk (as an OutputError).
            with contextlib.suppress(OSError, OutputError):
                handle.close()
            temp.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_group() -> Iterator[AtomicGroup]:
    """Several files saved together: when the block ends without error, all of them are renamed into place;
    otherwise none is.

    Open each file with :meth:`AtomicGroup.open` (as with :func:`atomic_open`, do not close it). On an
    error or Ctrl-C in the block, or while syncing, every temporary is removed and the targets are left as
    they were. The renames come one after another, in the order the files were opened; an error or Ctrl-C
    between two of them removes every target of the group (the new ones, and the old ones that the rest
    would have replaced), so that no new file is left beside an old one it does not belong with.

    Raises:
        OutputError: a file cannot be written (one line, names the file).

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_group() as group:
    ...     _ = group.open(folder / "a.bin").write(b"a")
    ...     _ = group.open(folder / "a.bin.json").write(b"{}")
    >>> sorted(p.name for p in folder.iterdir())
    ['a.bin', 'a.bin.json']
    """
    group = AtomicGroup()
    try:
        yield group
        group._save()
    finally:
        group._discard()
