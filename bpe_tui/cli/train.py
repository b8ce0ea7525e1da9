"""``bpe-tui train``: train a tokenizer on a corpus file from the shell, with progress on stderr and atomic saves.

The command is a loop over :meth:`core.train.run.TrainingRun.events`, the same events the app shows. Each event
goes to a reporter (:mod:`bpe_tui.cli.train_display`: a live ``rich`` display when stderr is a terminal,
plain lines otherwise) and, with ``--events``, to a JSON-lines file (:mod:`bpe_tui.cli.train_events`).
Nothing is written until training has finished: the tokenizer and the events file appear by atomic
renames, as one group (both or neither, and not interleaved with another run's), so an error or Ctrl-C
leaves no partial file. Both outputs are checked before training
(:mod:`bpe_tui.cli.outputs`: never the corpus, an existing file only with ``--force``), and once saving
begins Ctrl-C waits for both renames.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, BinaryIO

from bpe_tui.cli.arguments import (
    add_corpus_options, add_force, input_path, left_out_line, one_corpus, path_text, special_token,
    warn_unused_record_options, worker_count,
)
from bpe_tui.cli.outputs import Outputs
from bpe_tui.cli.train_display import Clock, LiveReporter, PlainReporter, Reporter, TrainingStats, summary_line
from bpe_tui.cli.train_events import open_events, write_event
from bpe_tui.text import counted, unlisted_markers_line
from bpe_tui.training_spec import TrainingSpec, training_run
from core.analysis.corpus_stats import escape_controls
from core.atomic import atomic_group
from core.analysis.markers import count_markers
from core.errors import SettingsError
from core.corpus.records import SkippedRecords
from core.corpus.shards import is_url
from core.input_files import HEAD_BYTES, encoding_problem
from core.model import BASES, BYTE_BASE, CHAR_BASE
from core.train.events import TrainingFinished
from core.formats.native import to_text
from core.train.memory import RSSProbe
from core.train.run import TrainingRun


# ---------------------------------------------------------------------------------------------- arguments


def add_parser(subparsers: Any) -> None:
    """Register ``train`` and its options with the dispatcher's subparsers."""
    parser = subparsers.add_parser(
        "train",
        help="train a byte-level (or, with --base chars, character-level) BPE tokenizer on a corpus",
        description=(
            "Train a byte-level BPE tokenizer (Stanford CS336 semantics) on a UTF-8 text file, or on shards "
            "(.txt, .jsonl, .parquet, .arrow, each maybe .gz/.bz2/.xz/.zst) in a folder or a quoted glob, and save it "
            "in bpe-tui's JSON format. Each record, and each shard, is a document of its own. Progress goes to stderr: a live display on a terminal, plain lines "
            "otherwise. Nothing is written if training fails or is interrupted. Existing output files are "
            "only replaced with --force, and the corpus never is."
        ),
    )
    parser.add_argument("corpus", metavar="CORPUS", type=input_path, nargs="+",
                        help="UTF-8 text file, shard, folder of shards or quoted glob to train on")
    parser.add_argument(
        "--vocab-size", type=int, required=True, metavar="N",
        help="final vocabulary size: 256 byte tokens + the special tokens (+ the alphabet's characters, with "
        "--base chars) + the merges",
    )
    parser.add_argument(
        "--special-token", action="append", default=[], dest="special_tokens", metavar="S", type=special_token,
        help="a special token such as '<|endoftext|>' (repeatable); documents are split at it, no merge spans it",
    )
    parser.add_argument(
        "--workers", type=worker_count, default=None, metavar="K",
        help="worker processes for reading and pre-tokenising (default: all cores; the result is the same for "
        "any K; at most 4 per core)",
    )
    parser.add_argument(
        "--min-frequency", type=int, default=0, metavar="F",
        help="stop early when the most frequent pair occurs fewer than F times (default: 0, never)",
    )
    parser.add_argument(
        "--min-count", type=int, default=1, metavar="C",
        help="after counting, drop the pre-tokens seen fewer than C times in the whole corpus before merging: "
        "less memory for the merge loop, merges that may differ from the full run's (default: 1, keep all)",
    )
    parser.add_argument(
        "--errors", choices=("strict", "replace"), default="strict",
        help="invalid UTF-8 in the corpus: 'strict' (default) stops with its byte offset, 'replace' uses U+FFFD",
    )
    parser.add_argument(
        "--base", choices=BASES, default=BYTE_BASE,
        help="what merges start from: 'bytes' (default, byte-level BPE) or 'chars' (the corpus's characters, "
        "character-level BPE; the 256 bytes stay in the vocab for byte fallback)",
    )
    parser.add_argument(
        "--min-char-count", type=int, default=None, metavar="C",
        help="with --base chars: a character seen fewer than C times gets no token and is encoded as its UTF-8 "
        "bytes (byte fallback, lossless; never <unk>), and no merge includes it (default: 1, every character)",
    )
    add_corpus_options(parser)
    parser.add_argument(
        "--dask", default=None, metavar="ADDRESS",
        help="count the shards on a Dask cluster: its scheduler (tcp://HOST:8786), or local[:N] for a "
        "local cluster of N worker processes; merging stays here (needs: pip install 'bpe-tui[dask]')",
    )
    parser.add_argument(
        "-o", "--output", type=path_text, default=None, metavar="OUT.json",
        help="where to save the tokenizer (default: <corpus stem>-<N>.json in the current directory)",
    )
    parser.add_argument(
        "--events", type=path_text, default=None, metavar="EVENTS.jsonl",
        help="also save every training event, one JSON object a line",
    )
    add_force(parser)


