"""``bpe-tui convert``: rewrite a tokenizer file in another format, atomically, saying what the target drops.

Loading checks the input fully (and its fingerprint, for our JSON) before anything is written, and each
output file is written to a temporary file and renamed, so a failed conversion leaves no partial output;
a new GPT-2 folder appears whole, by one rename. The outputs are checked first
(:mod:`bpe_tui.cli.outputs`): never one of the input files, an existing file only with ``--force``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bpe_tui.cli.arguments import add_force, input_path, path_text
from bpe_tui.cli.outputs import Outputs
from bpe_tui.cli.tokenizer_inputs import add_tokenizer_inputs
from bpe_tui.text import escape_token
from core.formats import FORMATS, load_tokenizer, save_tokenizer
from core.formats.gpt2 import output_paths


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "convert",
        help="convert a tokenizer file to another format",
        description="Load IN (any supported format, detected from content) and save it as OUT in --to FORMAT. "
        "For gpt2, OUT is a folder (gets vocab.json + merges.txt) or the vocab .json path. Existing files "
        "are only replaced with --force, and the input never is.",
    )
    parser.add_argument("input", metavar="IN", type=input_path,
                        help="tokenizer file of any supported format, or its folder")
    parser.add_argument("output", metavar="OUT", type=path_text, help="file (or folder, for gpt2) to write")
    parser.add_argument("--to", dest="format", required=True, choices=FORMATS, help="output format")
    parser.add_argument("--merges", metavar="PATH", type=input_path, help="merges.txt for a GPT-2 vocab.json input")
    add_force(parser)


def output_files(path: Path, format_name: str) -> list[tuple[Path, bool]]:
    """The files ``save_tokenizer`` writes for ``path`` in ``format_name``, each with whether it goes in a
    folder the save makes itself.

    >>> [(p.as_posix(), new) for p, new in output_files(Path("no/such/gpt2"), "gpt2")]
    [('no/such/gpt2/vocab.json', True), ('no/such/gpt2/merges.txt', True)]
    """
    if format_name == "gpt2":
        vocab, merges = output_paths(path)
        new_folder = vocab.parent == path and not path.is_dir()
        return [(vocab, new_folder), (merges, new_folder)]
    if format_name == "hf" and path.is_dir():
        return [(path / "tokenizer.json", False)]
    return [(path, False)]


def run(args: argparse.Namespace, outputs: Outputs) -> int:
    model = load_tokenizer(Path(args.input), merges_path=args.merges)
    add_tokenizer_inputs(outputs, Path(args.input), args.merges)
    outputs.check_not_stdout(args.output, "OUT")  # GPT-2's pair would go in a new folder named '-'
    for path, new_folder in output_files(Path(args.output), args.format):
        outputs.add(path, "OUT", new_folder=new_folder)
    dropped = []
    if args.format != "bpe-tui" and (model.merge_counts is not None or model.training is not None):
        dropped.append("merge counts and training parameters (only bpe-tui JSON keeps them)")
    if args.format == "tiktoken" and model.special_tokens:
        specials = ", ".join(escape_token(token, glyphs=False, quote=True) for token in model.special_tokens)
        dropped.append(f"special tokens {specials} (rank files hold none; declare them in code with their ids)")
    with outputs.saving():
        outputs.hold()  # two files (GPT-2's pair) are renamed both or neither
        written = save_tokenizer(model, Path(args.output), format=args.format)
        for path in written:
            print(escape_token(str(path), glyphs=False))
        for note in dropped:
            print(f"bpe-tui convert: note: not stored: {note}", file=sys.stderr)
    return 0
