"""``bpe-tui inspect``: a one-screen summary of any tokenizer file, as plain text for terminals and scripts.

Shows the detected format, how the vocabulary splits into bytes, merges and special tokens, the
fingerprint (to tell two files apart at a glance), how many merges were ties (``--ties`` lists them),
the longest tokens (escaped, so a token holding a
control character cannot disturb the terminal) and bytes per token on the bundled samples, which is the
quickest feel for how well a tokenizer compresses English, Japanese and mixed text.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bpe_tui.cli.arguments import input_path
from bpe_tui.cli.outputs import Outputs
from bpe_tui.sample_files import sample_paths
from bpe_tui.text import counted, escape_token
from core.errors import SettingsError
from core.fingerprint import fingerprint
from core.formats import detect_format, load_tokenizer
from core.model import CHAR_BASE, BPEModel
from core.pretokenize.patterns import GPT2_PATTERN
from core.analysis.ties import tied_merges
from core.analysis.vocab_stats import longest_tokens, vocab_split

FORMAT_LABELS = {
    "bpe-tui": "bpe-tui JSON",
    "gpt2": "GPT-2 vocab.json + merges.txt",
    "hf": "Hugging Face tokenizer.json",
    "tiktoken": "tiktoken rank file",
}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "inspect",
        help="summarise a tokenizer file",
        description="Print format, size, special tokens, fingerprint, longest tokens and bytes/token on the samples.",
    )
    parser.add_argument("tokenizer", metavar="TOKENIZER", type=input_path,
                        help="tokenizer file of any supported format, or its folder")
    parser.add_argument("--merges", metavar="PATH", type=input_path, help="merges.txt for a GPT-2 vocab.json (default: found beside it)")
    parser.add_argument("--longest", metavar="N", type=int, default=10,
                        help="how many longest tokens to list (default 10)")
    parser.add_argument("--no-samples", action="store_true", help="skip bytes/token on the bundled samples")
    parser.add_argument("--ties", action="store_true",
                        help="list the merges the tie rule decided (their runner-up had the same count)")


def _quoted(token: bytes | str) -> str:
    return escape_token(token, glyphs=False, quote=True)


def _shown(text: str) -> str:
    """Text from a file (a name, a path) as it may be printed: a control character in it is escaped, so a
    tokenizer file cannot clear the screen, set the window title or fake lines of output."""
    return escape_token(text, glyphs=False)


SPECIALS_SHOWN = 12
"""Special tokens listed by name: Llama 3 has 256 (most of them reserved), which made one line of 10,000
characters; the vocab size line counts them all."""

PATTERNLESS_FORMATS = ("gpt2", "tiktoken")
"""Formats whose files hold no split pattern: loading one assumes GPT-2's (see core.formats)."""


def _pattern_line(model: BPEModel, format_name: str) -> str:
    """The pattern, saying when it was assumed rather than read: a rank file made for another pattern
    (Llama 3's ``tokenizer.model`` is one) encodes otherwise here, and this is where a user can see why.

    >>> from core.model import BPEModel
    >>> _pattern_line(BPEModel({i: bytes([i]) for i in range(256)}, []), "tiktoken")
    'GPT-2 (assumed: the file holds no pattern)'
    """
    if model.pattern != GPT2_PATTERN:
        return _quoted(model.pattern)
    return "GPT-2 (assumed: the file holds no pattern)" if format_name in PATTERNLESS_FORMATS else "GPT-2"