# -------------------------------------------------------------------------------------------------- command

OUT_OF_MEMORY = (
    "try --min-count 2 (rare pre-tokens are most of them), fewer --workers, a smaller corpus or vocab size, "
    "or raise the memory limit (ulimit -v) if one is set"
)
"""The dispatcher's advice when training runs out of memory."""


def run(args: argparse.Namespace, outputs: Outputs | None = None) -> int:
    """Train as ``args`` say, report progress on stderr, save the result; 0 on success.

    Raises:
        BPEError: bad input (corpus, settings or output path); the dispatcher prints it as one line.
        KeyboardInterrupt: Ctrl-C; the run is cancelled and nothing is written.
    """
    return train_command(args, outputs=outputs)


def train_command(
    args: argparse.Namespace,
    *,
    stderr: IO[str] | None = None,
    clock: Clock = time.monotonic,
    probe: RSSProbe | None = None,
    interactive: bool | None = None,
    outputs: Outputs | None = None,
) -> int:
    """:func:`run` with its surroundings injectable: the stream, clock and RSS probe, whether to draw live,
    and the :class:`Outputs` that checks and accounts for the files written."""
    stream = stderr if stderr is not None else sys.stderr
    if outputs is None:
        outputs = Outputs("train", force=getattr(args, "force", False))
    base = getattr(args, "base", BYTE_BASE)
    min_char_count = getattr(args, "min_char_count", None)
    if min_char_count is not None and base != CHAR_BASE:
        raise SettingsError("--min-char-count applies to the character base only; add --base chars or drop it")
    spec = TrainingSpec(
        vocab_size=args.vocab_size,
        corpus_path=one_corpus(args.corpus, "train"),
        special_tokens=tuple(args.special_tokens),
        workers=args.workers,
        min_frequency=args.min_frequency,
        errors=args.errors,
        text_field=getattr(args, "text_field", "text"),
        skip_bad_records=getattr(args, "skip_bad_records", False),
        dask=getattr(args, "dask", None),
        base=base,
        min_char_count=1 if min_char_count is None else min_char_count,
        min_count=getattr(args, "min_count", 1),
    )
    warn_unused_record_options(args, spec.corpus_path, "train", stream)
    training = training_run(spec)
    assert training.path is not None
    if args.output is not None:
        output = Path(args.output)
    elif training.corpus is not None:
        output = Path(f"{training.corpus.name}-{args.vocab_size}.json")
    else:
        output = default_output(training.path, args.vocab_size)
    events = Path(args.events) if args.events is not None else None
    if training.corpus is None:
        check_outputs(outputs, training.path, output, events, default=args.output is None)
        warn_unlisted_markers(training.path, args.special_tokens, stream)
    else:
        for shard in training.corpus.shards:
            outputs.add_input(Path(shard.path), "a shard of the corpus")
        check_outputs(outputs, None, output, events, default=args.output is None)
    warn_if_empty(training, stream)
    warn_if_other_encoding(training, args.errors, stream)

    if interactive is None:
        interactive = _is_terminal(stream)
    stats = TrainingStats(clock=clock, probe=probe if probe is not None else RSSProbe())
    reporter: Reporter = (
        LiveReporter(stats, stream, corpus=training.path, output=output)
        if interactive
        else PlainReporter(stats, stream)
    )
    with outputs.saving():
        with _interrupt_main_process_only(), reporter:
            # The events file and the tokenizer are one group (core.atomic.atomic_group): both on disk before
            # either is renamed (a full disk is met before anything is in place), neither left if the renames
            # are cut in two, and a run saving the same files at that moment waits for these renames rather
            # than leaving its events beside this tokenizer.
            with atomic_group() as group:
                sink = open_events(group, events, training)
                finished = drive(training, reporter, sink)
                outputs.hold()  # saving starts: Ctrl-C now waits, so both files are renamed or neither is
                group.open(output).write(to_text(finished.model).encode("utf-8"))
            written = [output]
        if training.skipped.count:
            reporter.finish(skipped_line(training))
        for note in (no_text_line(training, stats.unique_pretokens), left_out_line(training.corpus, "train")):
            if note is not None:
                reporter.finish(note)
        if training.min_count > 1:
            reporter.finish(
                f"dropped {counted(training.pretokens_pruned, 'unique pre-token')} seen fewer than "
                f"{training.min_count:,} times (--min-count) before merging"
            )
        reporter.finish(summary_line(stats, finished, written, events))
    return 0


