"""``bpe-tui diff``: the structural diff of two tokenizer files, of any formats, as text or JSON.

Reports the shared merge prefix, the first divergent merge and whether it was a tie (recounted on
``--corpus`` when given, else from recorded counts), vocabulary overlap by token bytes, ids that moved,
and, with ``--text``, how the two tokenizers split that text. Writes no files.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bpe_tui.cli.arguments import path_text
from bpe_tui.cli.outputs import Outputs
from bpe_tui.text import escape_token
from core.analysis.diff import Pair, StructuralDiff, corpus_word_counts, structural_diff
from core.encode.tokenizer import Tokenizer
from core.formats import load_tokenizer

TIE_WORDING = {
    "corpus": "recounted on the corpus",
    "recorded counts": "from both files' recorded counts",
    "runner-up": "from A's recorded runner-up count",
    "unknown": "unknown: give --corpus to recount it",
}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "diff",
        help="where two tokenizers' merges part, and why",
        description="Compare two tokenizers of any formats by token bytes: the shared merge prefix, the first "
        "divergent merge and whether it was a tie, vocabulary overlap, ids that moved, and how a text encodes.",
    )
    parser.add_argument("a", metavar="A", type=path_text, help="first tokenizer file (any format) or its folder")
    parser.add_argument("b", metavar="B", type=path_text, help="second tokenizer file (any format) or its folder")
    parser.add_argument("--corpus", metavar="FILE", type=path_text,
                        help="recount the pairs at the first divergence on this UTF-8 corpus (split as A splits)")
    parser.add_argument("--text", metavar="S", help="also compare how A and B encode this text")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def _pair(pair: Pair | None) -> str:
    if pair is None:
        return "(no more merges)"
    return f"{escape_token(pair[0], glyphs=False, quote=True)} + {escape_token(pair[1], glyphs=False, quote=True)}"


def _token(token: bytes | None) -> str:
    return "(none)" if token is None else escape_token(token, glyphs=False, quote=True)


def report_lines(diff: StructuralDiff) -> list[str]:
    """The plain-text report, line by line."""
    lines = [
        f"merges:          A {diff.merges_a:,}  B {diff.merges_b:,}",
        f"shared prefix:   {diff.shared_prefix:,} merge{'' if diff.shared_prefix == 1 else 's'}",
    ]
    divergence = diff.first_divergence
    if divergence is None:
        lines.append("first divergence: none (the merge lists are equal)")
    else:
        if divergence.tie is None:
            verdict = "tie unknown"
        else:
            verdict = "a tie" if divergence.tie else "not a tie"
        counts = []
        if divergence.count_a is not None:
            counts.append(f"A's pair {divergence.count_a:,}")
        if divergence.count_b is not None:
            counts.append(f"B's pair {divergence.count_b:,}")
        lines += [
            f"first divergence: merge {divergence.rank:,}",
            f"  A: {_pair(divergence.a)}",
            f"  B: {_pair(divergence.b)}",
            f"  {verdict} ({TIE_WORDING[divergence.source]})" + (f": {', '.join(counts)}" if counts else ""),
        ]
    overlap = diff.overlap
    lines.append(
        f"vocabulary:      both {overlap.shared:,}  only A {overlap.only_a:,}  only B {overlap.only_b:,}"
        f"  (jaccard {overlap.jaccard:.2f})"
    )
    moved = diff.moved
    examples = ", ".join(f"{_token(token)} {a}→{b}" for token, a, b in moved.examples[:3])
    lines.append(f"moved ids:       {moved.count:,} shared tokens" + (f" (e.g. {examples})" if examples else ""))
    enc = diff.encoding
    if enc is not None:
        lines.append(f"text:            A {enc.tokens_a:,} tokens  B {enc.tokens_b:,} tokens")
        if enc.same:
            lines.append("  the same tokens")
        else:
            lines.append(
                f"  first difference at token {enc.first_difference}: A {_token(enc.token_a)}, B {_token(enc.token_b)}"
            )
            lines.append(f"  boundaries only in A {enc.cuts_only_a:,}, only in B {enc.cuts_only_b:,}")
    return lines


def run(args: argparse.Namespace, outputs: Outputs) -> int:
    """Load both tokenizers (and the corpus), diff them and print the report (writes no files)."""
    a = load_tokenizer(Path(args.a))
    b = load_tokenizer(Path(args.b))
    word_counts = corpus_word_counts(args.corpus, a) if args.corpus is not None else None
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
