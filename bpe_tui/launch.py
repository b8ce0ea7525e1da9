"""``bpe-tui [PATH...]``: sort the paths into tokenizer files and corpus files, then build and run the app."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

from core.corpus.shards import open_corpus, shard_format
from core.errors import CorpusError
from core.formats.folders import folder_candidates
from core.formats.tiktoken_cache import REFERENCE_ENCODINGS
from bpe_tui import __version__
from bpe_tui.cli.arguments import StdoutMessages
from bpe_tui.cli.standard_output import stdout_failed
from core.input_files import os_problem, shown_path

TOKENIZER_SUFFIXES = (".json", ".tiktoken", ".model", ".bpe", ".merges")
"""File endings taken as tokenizer files; anything else is a corpus. Directories are tokenizers
(``tokenizer.json`` or ``vocab.json`` + ``merges.txt`` inside), except a folder of corpus shards without
one."""


class UsageError(Exception):
    """Bad command-line arguments; the message is one line."""


class _Parser(StdoutMessages):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="bpe-tui",
        description="Open the app. Tokenizer files (any supported format) are loaded; other files are "
        "offered as corpora. With no paths, a small tokenizer is trained on the bundled samples.",
    )
    parser.add_argument(
        "paths", nargs="*", type=Path, metavar="PATH",
        help="tokenizer files and/or corpus files; cl100k_base or o200k_base loads that encoding from tiktoken's cache",
    )
    parser.add_argument("--theme", default=None, help="a Textual theme name (e.g. textual-dark)")
    parser.add_argument("--no-train", action="store_true", help="do not train the sample tokenizer at start-up")
    parser.add_argument("-V", "--version", action="version", version=f"bpe-tui {__version__}")
    return parser


def is_tokenizer_path(path: Path) -> bool:
    """Whether ``path`` names a tokenizer (by kind and ending; its content is checked when it loads).

    Judging by content here would turn a corrupt ``tok.json`` into a corpus silently; by ending, it
    becomes a clear load error instead.
    """
    if path.is_dir():
        return not _is_shard_folder(path)
    if path.suffix.lower() in TOKENIZER_SUFFIXES:
        return True
    if shard_format(path.name)[0] == "jsonl":  # .jsonl, .ndjson: records start with '{' too
        return False
    if path.name.endswith("merges.txt") or path.name.endswith("vocab.txt"):
        return True
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False  # a FIFO would block the open below; the corpus pane refuses it with a message
        with open(path, "rb") as handle:
            return handle.read(1) == b"{"
    except OSError:
        return False


def _is_shard_folder(path: Path) -> bool:
    """A folder without a tokenizer in it, holding corpus shards other than ``.json`` files (a ``.json``
    may be a tokenizer file as well as JSON lines: a folder of those stays a tokenizer folder, as before)."""
    if folder_candidates(path):
        return False
    try:
        corpus = open_corpus(path)
    except CorpusError:
        # A shard that cannot be read (a Git LFS pointer, a dangling link) still makes the folder a corpus,
        # which the corpus pane then says is wrong; loaded as a tokenizer, it said there was no tokenizer.
        return any(kind is not None and not name.lower().endswith(".json")
                   for _, _, names in os.walk(path) for name in names for kind in shard_format(name)[:1])
    return any(not shard.path.lower().endswith(".json") for shard in corpus.shards)


def sort_paths(paths: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """Split into (tokenizer paths, corpus paths).

    Raises:
        UsageError: a path does not exist.
    """
    tokenizers: list[Path] = []
    corpora: list[Path] = []
    for path in paths:
        if str(path) in REFERENCE_ENCODINGS and not os.path.lexists(path):
            tokenizers.append(path)  # a reference encoding by name, read from tiktoken's cache when it loads
            continue
        try:
            os.stat(path)
        except OSError as error:  # missing, or a path too long, through a file, round a symlink loop
            raise UsageError(f"{shown_path(path)}: {os_problem(error)}") from None
        (tokenizers if is_tokenizer_path(path) else corpora).append(path.resolve())
    return _one_per_gpt2_pair(tokenizers), corpora


def _one_per_gpt2_pair(paths: list[Path]) -> list[Path]:
    """Keep one of a GPT-2 ``vocab.json`` + ``merges.txt`` pair named together: they are one tokenizer.

    Either file loads the pair (the loader finds its partner in the same folder), so naming both would
    otherwise open the same tokenizer twice.
    """
    kept: list[Path] = []
    pair_folders: set[Path] = set()
    for path in paths:
        if path.is_file() and (path.name.endswith("merges.txt") or path.name.endswith("vocab.json")):
            if path.parent in pair_folders:
                continue
            pair_folders.add(path.parent)
        kept.append(path)
    return kept


def terminal_problem(stdin: object, stderr: object, term: str | None) -> str | None:
    """Why the app cannot run with these streams and ``TERM``, in one line, or None when it can.

    Textual reads keys from stdin and draws on stderr. Without a terminal on both (a notebook's
    ``!bpe-tui``, a pipe, a cron job) the app waited for keys that never came, writing escape codes to
    whatever stderr was; with ``TERM=dumb`` (Emacs' ``M-x shell``) the escape codes were shown as text.

    >>> terminal_problem(None, None, "xterm-256color")
    'the app needs a terminal: stdin and stderr are not one here (a notebook, a pipe or a script?); run it in a terminal, or use the commands (bpe-tui --help), which need none'
    """
    def is_terminal(stream: object) -> bool:
        isatty = getattr(stream, "isatty", None)
        try:
            return bool(isatty()) if callable(isatty) else False
        except (OSError, ValueError):  # a closed stream
            return False

    if (term or "").strip() == "dumb":
        return ("TERM=dumb: this terminal cannot draw the app; run it in a terminal emulator, "
                "or use the commands (bpe-tui --help), which need none")
    missing = [name for name, stream in (("stdin", stdin), ("stderr", stderr)) if not is_terminal(stream)]
    if missing:
        which = " and ".join(missing)
        verb = "are not one" if len(missing) == 2 else "is not one"
        return (f"the app needs a terminal: {which} {verb} here (a notebook, a pipe or a script?); "
                "run it in a terminal, or use the commands (bpe-tui --help), which need none")
    return None


def launch_app(argv: list[str]) -> int:
    """Parse ``argv`` (without the program name), run the app, return the exit status (2 on bad arguments)."""
    try:
        args = build_parser().parse_args(argv)
        tokenizers, corpora = sort_paths(args.paths)
    except UsageError as error:
        print(f"bpe-tui: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # --help or --version with stdout full, closed or gone
        return stdout_failed(error, "bpe-tui")
    from bpe_tui.app import BpeTuiApp
    from bpe_tui.session import Session, find_samples_dir
    from bpe_tui.termination import exit_on_termination, termination_line

    session = Session(samples_dir=find_samples_dir())
    if corpora:
        session.corpus_path = corpora[0]
    start_mode = "corpus" if corpora and not tokenizers else None
    app = BpeTuiApp(
        session=session,
        tokenizer_paths=tokenizers,
        train_on_start=not args.no_train,
        start_mode=start_mode,
        reference_on_start=not tokenizers,
    )
    if args.theme is not None:
        if args.theme not in app.available_themes:
            names = ", ".join(sorted(app.available_themes))
            print(f"bpe-tui: error: no theme {args.theme!r}; choose one of: {names}", file=sys.stderr)
            return 2
        app.theme = args.theme
    problem = terminal_problem(sys.stdin, sys.stderr, os.environ.get("TERM"))
    if problem is not None:
        if sys.stderr is not None:
            print(f"bpe-tui: error: {problem}", file=sys.stderr)
        return 2
    with exit_on_termination(app):
        app.run()
    terminated = termination_line(app.return_code)
    if terminated is not None:
        print(terminated, file=sys.stderr)
    elif len(corpora) > 1:
        print(f"bpe-tui: note: only the first corpus ({corpora[0]}) was opened", file=sys.stderr)
    return app.return_code or 0
