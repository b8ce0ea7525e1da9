"""``bpe-tui study``: which vocabulary size to pick, from one training run at the largest size.

Trains once (merges form a prefix, so every smaller tokenizer is a cut of the largest), then prints one row
per size: the time the run took to reach it, tokens and bytes per token on each evaluation text (the
corpus, the bundled English and Japanese samples, and any ``--eval`` files), the longest token, the share
of bare bytes in Japanese and the embedding parameters V x d; or, with ``--json``, the same as one object.
Writes no files.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bpe_tui.cli.arguments import path_text, special_token, worker_count
from bpe_tui.cli.outputs import Outputs
from bpe_tui.sample_files import sample_paths
from bpe_tui.text import escape_token
from core.analysis.study import Study, StudyFinished, StudyRun, parse_sizes
from core.errors import SettingsError
from core.train.reading import read_text_file


def _sizes(text: str) -> list[int]:
    try:
        return parse_sizes(text)
    except SettingsError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "study",
        help="compare vocabulary sizes from one training run",
        description="Train once at the largest size and report, for every size, the time to reach it, tokens and "
        "bytes/token on each evaluation text, the longest token, bare bytes in Japanese and V*d embedding parameters.",
    )
    parser.add_argument("corpus", metavar="CORPUS", type=path_text, help="UTF-8 text file to train on")
    parser.add_argument("--sizes", metavar="V,V,...", type=_sizes, required=True,
                        help="vocabulary sizes, comma-separated (e.g. 300,500,1000,5000,10000)")
    parser.add_argument("--eval", metavar="FILE", type=path_text, action="append", default=[],
                        help="another evaluation text (repeatable); the corpus and the bundled samples always are")
    parser.add_argument("--d", metavar="D", type=int, default=768, help="embedding width for V*d (default 768)")
    parser.add_argument("--special-token", metavar="S", type=special_token, action="append", default=[],
                        help="special token (repeatable), as for train")
    parser.add_argument("--workers", metavar="K", type=worker_count, help="processes for reading the corpus")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")


def evaluation_texts(corpus: Path, extra: list[str]) -> dict[str, str]:
    """Name -> text: ``corpus``, the bundled English and Japanese samples, then each ``--eval`` file by stem."""
    texts = {"corpus": read_text_file(corpus)}
    for name, path in sample_paths().items():
        if name in ("english", "japanese"):
            texts[name] = read_text_file(path)
    for given in extra:
        path = Path(given)
        name, n = path.stem, 2
        while name in texts:
            name, n = f"{path.stem}-{n}", n + 1
        texts[name] = read_text_file(path)
    return texts


def table_lines(study: Study) -> list[str]:
    """The plain-text table: one row per size, tokens and bytes/token per evaluation text."""
    names = list(study.text_names)
    header = f"{'vocab':>7} {'seconds':>8} {'V*d':>12}" + "".join(f" {name[:18]:>20}" for name in names)
    header += f" {'ja bare':>8}  longest token"
    lines = [f"{'':29}" + "".join(f" {'tokens  b/tok':>20}" for _ in names), header]
    for size in study.sizes:
        row = f"{size.vocab:>7,} {size.seconds:>8.2f} {size.embedding:>12,}"
        row += "".join(f" {size.tokens[name]:>12,} {size.bytes_per_token[name]:>7.2f}" for name in names)
        bare = "-" if size.japanese_bare_bytes is None else f"{size.japanese_bare_bytes:.1%}"
        row += f" {bare:>8}  {escape_token(size.longest_token, glyphs=False, quote=True)}"
        lines.append(row)
    if study.unreached:
        lines.append(
            f"not reached (the corpus ran out of pairs): {', '.join(f'{v:,}' for v in study.unreached)}"
        )
    return lines


def run(args: argparse.Namespace, outputs: Outputs) -> int:
    """Read the texts, run the study and print the table or JSON (writes no files)."""
    corpus = Path(args.corpus)
    texts = evaluation_texts(corpus, args.eval)
    study_run = StudyRun(
        corpus, args.sizes, texts, d=args.d, special_tokens=args.special_token, workers=args.workers
    )
    study: Study | None = None
    for event in study_run.events():
        if isinstance(event, StudyFinished):
            study = event.study
    assert study is not None  # only a cancelled run ends without one
    if args.json:
        sys.stdout.write(json.dumps(study.to_json(), ensure_ascii=False) + "\n")
    else:
        sys.stdout.write("\n".join(table_lines(study)) + "\n")
    return 0
