"""``bpe-tui export``: encode a corpus to a ``.npy`` array of ids for training a model, with progress on stderr.

The work is :func:`core.export.run.export_events`; this module only chooses how progress looks: one
rewritten line on a terminal, and otherwise plain lines at most every few seconds (logs and CI output
should not fill up with carriage returns), and checks the output before any work
(:mod:`bpe_tui.cli.outputs`: never the corpus or the tokenizer, an existing file only with ``--force``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path

from bpe_tui.cli.arguments import add_force, path_text, worker_count
from bpe_tui.cli.outputs import Outputs
from bpe_tui.cli.tokenizer_inputs import add_tokenizer_inputs
from bpe_tui.text import counted, escape_token, format_duration, format_rate, rate
from core.export.run import ExportFinished, export_events
from core.formats import load_tokenizer
from core.train.reading import check_corpus_path

PLAIN_INTERVAL = 2.0
"""Seconds between progress lines when stderr is not a terminal."""

TTY_INTERVAL = 0.1
"""Seconds between redraws of the progress line on a terminal."""

CLEAR = "\r\x1b[K"
"""Back to the start of the line and clear it: redraws the progress line in place."""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="encode a corpus to a .npy array of token ids",
        description="Encode CORPUS with TOKENIZER into a .npy file (uint16 when ids fit, else uint32), "
        "in parallel; the ids equal encoding the whole file at once. An existing output file is only "
        "replaced with --force, and an input never is.",
    )
    parser.add_argument("corpus", metavar="CORPUS", type=path_text, help="UTF-8 text file")
    parser.add_argument("tokenizer", metavar="TOKENIZER", type=path_text,
                        help="tokenizer file of any supported format, or its folder")
    parser.add_argument("-o", "--output", required=True, metavar="IDS.npy", type=path_text,
                        help="output .npy file (written atomically)")
    parser.add_argument("--workers", type=worker_count, default=os.cpu_count() or 1, metavar="K",
                        help="processes encoding in parallel (default: number of CPUs; at most 4 per CPU)")
    parser.add_argument("--merges", metavar="PATH", type=path_text,
                        help="merges.txt for a GPT-2 vocab.json (default: found beside it)")
    add_force(parser)


def run(args: argparse.Namespace, outputs: Outputs) -> int:
    model = load_tokenizer(Path(args.tokenizer), merges_path=args.merges)
    check_corpus_path(args.corpus)
    outputs.add_input(args.corpus, "the corpus")
    add_tokenizer_inputs(outputs, Path(args.tokenizer), args.merges)
    output = outputs.add(args.output, "-o")
    err = sys.stderr
    tty = err.isatty()
    interval = TTY_INTERVAL if tty else PLAIN_INTERVAL
    started = last = time.monotonic()
    # closing(): on Ctrl-C the export stops its workers and removes its temporary file right away.
    with contextlib.closing(export_events(Path(args.corpus), model, output, workers=args.workers)) as events:
        for event in events:
            now = time.monotonic()
            if isinstance(event, ExportFinished):
                elapsed = now - started
                err.write(
                    f"{CLEAR if tty else ''}exported {counted(event.tokens, 'token')} ({event.dtype}) from "
                    f"{counted(event.corpus_bytes, 'byte')} to {escape_token(str(event.path), glyphs=False)} in "
                    f"{format_duration(elapsed)} "
                    f"({format_rate(rate(event.corpus_bytes, elapsed), 'B')})\n"
                )
            elif now - last >= interval:
                last = now
                percent = 100 * event.done_bytes / event.total_bytes if event.total_bytes else 100.0
                line = (f"encoding: {percent:5.1f}%  {event.done_bytes:,}/{event.total_bytes:,} bytes  "
                        f"{event.tokens:,} tokens")
                err.write(f"{CLEAR}{line}" if tty else f"{line}\n")
                err.flush()
    return 0