def skipped_line(training: TrainingRun) -> str:
    """The line that reports the bad records ``--skip-bad-records`` left out: how many, where, the first."""
    return records_skipped(training.skipped)


def records_skipped(skipped: SkippedRecords) -> str:
    """:func:`skipped_line` of any reading's skipped records (a study's ``--eval`` shards too)."""
    shards = len(skipped.by_shard)
    first = escape_controls(skipped.first or "", keep="")
    return (
        f"skipped {skipped.count:,} bad record{'s' if skipped.count != 1 else ''} in {shards} "
        f"shard{'s' if shards != 1 else ''}; the first: {first}"
    )


def drive(training: TrainingRun, reporter: Reporter, sink: BinaryIO | None) -> TrainingFinished:
    """Iterate the run's events into the reporter and the events file; return the final event.

    On Ctrl-C the run is cancelled and its generator closed, which stops any worker processes, before
    the interrupt goes on to the dispatcher.
    """
    events = training.events()
    finished: TrainingFinished | None = None
    try:
        for event in events:
            reporter.observe(event)
            if sink is not None:
                write_event(sink, event)
            if isinstance(event, TrainingFinished):
                finished = event
    except BaseException:
        training.cancel()
        raise
    finally:
        events.close()
    if finished is None:
        # The run ended without finishing: only cancel() does that, and only Ctrl-C calls it here.
        raise KeyboardInterrupt
    return finished


def warn_if_empty(training: TrainingRun, stream: IO[str]) -> None:
    """Print one warning line when every file of the corpus is empty (0 bytes): the run goes on (a tokenizer
    of the bytes alone may be what is wanted), but a failed download should not pass for a trained model."""
    if training.corpus is not None:
        sizes = [shard.size for shard in training.corpus.shards]
    else:
        try:
            sizes = [training.path.stat().st_size] if training.path is not None else [1]
        except OSError:
            return  # the run says what is wrong with the file
    if not any(sizes):
        shown = escape_controls(str(training.path), keep="")
        what = "is empty (0 bytes)" if len(sizes) == 1 else f"has {len(sizes)} shards, all empty (0 bytes)"
        print(f"bpe-tui train: warning: {shown} {what}: the tokenizer will hold the bytes and special tokens "
              "alone", file=stream, flush=True)


WARNED_SHARDS = 64
"""Text shards whose start is looked at for another encoding (a large folder is one encoding throughout)."""


def warn_if_other_encoding(training: TrainingRun, errors: str, stream: IO[str]) -> None:
    """One warning line when ``errors`` is ``replace`` and a text file starts as UTF-16, Shift_JIS or
    EUC-JP would: strict reading names the encoding and stops, but with ``replace`` the run would train on
    the file's bytes as noise, and a Japanese file from Aozora Bunko (Shift_JIS) looks like any other."""
    if errors != "replace":
        return
    if training.corpus is None:
        paths = [training.path] if training.path is not None else []
    else:
        paths = [Path(shard.path) for shard in training.corpus.shards if shard.plain_text][:WARNED_SHARDS]
    for path in paths:
        if is_url(str(path)) or not path.is_file():  # a FIFO would block; a URL is read by the run
            continue
        try:
            with open(path, "rb") as handle:
                head = handle.read(HEAD_BYTES)
            problem = None if b"\0" in head else encoding_problem(head)  # a NUL byte stops the run anyway
        except OSError:
            continue  # the run says what is wrong with the file
        if problem is not None:
            shown = escape_controls(str(path), keep="")
            print(f"bpe-tui train: warning: {shown}: {problem}; with errors 'replace' its bytes are trained on "
                  "as noise", file=stream, flush=True)
            return


