"""Headless subcommands (train, encode, decode, inspect, convert, export, verify, lens, diff, study): one module each,
sharing this dispatcher.

Whatever goes wrong ends in one line on stderr, ``bpe-tui CMD: error: ...`` and exit status 2: a bad
argument (:mod:`bpe_tui.cli.arguments`), bad input (a :class:`~core.errors.BPEError` from the core), or,
as a last resort, an OSError on some path or running out of memory (``verify`` alone says "no" with
status 1: the files were read, and do not belong together). Ctrl-C ends in one line and exit status 130,
saying what was written (:mod:`bpe_tui.cli.outputs`); SIGTERM and SIGHUP the same way, with status 143
and 129. Every line is escaped before it is printed: messages quote paths and file contents, and a
control character in them must not reach the terminal.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import io
import os
import select
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import TextIO

from bpe_tui import __version__
from bpe_tui.cli.arguments import CommandParser, ParserExit, SingleCommand, UsageError
from bpe_tui.cli.standard_output import quiet_stdout, stdout_failed
from bpe_tui.cli.outputs import Outputs
from bpe_tui.text import escape_token
from core.output_errors import describe_write_error
from core.errors import BPEError, MissingHalfError
from core.input_files import shown_path

OUT_OF_MEMORY = "close other programs, or raise the memory limit (ulimit -v) if one is set"
"""What to try when a command runs out of memory; a command module's own ``OUT_OF_MEMORY`` says more."""

COMMANDS = ("train", "encode", "decode", "inspect", "convert", "export", "verify", "lens", "diff", "study")
"""Each name is a module ``bpe_tui.cli.<name>`` with ``add_parser(subparsers)`` and ``run(args, outputs) -> int``."""

MERGES_OPTION = frozenset({"encode", "decode", "inspect", "convert", "export", "verify"})
"""The commands with ``--merges PATH`` for a GPT-2 vocab.json (lens's ``--merges`` is a count, diff has none)."""


@dataclass(frozen=True)
class Command:
    """A parsed command line: the command's module and its arguments."""

    name: str
    module: ModuleType
    args: argparse.Namespace


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``bpe-tui COMMAND ...`` with every command, for ``bpe-tui --help``."""
    parser = CommandParser(
        prog="bpe-tui",
        description="Train, watch and inspect byte-level BPE tokenizers. With no command, opens the app.",
        epilog="bpe-tui [PATH...] [--theme NAME] [--no-train] opens the app on tokenizer and corpus files.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"bpe-tui {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"bpe_tui.cli.{name}").add_parser(subparsers)
    return parser


def say(line: str) -> None:
    """Print one line on stderr, escaped: no control character of a path or a file reaches the terminal."""
    if sys.stderr is None:  # started with stderr closed (2>&-): nowhere to say it; the status still tells
        return
    try:
        sys.stderr.write(escape_token(line, glyphs=False) + "\n")
        sys.stderr.flush()
    except OSError:  # a stderr gone or full (2>/dev/full): the status still tells
        pass


def parse_command(argv: list[str]) -> Command | int:
    """Parse ``argv`` (which starts with a command name, or ``-h``); an exit status when there is nothing to run."""
    try:
        if argv[0] not in COMMANDS:
            build_parser().parse_args(argv)  # --help: prints the overview and exits
            return 0
        single = SingleCommand()
        module = importlib.import_module(f"bpe_tui.cli.{argv[0]}")
        module.add_parser(single)
        assert single.parser is not None
        args = single.parser.parse_intermixed_args(argv[1:])
    except ParserExit as done:
        return done.status
    except OSError as error:  # --help with stdout full, closed or gone (| head -1)
        return stdout_failed(error, f"bpe-tui {argv[0]}" if argv[0] in COMMANDS else "bpe-tui")
    except UsageError as error:
        prog = f"bpe-tui {argv[0]}" if argv[0] in COMMANDS else "bpe-tui"
        say(f"{prog}: error: {error}")
        return 2
    args.command = argv[0]
    return Command(argv[0], module, args)


def execute(command: Command) -> int:
    """Run a parsed command; bad input, OS errors and Ctrl-C become one line (see the module docstring)."""
    _stand_ins_for_closed_streams()
    _tolerant_streams()
    stderr = sys.stderr
    sys.stderr = _MessagesNeverFail(stderr)
    try:
        return _run(command)
    finally:
        sys.stderr = stderr


def _run(command: Command) -> int:
    outputs = Outputs(command.name, force=getattr(command.args, "force", False))
    prefix = f"bpe-tui {command.name}"
    out_of_memory = False
    try:
        code = command.module.run(command.args, outputs)
    except MemoryError:
        # Said below, once the traceback, and the work its frames hold on to, is gone.
        out_of_memory = True
    except BPEError as error:
        shown = error.with_option if isinstance(error, MissingHalfError) and command.name in MERGES_OPTION else error
        say(f"{prefix}: error: {shown}{outputs.after_error()}")
        return 2
    except KeyboardInterrupt as interrupt:  # Ctrl-C, or SIGTERM and SIGHUP (core.signals.Terminated)
        code, line = outputs.interrupted(interrupt)
        say(f"{prefix}: {line}")
        return code
    except BrokenPipeError as error:
        if not _stdout_reader_gone():
            # Another pipe broke (a helper process's): an error like any other, not the quiet end below.
            say(f"{prefix}: error: {describe_write_error(error)}{outputs.after_error()}")
            return 2
        quiet_stdout()  # the reader went away (| head): what it did not want needs no error
        return 0
    except OSError as error:
        # Out of descriptors, the file named is whichever was opened last (a library's, even): no clue.
        named = error.filename is not None and error.errno not in (errno.EMFILE, errno.ENFILE)
        where = f"{shown_path(error.filename)}: " if named else ""
        say(f"{prefix}: error: {where}{describe_write_error(error)}{outputs.after_error()}")
        return 2
    if out_of_memory:
        hint = getattr(command.module, "OUT_OF_MEMORY", OUT_OF_MEMORY)
        say(f"{prefix}: error: out of memory; {hint}{outputs.after_error()}")
        return 2
    if outputs.held_interrupt:
        say(f"{prefix}: {outputs.complete_note()}")
    return code


def run_command(argv: list[str]) -> int:
    """Parse ``argv`` (which starts with a command name) and run it; return the exit status."""
    parsed = parse_command(argv)
    return parsed if isinstance(parsed, int) else execute(parsed)


def _stdout_reader_gone() -> bool:
    """Whether stdout is a pipe (or socket) whose reader has gone, as after ``| head -1``: poll reports an
    error on its write end. A BrokenPipeError from anywhere else was taken for this, and the command ended
    with status 0 and nothing written."""
    if not hasattr(select, "poll"):
        return True  # cannot tell here: as before, the reader is taken to have gone
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return False


class _MessagesNeverFail(io.TextIOBase):
    """Standard error for the length of a command: once a write to it fails, later lines go nowhere.

    Progress, warnings and notes are for a person; a stderr that went away (``train ... 2>&1 | head -1``)
    or filled up (``2>/dev/full``) raised out of the work instead, so that a run was lost at its next
    progress line: train saved nothing and exited 0 (a broken pipe was taken for stdout's reader gone).
    The command now does its work and its exit status tells how it went.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._failed = False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not self._failed:
            try:
                self._stream.write(text)
            except OSError:
                self._give_up()
        return len(text)

    def flush(self) -> None:
        if not self._failed:
            try:
                self._stream.flush()
            except OSError:
                self._give_up()

    def isatty(self) -> bool:
        return not self._failed and self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._stream, "encoding", None) or "utf-8"

    def _give_up(self) -> None:
        self._failed = True
        # What is still buffered, and what anything else writes there, then goes to /dev/null: flushed at
        # exit it would fail again ("Exception ignored ... BrokenPipeError").
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
            pass


