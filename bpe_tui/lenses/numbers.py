"""The numbers lens: which of 0-999 are one token, and digit-grouping splits (see :mod:`core.analysis.lenses.numbers`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpe_tui.lenses.shown import tokens_line
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from bpe_tui.text import counted
from core.analysis.lenses.numbers import DEFAULT_EXAMPLES, NumberTokens, number_tokens
from core.errors import SettingsError

GRID_WIDTH = 50
"""Numbers per grid row: 0-999 is 20 rows of 50."""

LONGEST_EXAMPLE = 1000
"""Digits an example number may have: its split is shown on one line."""


def compute(context: LensContext, options: Mapping[str, Any]) -> NumberTokens:
    words = options["numbers"].split()
    if not all(word.isascii() and word.isdigit() for word in words):
        raise SettingsError("give --numbers as whole numbers separated by spaces, e.g. --numbers '42 1987 31415'")
    if any(len(word) > LONGEST_EXAMPLE for word in words):  # int() refuses more than 4,300 digits
        raise SettingsError(f"give --numbers of at most {LONGEST_EXAMPLE} digits each, e.g. --numbers '42 1987 31415'")
    return number_tokens(context.tokenizer, examples=words)  # as written: "007" is not "7" to a tokenizer


def grid_lines(result: NumberTokens) -> list[str]:
    """One line per ``GRID_WIDTH`` numbers: ``#`` for a single token, ``.`` for more."""
    lines = []
    for start in range(0, result.limit, GRID_WIDTH):
        row = result.token_counts[start : start + GRID_WIDTH]
        lines.append(f"{start:>4} " + "".join("#" if count == 1 else "." for count in row))
    return lines


def render_text(result: NumberTokens) -> str:
    lines = [f"{len(result.single_token)} of the numbers 0-{result.limit - 1} are one token (#), written plainly:"]
    lines += grid_lines(result)
    pieces = ", ".join(f"{name} {count}" for name, count in result.single_piece.items())
    lines += ["", f"one piece under a digit-grouping pre-tokeniser: {pieces}"]
    for example in result.examples:
        lines.append(f"  {example.encoded.text:>9}  {counted(example.encoded.count, 'token')} {tokens_line(example.encoded.tokens)}")
        for name, groups in example.groups.items():
            lines.append(f"  {'':>9}  {name:<8} {' '.join(groups)}  ({counted(example.grouped_tokens[name], 'token')})")
    return "\n".join(lines)


def _view() -> type:
    from bpe_tui.lenses.views.numbers import NumbersView

    return NumbersView


LENS = LensSpec(
    name="numbers",
    title="Numbers",
    description="Which integers 0-999 are one token, and how digit grouping splits numbers",
    options=(
        LensOption("numbers", "examples", "text", default=" ".join(map(str, DEFAULT_EXAMPLES)),
                   help="numbers to split, space-separated"),
    ),
    compute=compute,
    render_text=render_text,
    view=_view,
)
