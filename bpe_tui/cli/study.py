"""``bpe-tui study``: which vocabulary size to pick, from one training run at the largest size.

Trains once (merges form a prefix, so every smaller tokenizer is a cut of the largest), then prints one row
per size: the time the run took to reach it, tokens and bytes per token on each evaluation text (the
corpus, the bundled English and Japanese samples, and any ``--eval`` files), the longest token, the share
of bare bytes in Japanese and the embedding parameters V x d; then, per size and text, the characters and
bytes the first context window of each ``--windows`` size covers; or, with ``--json``, the same as one
object. The corpus may be a text file or shards, read as ``train`` reads them (``--text-field``,
``--skip-bad-records``, ``--errors``); its first 4 MiB are its evaluation text (``core.analysis.study_corpus``).
Writes no files.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bpe_tui.cli.arguments import (
    add_corpus_options, input_path, one_corpus, special_token, warn_unused_record_options, worker_count,
)
from bpe_tui.cli.outputs import Outputs
from bpe_tui.cli.standard_output import json_line
from bpe_tui.cli.train import records_skipped, skipped_line, warn_unlisted_markers
from bpe_tui.sample_files import sample_paths
from bpe_tui.text import cell_width, escape_token, pad_cells
from core.analysis.corpus_stats import escape_controls
from core.analysis.coverage import DEFAULT_WINDOWS, parse_windows
from core.analysis.study import Study, StudyFinished, StudyRun, parse_sizes
from core.analysis.study_corpus import EvaluationText, corpus_sample
from core.corpus import open_corpus
from core.errors import SettingsError
from core.model import BASES, BYTE_BASE, CHAR_BASE
from core.train.reading import read_text_file


OUT_OF_MEMORY = "try fewer or smaller --sizes, a smaller corpus, or raise the memory limit (ulimit -v) if one is set"
"""The dispatcher's advice when a study runs out of memory."""