def summary_lines(
    model: BPEModel, *, format_name: str, longest: int = 10, samples: bool = True, ties: bool = False
) -> list[str]:
    """The report, line by line (separate from printing so tests and the app can reuse it)."""
    split = vocab_split(model)
    size = (f"{model.vocab_size:,} = {counted(split.byte_tokens, 'byte')} + {counted(split.merges, 'merge')} + "
            f"{counted(split.specials, 'special')}")
    if split.other:
        # a character base's alphabet: the tokens of one character beyond the bytes
        size += f" + {split.other:,} {'characters' if model.base == CHAR_BASE else 'other'}"
    ids = {token: token_id for token_id, token in model.vocab.items()}
    specials = ", ".join(f"{_quoted(s)} ({ids[s.encode()]})" for s in model.special_tokens[:SPECIALS_SHOWN]) or "none"
    if len(model.special_tokens) > SPECIALS_SHOWN:
        specials += f", … ({len(model.special_tokens) - SPECIALS_SHOWN:,} more)"
    counts = "recorded" if model.merge_counts is not None else "not recorded"
    lines = [
        f"name:           {_shown(model.name) if model.name else '-'}",
        f"format:         {FORMAT_LABELS.get(format_name, format_name)}",
        f"vocab size:     {size}",
        f"special tokens: {specials}",
        f"pattern:        {_pattern_line(model, format_name)}",
        f"fingerprint:    {fingerprint(model)}" + (
            "  (unverified: the file has no fingerprint key)" if model.fingerprint_verified is False else ""
        ),
        f"merge counts:   {counts}",
    ]
    if model.base == CHAR_BASE:  # only then: a byte-level report stays as it was
        lines.insert(5, "base:           characters (byte fallback for the rest)")
    if model.normalizer is not None:  # likewise: Qwen2's NFC, before the pattern splits the text
        lines.insert(4, f"normalizer:     {model.normalizer} (the text between special tokens, before it is split)")
    tie_summary = tied_merges(model)
    lines.append(f"ties:           {tie_summary.describe()}")

    if model.training is not None:
        info = model.training
        lines.append(
            f"trained on:     {_shown(str(info.corpus_path)) if info.corpus_path else '(in memory)'} "
            f"({info.corpus_bytes:,} bytes), "
            f"vocab_size={info.vocab_size}, min_frequency={info.min_frequency}"
            + (f", min_char_count={info.min_char_count}" if info.min_char_count is not None else "")
            + (f", min_count={info.min_count}" if info.min_count is not None else "")
            + (f" ({counted(info.pretokens_pruned, 'pre-token')} dropped)" if info.pretokens_pruned is not None else "")
            + (f"; stopped by the user after {counted(info.stopped_after, 'merge')}"
               if info.stopped_after is not None else "")
        )
    if longest > 0:
        lines.append("longest tokens:")
        for token_id, token in longest_tokens(model, longest):
            lines.append(f"  {token_id:>7}  {counted(len(token), 'byte'):>10}  {_quoted(token)}")
    if ties and tie_summary.tied:
        lines.append("tied merges (rank, left + right, count):")
        for merge in tie_summary.tied:
            lines.append(f"  {merge.rank:>7}  {_quoted(merge.left)} + {_quoted(merge.right)}  {merge.count:,}")
    if samples:
        lines += _sample_lines(model)
    return lines


def _sample_lines(model: BPEModel) -> list[str]:
    paths = sample_paths()
    if not paths:
        return ["bytes/token:    (no bundled samples found)"]
    from core.encode.tokenizer import Tokenizer

    tokenizer = Tokenizer.from_model(model)
    lines = ["bytes/token on the bundled samples:"]
    for name, path in paths.items():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        size = len(text.encode("utf-8"))
        count = len(tokenizer.encode(text))
        ratio = size / count if count else 0.0
        lines.append(f"  {name:<9} {size:>8,} bytes  {count:>7,} tokens  {ratio:5.2f} bytes/token")
    return lines


def run(args: argparse.Namespace, outputs: Outputs) -> int:
    """Print the summary (inspect writes no files: ``outputs`` stays empty)."""
    if args.longest < 0:  # -5 was taken silently, and listed the longest tokens but five
        raise SettingsError(f"--longest {args.longest:,}: give how many tokens to list, 0 or more")
    path = Path(args.tokenizer)
    model = load_tokenizer(path, merges_path=args.merges)
    lines = [f"file:           {_shown(str(path))}"]
    lines += summary_lines(
        model, format_name=detect_format(path), longest=args.longest, samples=not args.no_samples, ties=args.ties
    )
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
