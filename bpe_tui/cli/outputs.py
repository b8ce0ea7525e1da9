"""The files a headless command writes: checked before any work, saved whole, and accounted for after Ctrl-C.

The rules, the same for every command (the README's "Guarantees" section says them to users):

* No command writes onto one of its own inputs, not even with ``--force``: not the same path, and not
  the same file reached through a symbolic or a hard link (``os.path.samefile``).
* An existing file is replaced only with ``--force``, and only a file: never a folder, a FIFO or a device.
* The folder must exist and be writable and the name must fit the file system. All of this is checked
  before the work starts, so a bad ``-o`` fails at once, not after an hour of training.
* Files are written to a temporary beside them and renamed into place (:mod:`core.atomic`). Once a
  command starts saving (:meth:`Outputs.hold`), Ctrl-C waits until saving is over, so that a command
  that writes two files never leaves one new and one old; a second Ctrl-C does not wait.
* After an interrupt, which outputs are new is told by their identity (device and inode): a rename puts a
  new file in place, so a changed identity means a complete new file, and an unchanged one the old file
  (or none). The command then says exactly that (:meth:`Outputs.interrupted`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from core.output_errors import OutputError, describe_write_error
from core.errors import SettingsError
from core.signals import TERMINATING_SIGNALS, Terminated
from core.input_files import file_kind, shown_path


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        status = os.lstat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _same_name(a: Path, b: Path) -> bool:
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except OSError:
        return False


@dataclass
class Output:
    """One file a command will write, as given on the command line (``option`` names the argument)."""

    path: Path
    option: str
    before: tuple[int, int] | None
    """Device and inode of what was at ``path`` before the command; None when nothing was."""

    @property
    def written(self) -> bool:
        """Whether a new file has been renamed into place since the check."""
        now = _identity(self.path)
        return now is not None and now != self.before

    def shown(self) -> str:
        return shown_path(self.path)


def _signal_words(signum: int) -> tuple[str, str]:
    """What to call ``signum`` when it came, and what it did: ``("Ctrl-C", "interrupted")`` for SIGINT,
    ``("SIGTERM", "terminated (SIGTERM)")`` for a terminating signal."""
    if signum == signal.SIGINT:
        return "Ctrl-C", "interrupted"
    name = signal.Signals(signum).name
    return name, f"terminated ({name})"


def _names(outputs: list[Output]) -> str:
    return ", ".join(output.shown() for output in outputs)


class Outputs:
    """The inputs and outputs of one command run, the checks between them, and what an interrupt left.

    >>> import tempfile; folder = Path(tempfile.mkdtemp()); corpus = folder / "c.txt"; _ = corpus.write_text("x")
    >>> outputs = Outputs("train")
    >>> outputs.add_input(corpus, "the corpus itself")
    >>> outputs.add(folder / "c.txt", "-o")
    Traceback (most recent call last):
    core.errors.SettingsError: -o .../c.txt is the corpus itself; choose another output file
    >>> outputs.add(folder / "tok.json", "-o").name
    'tok.json'
    """

    def __init__(self, command: str, *, force: bool = False) -> None:
        self.command = command
        self.force = force
        self.inputs: list[tuple[Path, str]] = []
        self.outputs: list[Output] = []
        self.held_interrupt = False
        """Ctrl-C came while saving and waited for saving to end (see :meth:`hold`)."""
        self.held_signal: int = signal.SIGINT
        """Which signal that was (SIGTERM waits as Ctrl-C does)."""
        self._held: dict[int, tuple[Any, Any]] = {}  # signal: (its handler before holding, the one while holding)

    # ------------------------------------------------------------------------------------------- checks

    def add_input(self, path: str | os.PathLike[str], what: str) -> None:
        """Record a file the command reads (``what`` says which, in messages: ``"the corpus itself"``)."""
        if os.path.lexists(path):
            self.inputs.append((Path(path), what))

    def add(self, path: str | os.PathLike[str], option: str, *, new_folder: bool = False) -> Path:
        """Check that the command may write ``path`` and record it; return it as a Path.

        ``new_folder``: the file goes in a folder the command makes itself when it is missing (GPT-2's
        pair), so then that folder's parent is checked.

        Raises:
            SettingsError: ``path`` is one of the inputs, or another output of this command, or ``-``
                (which would be a file named ``-``, not standard output).
            OutputError: ``path`` exists and ``--force`` was not given, is not a file, or cannot be
                written (missing or read-only folder, a name too long, a path through a file).
        """
        self.check_not_stdout(path, option)
        target = Path(path)
        label = f"{option} {shown_path(target)}" if option else shown_path(target)
        self._check_folder(target.parent, label, new_folder=new_folder)
        try:
            status: os.stat_result | None = os.lstat(target)
        except FileNotFoundError:
            status = None
        except OSError as error:
            raise OutputError(f"cannot write {label}: {describe_write_error(error)}") from None
        for other in self.outputs:
            if _same_name(other.path, target) or _same_file(other.path, target):
                raise SettingsError(f"{label} is also {other.option}'s output; give two different files")
        if status is not None:
            self._check_existing(target, status, label)
        self.outputs.append(Output(target, option, _identity(target)))
        return target

    def check_not_stdout(self, path: str | os.PathLike[str], option: str) -> None:
        """Refuse ``-`` as an output: it was a file named ``-``, which a script that meant standard output
        (as ``-o -`` means to many tools) never looked at.

        >>> Outputs("train").check_not_stdout("-", "-o")
        Traceback (most recent call last):
        core.errors.SettingsError: -o -: train writes a file, not standard output; give a file name (./- names a file called -)
        """
        if os.fspath(path) == "-":
            raise SettingsError(f"{option + ' ' if option else ''}-: {self.command} writes a file, not standard "
                                "output; give a file name (./- names a file called -)")

    def _check_folder(self, folder: Path, label: str, *, new_folder: bool) -> None:
        try:
            status = os.stat(folder)
        except FileNotFoundError:
            if new_folder:
                self._check_folder(folder.parent, label, new_folder=False)
                return
            raise OutputError(
                f"cannot write {label}: directory {shown_path(folder)} does not exist; create it first"
            ) from None
        except OSError as error:
            raise OutputError(f"cannot write {label}: {describe_write_error(error)}") from None
        if not stat.S_ISDIR(status.st_mode):
            raise OutputError(f"cannot write {label}: {shown_path(folder)} is not a directory")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise OutputError(f"cannot write {label}: directory {shown_path(folder)} is not writable")

    def _check_existing(self, target: Path, status: os.stat_result, label: str) -> None:
        for source, what in self.inputs:
            if _same_file(target, source) or _same_name(target, source):
                raise SettingsError(f"{label} is {what}; choose another output file")
        try:
            followed = os.stat(target).st_mode
        except OSError:
            followed = status.st_mode  # a dangling link: replacing it loses nothing
        if stat.S_ISDIR(followed):
            raise OutputError(f"cannot write {label}: it is a directory; give a file name")
        if not stat.S_ISREG(followed) and not stat.S_ISLNK(followed):
            # A link is replaced by the rename, not written through: -o /dev/stdout --force, run where
            # /dev is writable (as root in a container), made /dev/stdout a regular file for everyone.
            kind = file_kind(followed) or "not a regular file"
            what = "leads to" if stat.S_ISLNK(status.st_mode) else "is"
            raise OutputError(f"cannot write {label}: it {what} {kind}; only a regular file is ever replaced")
        if not self.force:
            raise OutputError(f"{label} already exists; add --force to overwrite it")

    # ----------------------------------------------------------------------------------------- Ctrl-C

    @contextlib.contextmanager
    def saving(self) -> Iterator[None]:
        """The block in which the command saves; Ctrl-C waits from :meth:`hold` to the end of it."""
        try:
            yield
        finally:
            for signum, (previous, holding) in self._held.items():
                # Unless another handler has been put back meanwhile: then the hold is over already.
                if signal.getsignal(signum) is holding:
                    signal.signal(signum, previous)
            self._held = {}

    def hold(self) -> None:
        """From now until the :meth:`saving` block ends, a Ctrl-C waits (noted in :attr:`held_interrupt`).

        Saving takes a moment, and cut in two it would leave one output new and another old. A second
        Ctrl-C does not wait. SIGTERM and SIGHUP, which the command handles as Ctrl-C, wait the same way.
        Where a signal is not Python's to handle (ignored, or not the main thread), nothing changes.
        """
        if self._held:
            return
        for signum in (signal.SIGINT, *TERMINATING_SIGNALS):
            previous = signal.getsignal(signum)
            if not callable(previous):
                continue

            def wait(signum: int, frame: FrameType | None, previous: Any = previous) -> None:
                if self.held_interrupt:
                    previous(signum, frame)
                self.held_interrupt = True
                self.held_signal = signum

            try:
                signal.signal(signum, wait)
            except ValueError:  # not the main thread
                return
            self._held[signum] = (previous, wait)

    # ------------------------------------------------------------------------------------ afterwards

    def written(self) -> list[Output]:
        """The outputs a new file has been renamed into place at since the check."""
        return [output for output in self.outputs if output.written]

    def complete_note(self, signum: int | None = None) -> str:
        """After a Ctrl-C (or ``signum``, default the one held) that came too late to stop anything: which
        files are complete."""
        written = self.written()
        verb = "is" if len(written) == 1 else "are"
        what = _signal_words(self.held_signal if signum is None else signum)[0]
        return f"note: {what} came once saving had begun; {_names(written)} {verb} complete"

    def interrupted(self, interrupt: KeyboardInterrupt | None = None) -> tuple[int, str]:
        """The exit status and the line for a command that Ctrl-C (or the signal ``interrupt`` names, a
        :class:`~core.signals.Terminated`) ended: 0 if all it had to write is there.

        >>> Outputs("encode").interrupted()
        (130, 'interrupted')
        >>> import signal; from core.signals import Terminated
        >>> Outputs("encode").interrupted(Terminated(signal.SIGTERM))
        (143, 'terminated (SIGTERM)')
        """
        signum = interrupt.signum if isinstance(interrupt, Terminated) else signal.SIGINT
        status, done = 128 + signum, _signal_words(signum)[1]
        if not self.outputs:
            return status, done  # encode and inspect write no files (their output may be cut short)
        written = self.written()
        if not written:
            return status, f"{done}; nothing was written"
        if len(written) == len(self.outputs):
            return 0, self.complete_note(signum)
        missing = [output for output in self.outputs if output not in written]
        verb = "is" if len(written) == 1 else "are"
        return status, f"{done}; {_names(written)} {verb} complete, {_names(missing)} not written"

    def after_error(self) -> str:
        """What an error line adds when some outputs had been saved before it (empty when none had)."""
        written = self.written()
        if not written:
            return ""
        one = len(written) == 1
        return f" ({_names(written)} {'was' if one else 'were'} saved before it and {'is' if one else 'are'} complete)"