def _sizes(text: str) -> list[int]:
    try:
        return parse_sizes(text)
    except SettingsError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _windows(text: str) -> tuple[int, ...]:
    try:
        return parse_windows(text)
    except SettingsError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "study",
        help="compare vocabulary sizes from one training run",
        description="Train once at the largest size and report, for every size, the time to reach it, tokens and "
        "bytes/token on each evaluation text, the longest token, bare bytes in Japanese, V*d embedding parameters "
        "and how much of each text the first context window covers. The corpus is a text file or shards, as for "
        "train; its first 4 MiB (whole documents, joined by the first special token) are its evaluation text.",
    )
    parser.add_argument("corpus", metavar="CORPUS", type=input_path, nargs="+",
                        help="UTF-8 text file, shard, folder of shards or quoted glob to train on")
    parser.add_argument("--sizes", metavar="V,V,...", type=_sizes, required=True,
                        help="vocabulary sizes, comma-separated (e.g. 300,500,1000,5000,10000)")
    parser.add_argument("--eval", metavar="FILE", type=input_path, action="append", default=[],
                        help="another evaluation text (repeatable): a text file, or shards read as the corpus is "
                        "(a held-out .jsonl, with --text-field); the corpus and the bundled samples always are")
    parser.add_argument("--d", metavar="D", type=int, default=768, help="embedding width for V*d (default 768)")
    parser.add_argument("--windows", metavar="N,N,...", type=_windows, default=DEFAULT_WINDOWS,
                        help="context windows in tokens whose coverage is reported, up to 4 (default 128,1024,8192; "
                        "8k is 8,192)")
    parser.add_argument("--special-token", metavar="S", type=special_token, action="append", default=[],
                        help="special token (repeatable), as for train")
    parser.add_argument("--workers", metavar="K", type=worker_count,
                        help="processes for reading the corpus (default: all cores; the result is the same for any "
                        "K; at most 4 per core)")
    parser.add_argument("--errors", choices=("strict", "replace"), default="strict",
                        help="invalid UTF-8 in the corpus, as for train: 'strict' (default) stops with its byte "
                        "offset, 'replace' trains and evaluates on U+FFFD")
    parser.add_argument("--base", choices=BASES, default=BYTE_BASE,
                        help="train from bytes (default) or from the corpus's characters ('chars', as train "
                        "--base chars): run both on Japanese to compare tokens and bare bytes")
    parser.add_argument("--min-char-count", metavar="C", type=int, default=None,
                        help="with --base chars: characters seen fewer than C times fall back to bytes (default 1)")
    add_corpus_options(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")


def evaluation_texts(
    corpus: EvaluationText, extra: list[str], special_tokens: Sequence[str] = (), **reading: Any
) -> dict[str, EvaluationText]:
    """Name -> text: ``corpus``, the bundled English and Japanese samples, then each ``--eval`` file by stem.

    An ``--eval`` of shards (a held-out ``.jsonl``, Parquet or compressed file, a folder or a glob) is read as
    the corpus is (``reading``: its text field, bad records skipped or not, errors), its documents joined by the
    first special token and capped at the corpus's 4 MiB, a note on stderr saying so: read as plain text, a
    ``.jsonl`` was measured as its JSON (Japanese as ``\\u`` escapes) and a ``.gz`` was refused as binary.
    """
    texts: dict[str, EvaluationText] = {"corpus": corpus}
    for name, path in sample_paths().items():
        if name in ("english", "japanese"):
            texts[name] = read_text_file(path)
    for given in extra:
        opened = open_corpus(given)
        stem = Path(given).stem if opened.single_plain_text else opened.name
        name, n = stem, 2
        while name in texts:
            name, n = f"{stem}-{n}", n + 1
        if opened.single_plain_text:
            texts[name] = read_text_file(given)
            continue
        sample = corpus_sample(given, special_tokens, **reading)
        texts[name] = sample.text
        note = sample_note(given, sample.bytes, sample.capped, column=name)
        if note is not None:
            sys.stderr.write(note + "\n")
        if sample.skipped.count:
            sys.stderr.write(f"--eval {escape_controls(given, keep='')}: {records_skipped(sample.skipped)}\n")
    return texts


NAME_CELLS = 18
"""Terminal cells an evaluation text's name may take in the tables (a Japanese character takes two)."""


def _column_name(name: str) -> str:
    """An evaluation text's name (an ``--eval`` file's stem) as a column shows it: control characters and
    escape sequences written out, so a file name cannot colour or move the terminal; then cut to
    :data:`NAME_CELLS` terminal cells, not characters (a kanji takes two).

    >>> print(_column_name("x\\x1b[31mred"))
    x\\x1b[31mred
    >>> _column_name("技術文書サンプルの評価用"), _column_name("a_very_long_evaluation_file")
    ('技術文書サンプルの', 'a_very_long_evalua')
    """
    cut, width = "", 0
    for char in escape_controls(name, keep=""):
        width += cell_width(char)
        if width > NAME_CELLS:
            break
        cut += char
    return cut


def _right(text: str, cells: int) -> str:
    """``text`` after spaces up to ``cells`` terminal cells: ``str.rjust`` counts a kanji as one."""
    return " " * (cells - cell_width(text)) + text


def table_lines(study: Study) -> list[str]:
    """The plain-text table: one row per size, tokens and bytes/token per evaluation text."""
    names = list(study.text_names)
    header = f"{'vocab':>7} {'seconds':>8} {'V*d':>12}"
    header += "".join(f" {_right(_column_name(name), 20)}" for name in names)
    header += f" {'ja bare':>8}  longest token"
    lines = [f"{'':29}" + "".join(f" {'tokens  b/tok':>20}" for _ in names), header]
    for size in study.sizes:
        row = f"{size.vocab:>7,} {size.seconds:>8.2f} {size.embedding:>12,}"
        row += "".join(f" {size.tokens[name]:>12,} {size.bytes_per_token[name]:>7.2f}" for name in names)
        bare = "-" if size.japanese_bare_bytes is None else f"{size.japanese_bare_bytes:.1%}"
        row += f" {bare:>8}  {escape_token(size.longest_token, glyphs=False, quote=True)}"
        lines.append(row)
    below = [v for v in study.unreached if v < study.smallest]
    if below:  # a character base's alphabet alone is larger
        lines.append(
            f"not reached (below the {study.smallest:,} tokens before any merge): {', '.join(f'{v:,}' for v in below)}"
        )
    ran_out = [v for v in study.unreached if v >= study.smallest]
    if ran_out:
        lines.append(f"not reached (the corpus ran out of pairs): {', '.join(f'{v:,}' for v in ran_out)}")
    return lines + coverage_lines(study)


def coverage_lines(study: Study) -> list[str]:
    """The context coverage table: per size and evaluation text, characters / bytes each first window holds.

    >>> from core.analysis.study import SizeResult
    >>> size = SizeResult(300, 0.0, {"en": 9}, {"en": 2.0}, b"ab", None, 300, {"en": {4: (7, 8), 64: (18, 18)}})
    >>> print("\\n".join(coverage_lines(Study((size,), text_names=("en",), windows=(4, 64)))))
    <BLANKLINE>
    context coverage: characters / bytes of each text the first window of N tokens holds
      vocab text                                4                 64
        300 en                              7 / 8            18 / 18
    """
    if not study.windows or not any(size.coverage for size in study.sizes):
        return []
    lines = ["", "context coverage: characters / bytes of each text the first window of N tokens holds"]
    lines.append(f"{'vocab':>7} {'text':<18}" + "".join(f" {window:>18,}" for window in study.windows))
    for size in study.sizes:
        for index, name in enumerate(study.text_names):
            cells = size.coverage.get(name, {})
            vocab = f"{size.vocab:,}" if index == 0 else ""
            row = f"{vocab:>7} {pad_cells(_column_name(name), NAME_CELLS)}"
            for window in study.windows:
                chars, covered = cells.get(window, (0, 0))
                row += f" {f'{chars:,} / {covered:,}':>18}"
            lines.append(row)
    return lines


def sample_note(corpus: str, bytes_: int, capped: bool, column: str = "corpus") -> str | None:
    """The stderr line saying the corpus (or the ``--eval`` shards of ``column``) was evaluated on its first part
    only, or ``None`` if it was whole."""
    if not capped:
        return None
    return (f"note: the {escape_controls(column, keep='')} column measures only the first {bytes_:,} bytes of "
            f"{escape_controls(corpus, keep='')}")


def run(args: argparse.Namespace, outputs: Outputs) -> int:
    """Read the texts, run the study and print the table or JSON (writes no files)."""
    corpus = one_corpus(args.corpus, "study")
    warn_unused_record_options(args, corpus, "study", also=args.eval)
    if args.min_char_count is not None and args.base != CHAR_BASE:
        raise SettingsError("--min-char-count applies to the character base only; add --base chars or drop it")
    sample = corpus_sample(
        corpus, args.special_token, text_field=args.text_field, skip_bad_records=args.skip_bad_records,
        errors=args.errors,
    )
    texts = evaluation_texts(
        sample.text, args.eval, args.special_token, text_field=args.text_field,
        skip_bad_records=args.skip_bad_records, errors=args.errors,
    )
    study_run = StudyRun(
        corpus, args.sizes, texts, d=args.d, windows=args.windows, special_tokens=args.special_token,
        workers=args.workers, text_field=args.text_field, skip_bad_records=args.skip_bad_records,
        base=args.base, min_char_count=1 if args.min_char_count is None else args.min_char_count,
        errors=args.errors,
    )
    if open_corpus(corpus).single_plain_text:  # as train warns: the sizes would be measured on pieces of them
        warn_unlisted_markers(Path(corpus), args.special_token, sys.stderr, command="study")
    study: Study | None = None
    for event in study_run.events():
        if isinstance(event, StudyFinished):
            study = event.study
    assert study is not None  # only a cancelled run ends without one
    note = sample_note(corpus, sample.bytes, sample.capped)
    if note is not None:
        sys.stderr.write(note + "\n")
    if study_run.run.skipped.count:
        sys.stderr.write(skipped_line(study_run.run) + "\n")
    if args.json:
        sys.stdout.write(json_line(study.to_json()))
    else:
        sys.stdout.write("\n".join(table_lines(study)) + "\n")
    return 0
