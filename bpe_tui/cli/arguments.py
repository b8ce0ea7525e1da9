"""Parsing a headless command's arguments: one-line errors, options anywhere, and values checked as they are read.

argparse's own errors print the whole usage block before the message; here a bad argument is one line,
``bpe-tui CMD: error: ...; see 'bpe-tui CMD --help'``, with exit status 2. Each command is parsed on its
own with ``parse_intermixed_args``, so options may come before, between or after the positionals
(``encode TOK --count FILE``). The argument types refuse up front what would otherwise fail late: a path
or special token that is not valid UTF-8 (which would fail when the trained tokenizer is saved), and a
worker count beyond what the machine can use.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any, NoReturn

from bpe_tui.cli.standard_output import write_stdout
from core.input_files import shown_path
from core.limits import undecodable_byte, utf8_name_problem, workers_problem

if TYPE_CHECKING:
    from core.corpus.shards import Corpus

class UsageError(Exception):
    """A bad command line; the message is one line."""


class ParserExit(Exception):
    """The parser is done (after ``--help``): exit with ``status``."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class StdoutMessages(argparse.ArgumentParser):
    """A parser whose help and version go to stdout or fail (OSError), never nowhere or to stderr."""

    def _print_message(self, message: str, file: IO[str] | None = None) -> None:
        if not message:
            return
        if file is None or file is sys.stdout:  # argparse passes sys.stdout: None once it is closed
            write_stdout(message)
        else:
            file.write(message)


class OneCorpusFormatter(argparse.HelpFormatter):
    """Shows a command's CORPUS as one: it takes several paths only to say the shell expanded a glob that was
    not quoted (:func:`one_corpus`), and ``CORPUS [CORPUS ...]`` read as if several corpora were welcome."""

    def _format_args(self, action: argparse.Action, default_metavar: str) -> str:
        if action.dest == "corpus" and action.nargs == "+":
            return self._metavar_formatter(action, default_metavar)(1)[0]
        return super()._format_args(action, default_metavar)