def no_text_line(training: TrainingRun, unique_pretokens: int) -> str | None:
    """A warning when a corpus that is not empty held no text to train on (a Parquet file of no rows, records
    that are all empty, a file of special tokens alone): the run saved the bytes and special tokens alone,
    which its last line alone ('no pair left to merge') did not tell from a corpus of short words. None
    otherwise, and for a corpus of empty files, which :func:`warn_if_empty` told of before the run."""
    if unique_pretokens + training.pretokens_pruned:
        return None
    if training.corpus is not None:
        if not any(shard.size for shard in training.corpus.shards):
            return None
        documents = training.documents
        held = f"{counted(documents, 'document')}, all empty" if documents else "no documents"
    else:
        try:
            if training.path is None or training.path.stat().st_size == 0:
                return None
        except OSError:
            return None
        held = "special tokens alone"
    shown = escape_controls(str(training.path), keep="")
    return (f"bpe-tui train: warning: {shown} held no text to train on ({held}): the tokenizer holds the bytes "
            "and special tokens alone")


def warn_unlisted_markers(corpus: Path, special_tokens: list[str], stream: IO[str], command: str = "train") -> None:
    """Print one warning line if the corpus holds ``<|name|>`` markers not given with ``--special-token``
    (``bpe-tui train``'s, or ``command``'s: study trains on the corpus too).

    Training goes on: the markers may be meant as text. The scan is one extra pass over the file in
    bounded memory; if it cannot read the file, it says nothing, and training reports why it cannot.
    """
    try:
        markers = count_markers(corpus, special_tokens)
    except OSError:
        return
    if markers:
        example = escape_controls(markers.counts[0][0], keep='') if markers.counts else "<|endoftext|>"
        print(
            f"bpe-tui {command}: warning: {escape_controls(str(corpus), keep='')}: {unlisted_markers_line(markers)}; "
            f"to keep each whole, pass it with --special-token (e.g. --special-token '{example}')",
            file=stream,
            flush=True,
        )


def default_output(corpus: Path, vocab_size: int) -> Path:
    """``<corpus stem>-<vocab size>.json`` in the current directory.

    >>> default_output(Path("data/english.txt"), 400)
    PosixPath('english-400.json')
    """
    return Path(f"{corpus.stem}-{vocab_size}.json")


def check_outputs(
    outputs: Outputs, corpus: Path | None, output: Path, events: Path | None, *, default: bool = False
) -> None:
    """Refuse, before any training, output paths that could not be written or would overwrite an input.

    Raises:
        OutputError: a directory is missing or not writable, a path is a directory, or a file exists and
            ``--force`` was not given.
        SettingsError: an output path is the corpus, or both outputs are the same file.
    """
    if corpus is not None:
        outputs.add_input(corpus, "the corpus itself")
    # Without -o, "-o corpus-300.json already exists" named an option the user never gave.
    outputs.add(output, "the default output (-o)" if default else "-o")
    if events is not None:
        outputs.add(events, "--events")


@contextlib.contextmanager
def _interrupt_main_process_only() -> Iterator[None]:
    """While training, let Ctrl-C raise KeyboardInterrupt in this process only.

    A terminal sends SIGINT to the whole process group, including the trainer's pre-tokenising
    workers, which inherit this handler across ``fork``. Left alone, each worker would print its own traceback; with
    it they keep quiet and the parent, cancelling the run, terminates them. A SIGINT that was being
    ignored (a background job) or handled by someone else is left as it was.
    """
    main_pid = os.getpid()

    def on_sigint(signum: int, frame: Any) -> None:
        if os.getpid() == main_pid:
            raise KeyboardInterrupt

    previous: Any = None
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            previous = signal.signal(signal.SIGINT, on_sigint)
    except ValueError:  # not the main thread: signals are not ours to handle
        previous = None
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False
