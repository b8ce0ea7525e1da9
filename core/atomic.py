"""Atomic file writes: a reader sees the old file or the complete new one, never a half-written file.

Every save in bpe-tui (tokenizer files, trained models, exported ids) goes through here. The data is
written to a temporary file in the destination's own directory (so the final ``os.replace`` is a rename
within one file system, which POSIX makes atomic), flushed and fsynced, then renamed over the target. On
any error, including KeyboardInterrupt, the temporary file is removed and the target is left untouched.
A new folder of files (GPT-2's ``vocab.json`` + ``merges.txt``) is made the same way, as a temporary
folder renamed into place (:func:`atomic_directory`).

Only a process killed outright leaves a temporary behind; its name says whose it is, and the next save to
the same target removes it once its owner is gone (:mod:`core.temporaries`). What a failed write raises
and what it means is in :mod:`core.output_errors`.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

try:
    import fcntl
except ImportError:  # not POSIX: groups are renamed without waiting for one another
    fcntl = None  # type: ignore[assignment]

from core.input_files import shown_path
from core.output_errors import OutputError, check_output_directory, describe_write_error
from core.temporaries import remove_stale_temporaries, temp_prefix


def _read_umask() -> int:
    # os.umask can only be read by setting it; done once at import, before any worker threads exist.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


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


def _saved_mode(target: Path) -> int:
    """The permissions a save gives ``target``: those of the file it replaces, else the usual ones (umask).

    A rename puts a new file in place, with the temporary's mode: replacing a file made private (0600) with
    ``--force`` left it readable by everyone (0644).
    """
    try:
        return os.stat(target).st_mode & 0o777
    except OSError:
        return 0o666 & ~_UMASK


def _commit(temp: Path, target: Path) -> None:
    """The rename that makes a write visible (a seam: tests make a process wait just before or after it)."""
    os.replace(temp, target)


def _new_temporary(target: Path) -> tuple[Path, int, Path]:
    """Check where ``target`` goes, clear dead processes' temporaries there, and make this one's: (its
    folder, an open descriptor, its path)."""
    directory = check_output_directory(target)
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
    processes are removed first (see :mod:`core.temporaries`).

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
            os.chmod(temp, _saved_mode(target))
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
    directory = check_output_directory(target)
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


@contextlib.contextmanager
def _renaming_alone(directories: set[Path]) -> Iterator[None]:
    """While one group's files are renamed into place, no other group's are in the same folders.

    Two processes saving the same group at once (two exports to one ``-o``, a ``make -j`` running a rule
    twice) interleaved their renames otherwise: one's array ended beside the other's sidecar, each file
    complete and the pair wrong. An exclusive ``flock`` on each folder, taken in one order, makes the
    later group wait the moment the earlier one's renames take, and then replace all of its files. The
    lock goes with the descriptor, so a process killed meanwhile holds nothing; a file system without
    locks renames as before.
    """
    descriptors: list[int] = []
    try:
        if fcntl is not None:
            for directory in sorted({os.path.realpath(folder) for folder in directories}):
                try:
                    descriptor = os.open(directory, os.O_RDONLY)
                except OSError:
                    continue
                descriptors.append(descriptor)
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX)
                except OSError:
                    pass
        yield
    finally:
        for descriptor in descriptors:
            os.close(descriptor)


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
                os.chmod(temp, _saved_mode(handle.target))
            except OSError as error:
                raise OutputError(f"cannot write {shown_path(handle.target)}: {describe_write_error(error)}") from None
        try:
            with _renaming_alone({target.parent for target, _, _ in self._files}):
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
    would have replaced), so that no new file is left beside an old one it does not belong with. Another
    process saving a group in the same folders waits for these renames, so two saves of the same files
    at once leave one save's files, never some of each.

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
