"""``bpe-tui verify``: check that an id array, its sidecar and a tokenizer (and a corpus) belong together.

Exit status 0 when they do, 1 when they do not (a mismatch, or a sidecar that is missing, edited or not
a sidecar at all: nothing then says what made the ids), 2 when the check cannot run (a missing id file,
a bad tokenizer or corpus, a bad argument). The checks are :func:`core.export.verify.verify_ids`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bpe_tui.cli.arguments import add_corpus_options, input_path, warn_unused_record_options
from bpe_tui.cli.outputs import Outputs
from bpe_tui.text import escape_token
from core.export.npy_ids import IdsFileError
from core.export.sidecar import SidecarError
from core.export.verify import IdsMismatch, verify_ids
from core.errors import SettingsError
from core.formats import load_tokenizer
from core.input_files import check_regular_file, shown_path


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="check that an id array belongs to a tokenizer",
        description="Check IDS.npy against its sidecar IDS.npy.json and TOKENIZER: the tokenizer's "
        "fingerprint, the array's dtype and length, every id below the vocab size, and with --corpus that "
        "decoding gives the corpus back byte for byte (for a corpus of shards: its documents joined by the "
        "tokenizer's first special token, as export joined them, and the shards' SHA-256; for a tokenizer that "
        "normalizes, such as Qwen2's, the corpus in its normal form). Exit status 0: they belong together; 1: they do not "
        "(or the sidecar is missing or edited); 2: the check could not run.",
    )
    parser.add_argument("ids", metavar="IDS.npy", type=input_path, help="id array written by bpe-tui export")
    parser.add_argument("tokenizer", metavar="TOKENIZER", type=input_path,
                        help="tokenizer file of any supported format, or its folder")
    parser.add_argument("--corpus", metavar="CORPUS", type=input_path,
                        help="also check that decoding the ids gives CORPUS back byte for byte: a text file, or "
                        "the shard, folder or quoted glob that was exported (with its --text-field)")
    parser.add_argument("--merges", metavar="PATH", type=input_path,
                        help="merges.txt for a GPT-2 vocab.json (default: found beside it)")
    add_corpus_options(parser)


def run(args: argparse.Namespace, outputs: Outputs) -> int:
    """Verify as ``args`` say; verify writes no files."""
    if args.corpus is None and (args.text_field != "text" or args.skip_bad_records):
        # They say how to read --corpus; without it they would be ignored, and the ok line would mislead.
        raise SettingsError("--text-field and --skip-bad-records say how to read --corpus; add --corpus CORPUS "
                            "or drop them")
    warn_unused_record_options(args, args.corpus, "verify")
    check_regular_file(args.ids, IdsFileError)
    model = load_tokenizer(Path(args.tokenizer), merges_path=args.merges)
    try:
        verified = verify_ids(args.ids, model, corpus=args.corpus, text_field=args.text_field,
                              skip_bad_records=args.skip_bad_records)
    except (IdsMismatch, SidecarError, IdsFileError) as error:
        sys.stderr.write(escape_token(f"bpe-tui verify: error: {error}", glyphs=False) + "\n")
        return 1
    side = verified.sidecar
    line = (f"ok: {shown_path(args.ids)} holds {side.tokens:,} {side.dtype} ids made by "
            f"{side.tokenizer_name or 'the tokenizer'} (fingerprint {side.fingerprint[:12]}), all below "
            f"vocab size {model.vocab_size:,}")
    # A tokenizer that normalizes (Qwen2's NFC) gives the text back in that form, as it read it.
    normal = f" in {model.normalizer}" if model.normalizer is not None else ""
    if verified.corpus_of_shards:
        joined = f", joined by {model.special_tokens[0]!r}," if model.special_tokens else ""
        line += (f"; decoding them gives the documents of {shown_path(args.corpus)}{joined} back{normal} byte for "
                 "byte, and its shards' SHA-256 matches")
    elif verified.corpus_checked:
        line += f"; decoding them gives {shown_path(args.corpus)} back{normal} byte for byte"
    sys.stdout.write(escape_token(line, glyphs=False) + "\n")
    return 0