class CommandParser(StdoutMessages):
    """An ArgumentParser that raises :class:`UsageError` (one line) instead of printing usage and exiting."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", OneCorpusFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}; see '{self.prog} --help'")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            self._print_message(message)
        raise ParserExit(status)


class SingleCommand:
    """Stands in for argparse's subparsers when one command's parser is built on its own.

    Each command module registers itself with ``add_parser(subparsers)``; given this object instead, the
    parser it makes is a :class:`CommandParser` named ``bpe-tui NAME``, which can parse intermixed
    arguments (argparse refuses that for a parser with subparsers).
    """

    def __init__(self) -> None:
        self.parser: CommandParser | None = None

    def add_parser(self, name: str, **kwargs: Any) -> CommandParser:
        kwargs.pop("help", None)
        self.parser = CommandParser(prog=f"bpe-tui {name}", **kwargs)
        return self.parser


def _utf8_argument(text: str, problem: str | None) -> str:
    """``text``, or an ArgumentTypeError with ``problem`` (what a ``core.limits`` check found wrong)."""
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def path_text(text: str) -> str:
    """A path argument: not empty, and UTF-8 (tokenizer files record the corpus path as UTF-8 text).

    >>> path_text("corpus.txt")
    'corpus.txt'
    >>> path_text("caf\\udce9.txt")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: caf\\xe9.txt: the name is not valid UTF-8 (byte 0xe9); rename the file
    """
    if text == "":
        raise argparse.ArgumentTypeError("an empty path; give a file name")
    return _utf8_argument(text, utf8_name_problem(text))


def input_path(text: str) -> str:
    """A file a command reads that is never standard input: ``-`` is refused, as it would be read as a file
    named ``-`` (missing, so "no such file; check the path", with nothing said about stdin).

    >>> input_path("-")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: - is standard input only as the FILE of encode and decode; give a file name (./- names a file called -)
    """
    if text == "-":
        raise argparse.ArgumentTypeError("- is standard input only as the FILE of encode and decode; give a file name "
                                         "(./- names a file called -)")
    return path_text(text)


def no_such_file(name: str) -> bool:
    """Whether nothing at all is at ``name`` (not a name too long, a path through a file or a dangling link,
    which keep their own messages): encode's and decode's FILE is then likely text or ids typed in its place.

    >>> no_such_file("surely/not/here.txt"), no_such_file(".")
    (True, False)
    """
    try:
        os.lstat(name)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def special_token(text: str) -> str:
    """A ``--special-token``: valid UTF-8 text (it is stored, and matched, as text).

    >>> special_token("<|endoftext|>")
    '<|endoftext|>'
    >>> special_token("<\\udcff>")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: '<\\xff>' is not valid UTF-8 text (byte 0xff); give special tokens as UTF-8 text
    """
    return _utf8_text(text, "give special tokens as UTF-8 text")


def utf8_text(text: str) -> str:
    """A text to encode (a lens's ``--text``, ``--word``..., ``diff --text``): valid UTF-8, as any text encoded.

    A byte that is not UTF-8 reaches Python as a lone surrogate, which no tokenizer can encode: one lens
    failed on it with a traceback, the others quietly encoded U+FFFD in its place.

    >>> utf8_text("a\\udcffb")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 'a\\xffb' is not valid UTF-8 text (byte 0xff); give the text as UTF-8
    """
    return _utf8_text(text, "give the text as UTF-8")


def _utf8_text(text: str, fix: str) -> str:
    bad = undecodable_byte(text)
    problem = None if bad is None else f"'{shown_path(text)}' is not valid UTF-8 text (byte 0x{bad:02x}); {fix}"
    return _utf8_argument(text, problem)


def worker_count(text: str) -> int:
    """A ``--workers`` value: a whole number from 1 to :func:`core.limits.max_workers`.

    >>> worker_count("2")
    2
    >>> worker_count("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 0 processes: give at least 1
    """
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of processes") from None
    problem = workers_problem(count)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return count


def one_corpus(paths: str | list[str], command: str) -> str:
    """The one CORPUS of a command: several paths mean the shell expanded a glob that was not quoted.

    >>> one_corpus(["shards"], "train")
    'shards'
    >>> one_corpus(["a.jsonl", "b.jsonl"], "train")
    Traceback (most recent call last):
    core.errors.SettingsError: 2 corpus paths given (a.jsonl, b.jsonl); give one file, folder or glob, and quote a glob ('shards/*.jsonl.gz') so the shell leaves it to bpe-tui; see 'bpe-tui train --help'
    """
    if isinstance(paths, str):
        return paths
    if len(paths) == 1:
        return paths[0]
    from core.errors import SettingsError

    shown = ", ".join(shown_path(path) for path in paths[:3]) + (", ..." if len(paths) > 3 else "")
    raise SettingsError(
        f"{len(paths)} corpus paths given ({shown}); give one file, folder or glob, and quote a glob "
        f"('shards/*.jsonl.gz') so the shell leaves it to bpe-tui; see 'bpe-tui {command} --help'"
    )


def add_corpus_options(parser: argparse.ArgumentParser) -> None:
    """The options of every command that reads a corpus of shards (JSON lines, Parquet)."""
    parser.add_argument(
        "--text-field", default="text", metavar="NAME",
        help="the JSON field or Parquet/Arrow column holding each record's text; a.b is field b of an object "
        "or struct in field a (default: text)",
    )
    parser.add_argument(
        "--skip-bad-records", action="store_true",
        help="skip records that cannot be read (not JSON, no text field, not a string), count them and "
        "report them, instead of stopping at the first",
    )


def warn_unused_record_options(
    args: argparse.Namespace, corpus: str | None, command: str, stream: IO[str] | None = None,
    also: Sequence[str] = (),
) -> None:
    """One warning line when ``--text-field`` or ``--skip-bad-records`` is given for a corpus with no JSON
    lines or Parquet shard, which has no records for them to apply to: they were silently unused, so a
    user who meant another corpus (or expected them to act on text) was not told. The run goes on.
    ``also`` names other inputs read with the same options (study's ``--eval`` shards): none is warned of
    when one of them has records."""
    given = [name for name, used in (("--text-field", args.text_field != "text"),
                                     ("--skip-bad-records", args.skip_bad_records)) if used]
    if corpus is None or not given:
        return
    from core.corpus.shards import open_corpus  # here: only when those options are given
    from core.errors import BPEError

    try:
        shards = [shard for spec in (corpus, *also) for shard in open_corpus(spec).shards]
    except BPEError:
        return  # the command says what is wrong with the corpus
    if any(shard.kind in ("jsonl", "parquet", "arrow") for shard in shards):
        return
    print(f"bpe-tui {command}: warning: {' and '.join(given)} {'is' if len(given) == 1 else 'are'} for JSON "
          f"lines and Parquet records, and {shown_path(corpus)} holds plain text only: "
          f"{'it is' if len(given) == 1 else 'they are'} not used",
          file=stream or sys.stderr, flush=True)


def left_out_line(corpus: Corpus | None, command: str) -> str | None:
    """The note a command ends with when a folder search left files out for their names alone (source code,
    Markdown beside a ``.txt``): the run read the shards only, and said nothing of the rest. At the end, so
    that a command that fails says its one line alone."""
    from core.corpus.shards import left_out_note  # here: core.corpus is imported by the commands that get here

    note = left_out_note(corpus) if corpus is not None else None
    return None if note is None else f"bpe-tui {command}: note: {note}"


def add_force(parser: argparse.ArgumentParser) -> None:
    """The ``--force`` option of every command that writes files."""
    parser.add_argument(
        "--force", action="store_true",
        help="overwrite output files that already exist (an input file is never overwritten, even with --force)",
    )
