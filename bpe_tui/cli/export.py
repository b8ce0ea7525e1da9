"""``bpe-tui export``: encode a corpus to a ``.npy`` array of ids for training a model, with progress on stderr.

The work is :func:`core.export.run.export_events`; this module only chooses how progress looks: one
rewritten line with the rate and ETA on a terminal, and otherwise plain lines at most every few seconds
(logs and CI output should not fill up with carriage returns), and checks the outputs (the array and its
sidecar, ``IDS.npy.json``) before any work (:mod:`bpe_tui.cli.outputs`: never the corpus or the
tokenizer, an existing file only with ``--force``). Once the two are renamed into place, Ctrl-C waits,
so that both are saved or neither. ``--per-shard``'s new folder (every array with its sidecar) appears
by one rename, so it needs no wait. At the end it prints the measured rate and, with ``--estimate SIZE``,
how long a corpus of that size would take at that rate.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path

from bpe_tui.cli.arguments import (
    add_corpus_options, add_force, input_path, left_out_line, one_corpus, path_text, warn_unused_record_options,
    worker_count,
)
from bpe_tui.cli.outputs import Outputs
from bpe_tui.cli.tokenizer_inputs import add_tokenizer_inputs
from bpe_tui.text import (
    counted, escape_token, eta, format_bytes, format_duration, format_eta, format_rate, rate, unlisted_markers_line,
)
from bpe_tui.throughput import CorpusSize, estimate_line, parse_size, small_sample_note
from core.analysis.markers import count_markers
from core.corpus import open_corpus
from core.export.run import ExportFinished, ExportProgress, ExportSaving, export_events
from core.export.shards import export_shard_events
from core.export.sidecar import sidecar_path
from core.formats import load_tokenizer
from core.model import BPEModel

PLAIN_INTERVAL = 2.0
"""Seconds between progress lines when stderr is not a terminal."""

TTY_INTERVAL = 0.1
"""Seconds between redraws of the progress line on a terminal."""

CLEAR = "\r\x1b[K"

OUT_OF_MEMORY = "try fewer --workers, or raise the memory limit (ulimit -v) if one is set"
"""The dispatcher's advice when an export runs out of memory (each worker holds a tokenizer and its cache)."""
"""Back to the start of the line and clear it: redraws the progress line in place."""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="encode a corpus to a .npy array of token ids",
        description="Encode CORPUS with TOKENIZER into a .npy file (uint16 when ids fit, else uint32), "
        "in parallel; the ids equal encoding the whole file at once. A corpus of shards (.jsonl, .parquet, .arrow, "
        "compressed, a folder or a quoted glob) gives the ids of its documents joined by the tokenizer's "
        "first special token, as in one text file. Beside it, IDS.npy.json records the tokenizer's "
        "fingerprint and the corpus (bpe-tui verify checks them). An existing output file is only replaced "
        "with --force, and an input never is.",
    )
    parser.add_argument("corpus", metavar="CORPUS", type=input_path, nargs="+",
                        help="UTF-8 text file, shard, folder of shards or quoted glob")
    parser.add_argument("tokenizer", metavar="TOKENIZER", type=input_path,
                        help="tokenizer file of any supported format, or its folder")
    parser.add_argument("-o", "--output", required=True, metavar="IDS.npy", type=path_text,
                        help="output .npy file (written atomically); with --per-shard a new folder")
    parser.add_argument("--per-shard", action="store_true",
                        help="write one .npy per shard into the new folder -o, named after the shard")
    add_corpus_options(parser)
    parser.add_argument("--workers", type=worker_count, default=os.cpu_count() or 1, metavar="K",
                        help="processes encoding in parallel (default: number of CPUs; at most 4 per CPU)")
    parser.add_argument("--merges", metavar="PATH", type=input_path,
                        help="merges.txt for a GPT-2 vocab.json (default: found beside it)")
    parser.add_argument("--estimate", metavar="SIZE", type=_size,
                        help="also print how long a corpus of SIZE (825GB, 1.5TB, 300MiB) would take at the "
                        "measured rate")
    add_force(parser)