class _ClosedStdout(io.TextIOBase):
    """Stands for a standard output that was closed when the process started (``>&-``).

    Python leaves ``sys.stdout`` None then, so the first write was an AttributeError traceback (and
    ``print`` dropped its output without a word). Writing text or bytes (``.buffer``) raises an OSError
    instead, which the dispatcher turns into its one line; a command that prints nothing still runs.
    """

    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        raise OSError(errno.EBADF, "standard output is closed; redirect it to a file or to /dev/null")

    @property
    def buffer(self) -> _ClosedStdout:
        return self


class _NoStderr(io.TextIOBase):
    """Stands for a standard error that was closed when the process started (``2>&-``): lines go nowhere.

    Left None, ``print(..., file=sys.stderr)`` would send progress and warnings to stdout instead, into
    the ids or the text a command prints there.
    """

    def writable(self) -> bool:
        return True

    def write(self, data: str) -> int:
        return len(data)


class _ClosedStdin(io.TextIOBase):
    """Stands for a standard input that was closed when the process started (``<&-``): reading it, as
    ``encode`` and ``decode`` do without a FILE, raises an OSError the dispatcher turns into its one line."""

    def readable(self) -> bool:
        return True

    def _closed(self) -> OSError:
        return OSError(errno.EBADF, "standard input is closed; give a FILE, or pipe the input in")

    def read(self, size: int | None = -1) -> str:
        raise self._closed()

    def readline(self, size: int | None = -1) -> str:
        raise self._closed()

    @property
    def buffer(self) -> io.BufferedIOBase:
        raise self._closed()


def _stand_ins_for_closed_streams() -> None:
    if sys.stdin is None:
        sys.stdin = _ClosedStdin()
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()
    if sys.stderr is None:
        sys.stderr = _NoStderr()


def _tolerant_streams() -> None:
    # A stream that cannot encode a character (PYTHONIOENCODING=ascii, say) shows it escaped instead of
    # failing with a traceback halfway through the output.
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass
