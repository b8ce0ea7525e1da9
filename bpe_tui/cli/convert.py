"""``bpe-tui convert``: rewrite a tokenizer file in another format, atomically, saying what the target drops.

Loading checks the input fully (and its fingerprint, for our JSON) before anything is written, and each
output file is written to a temporary file and renamed, so a failed conversion leaves no partial output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from core.formats import FORMATS, load_tokenizer, save_tokenizer


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "convert",
        help="convert a tokenizer file to another format",
        description="Load IN (any supported format, detected from content) and save it as OUT in --to FORMAT. "
        "For gpt2, OUT is a folder (gets vocab.json + merges.txt) or the vocab .json path.",
    )
    parser.add_argument("input", metavar="IN", help="tokenizer file of any supported format, or its folder")
    parser.add_argument("output", metavar="OUT", help="file (or folder, for gpt2) to write")
    parser.add_argument("--to", dest="format", required=True, choices=FORMATS, help="output format")
    parser.add_argument("--merges", metavar="PATH", help="merges.txt for a GPT-2 vocab.json input")


def run(args: argparse.Namespace) -> int:
    model = load_tokenizer(Path(args.input), merges_path=args.merges)
    dropped = []
    if args.format != "bpe-tui" and (model.merge_counts is not None or model.training is not None):
        dropped.append("merge counts and training parameters (only bpe-tui JSON keeps them)")
    if args.format == "tiktoken" and model.special_tokens:
        specials = ", ".join(model.special_tokens)
        dropped.append(f"special tokens {specials} (rank files hold none; declare them in code with their ids)")
    written = save_tokenizer(model, Path(args.output), format=args.format)
    for path in written:
        print(path)
    for note in dropped:
        print(f"bpe-tui convert: note: not stored: {note}", file=sys.stderr)
    return 0