def _size(text: str) -> CorpusSize:
    try:
        return parse_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def run(args: argparse.Namespace, outputs: Outputs) -> int:
    model = load_tokenizer(Path(args.tokenizer), merges_path=args.merges)
    warn_unused_record_options(args, one_corpus(args.corpus, "export"), "export")
    corpus = open_corpus(one_corpus(args.corpus, "export"))
    for shard in corpus.shards:
        outputs.add_input(shard.path, "the corpus")
    add_tokenizer_inputs(outputs, Path(args.tokenizer), args.merges)
    if args.per_shard:
        output = Path(args.output)
        if not os.path.lexists(output):  # an existing one the export refuses, saying why
            outputs.add(output, "-o")  # so that after Ctrl-C the command can tell whether the folder is saved
        events = export_shard_events(corpus, model, output, workers=args.workers, per_shard=True,
                                     text_field=args.text_field, skip_bad_records=args.skip_bad_records)
    else:
        output = outputs.add(args.output, "-o")
        outputs.add(sidecar_path(output), "-o's sidecar")
        if corpus.single_plain_text:
            warn_unlisted_markers(Path(corpus.spec), model, args.tokenizer)
            events = export_events(Path(corpus.spec), model, output, workers=args.workers)
        else:
            events = export_shard_events(corpus, model, output, workers=args.workers,
                                         text_field=args.text_field, skip_bad_records=args.skip_bad_records)
    # Records are documents, and so is each text shard (one array holds them all unless --per-shard).
    several = any(shard.kind != "text" for shard in corpus.shards) or (len(corpus.shards) > 1 and not args.per_shard)
    if several and not model.special_tokens:  # the documents are joined by the first special token
        sys.stderr.write(
            f"bpe-tui export: warning: {escape_token(args.tokenizer, glyphs=False)} has no special token, so the ids "
            "of the corpus's documents follow one another with nothing to mark where each ends; export with a "
            "tokenizer that has one, such as <|endoftext|> (a .tiktoken rank file holds none)\n"
        )
    err = sys.stderr
    tty = err.isatty()
    interval = TTY_INTERVAL if tty else PLAIN_INTERVAL
    started = last = time.monotonic()
    # closing(): on Ctrl-C the export stops its workers and removes its temporary files right away.
    skipped = 0
    with outputs.saving(), contextlib.closing(events):
        for event in events:
            now = time.monotonic()
            if isinstance(event, ExportSaving):
                outputs.hold()  # the array and its sidecar are renamed both or neither
            elif not isinstance(event, (ExportFinished, ExportProgress)):  # one shard done
                skipped += event.skipped.count
                if event.skipped.count:
                    err.write(f"{CLEAR if tty else ''}skipped {counted(event.skipped.count, 'bad record')}; the first: "
                              f"{escape_token(event.skipped.first or '', glyphs=False)}\n")
            elif isinstance(event, ExportFinished):
                elapsed = now - started
                # The rate, and the estimate from it, is of text: a compressed or Parquet corpus's files hold
                # several times their size of it, and 825 GB of a corpus means its text.
                speed = rate(event.corpus_bytes if event.text_bytes is None else event.text_bytes, elapsed)
                err.write(
                    f"{CLEAR if tty else ''}exported {counted(event.tokens, 'token')} ({event.dtype}) from "
                    f"{read_from(event)} to {escape_token(str(event.path), glyphs=False)} in "
                    f"{format_duration(elapsed)} ({format_rate(speed, 'B')}, "
                    f"{format_rate(rate(event.tokens, elapsed), 'tokens')})\n"
                )
                note = left_out_line(corpus, "export")
                if note is not None:
                    err.write(f"{note}\n")
                if args.estimate is not None:
                    err.write(estimate_text(speed, args.estimate, event) + "\n")
            elif isinstance(event, ExportProgress) and now - last >= interval:
                last = now
                err.write(f"{CLEAR}{progress_line(event, now - started)}" if tty else
                          f"{progress_line(event, now - started)}\n")
                err.flush()
    return 0


MARKER_SCAN_BYTES = 64 << 20
"""How much of a text corpus export looks through for ``<|name|>`` markers its tokenizer lacks: enough to meet a
document separator, without a second pass over a corpus of hundreds of GB."""


def warn_unlisted_markers(corpus: Path, model: BPEModel, tokenizer: str) -> None:
    """One warning line when the corpus holds ``<|name|>`` markers that are not special tokens of the tokenizer:
    each is then encoded in pieces ('<|', 'endoftext', '|>'), and a model trained on the ids never sees a
    document end. A ``.tiktoken`` rank file holds no special tokens at all, and ``convert`` only notes that."""
    try:
        markers = count_markers(corpus, model.special_tokens, max_bytes=MARKER_SCAN_BYTES)
        whole = corpus.stat().st_size <= MARKER_SCAN_BYTES
    except OSError:
        return  # the export says what is wrong with the file
    if markers:
        where = "" if whole else f" (its first {format_bytes(MARKER_SCAN_BYTES)})"
        sys.stderr.write(
            f"bpe-tui export: warning: {escape_token(str(corpus), glyphs=False)}{where}: "
            f"{unlisted_markers_line(markers, fate='encoded')} by {escape_token(tokenizer, glyphs=False)}, each in "
            "pieces; export with a tokenizer that has them as special tokens (a .tiktoken rank file holds none)\n"
        )
        sys.stderr.flush()


def estimate_text(speed: float | None, size: CorpusSize, event: ExportFinished) -> str:
    """The ``--estimate`` line: ``size`` at the measured ``speed`` (bytes of text a second), with a note when the
    export was too small for its rate to hold over a large corpus."""
    if speed is None:
        return "estimate: none, the corpus was empty (no rate to go on)"
    note = small_sample_note(event.corpus_bytes if event.text_bytes is None else event.text_bytes)
    return f"estimate: {estimate_line(speed, size)}" + (f"; {note}" if note else "")


def read_from(event: ExportFinished) -> str:
    """What the export read, for its last line: a text file's bytes, or a corpus of shards' text and files.

    >>> from pathlib import Path
    >>> read_from(ExportFinished(Path("i.npy"), 3, "uint16", 2048, None, text_bytes=9000))  # type: ignore[arg-type]
    '9,000 bytes of text (2.0 KiB of shards)'
    """
    if event.text_bytes is None:
        return counted(event.corpus_bytes, "byte")
    return f"{counted(event.text_bytes, 'byte')} of text ({format_bytes(event.corpus_bytes)} of shards)"


def progress_line(event: ExportProgress, elapsed: float) -> str:
    """The progress line: how far, the byte rate so far and the time left at that rate.

    >>> progress_line(ExportProgress(done_bytes=2 << 20, total_bytes=8 << 20, tokens=500_000), 2.0)
    'encoding:  25.0%  2,097,152/8,388,608 bytes  500,000 tokens  1.0 MiB/s  ETA 6.0 s'
    """
    percent = 100 * event.done_bytes / event.total_bytes if event.total_bytes else 100.0
    left = eta(event.done_bytes, event.total_bytes, elapsed)
    return (f"encoding: {percent:5.1f}%  {event.done_bytes:,}/{event.total_bytes:,} bytes  {event.tokens:,} tokens  "
            f"{format_rate(rate(event.done_bytes, elapsed), 'B')}  {format_eta(left)}")
