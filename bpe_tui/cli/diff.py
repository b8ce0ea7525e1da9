"""``bpe-tui diff``: the structural diff of two tokenizer files, of any formats, as text or JSON.

Reports the shared merge prefix, the first divergent merge and whether it was a tie (recounted on
``--corpus`` when given, a text file or shards, else from recorded counts), vocabulary overlap by token
bytes, ids that moved, and, with ``--text``, how the two tokenizers split that text. Writes no files.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bpe_tui.cli.arguments import add_corpus_options, input_path, utf8_text, warn_unused_record_options
from bpe_tui.cli.outputs import Outputs
from bpe_tui.diff_report import report_lines
from core.analysis.diff import corpus_word_counts, structural_diff
from core.encode.tokenizer import Tokenizer
from core.formats import load_tokenizer


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "diff",
        help="where two tokenizers' merges part, and why",
        description="Compare two tokenizers of any formats by token bytes: the shared merge prefix, the first "
        "divergent merge and whether it was a tie, vocabulary overlap, ids that moved, and how a text encodes.",
    )
    parser.add_argument("a", metavar="A", type=input_path, help="first tokenizer file (any format) or its folder")
    parser.add_argument("b", metavar="B", type=input_path, help="second tokenizer file (any format) or its folder")
    parser.add_argument("--corpus", metavar="FILE", type=input_path,
                        help="recount the pairs at the first divergence on this corpus, as A's training counted "
                        "them: a UTF-8 text file, or the shard, folder or quoted glob it was trained on (with its "
                        "--text-field)")
    add_corpus_options(parser)
    parser.add_argument("--text", metavar="S", type=utf8_text, help="also compare how A and B encode this text")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def run(args: argparse.Namespace, outputs: Outputs) -> int:
    """Load both tokenizers (and the corpus), diff them and print the report (writes no files)."""
    a = load_tokenizer(Path(args.a))
    b = load_tokenizer(Path(args.b))
    word_counts = None
    warn_unused_record_options(args, args.corpus, "diff")
    if args.corpus is not None:
        word_counts = corpus_word_counts(
            args.corpus, a, text_field=args.text_field, skip_bad_records=args.skip_bad_records
        )
    encoded = None
    if args.text is not None:
        tokenizers = (Tokenizer.from_model(a), Tokenizer.from_model(b))
        encoded = tuple(t.decode_tokens_bytes(t.encode(args.text, allowed_special="all")) for t in tokenizers)
    diff = structural_diff(a, b, word_counts=word_counts, encoded=encoded)
    if args.json:
        sys.stdout.write(json.dumps(diff.to_json()) + "\n")
    else:
        sys.stdout.write("\n".join(report_lines(diff)) + "\n")
    return 0
