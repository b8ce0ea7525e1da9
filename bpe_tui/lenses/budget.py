"""The budget lens: a merge budget split between English and Japanese (see :mod:`core.analysis.lenses.budget`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpe_tui.lenses.shown import pair_text, tokens_line
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from core.analysis.lenses.budget import MergeBudget, merge_budget, parallel_pair
from core.errors import SettingsError

PAIR_FILE = "parallel.txt"
"""The bundled sentence pair, in the samples folder."""

SCRIPT_MARKS = {"latin": "L", "kana": "k", "kanji": "K", "other": "."}
"""One letter per script for the text strip of merges."""


def compute(context: LensContext, options: Mapping[str, Any]) -> MergeBudget:
    english, japanese = context.samples.get("english"), context.samples.get("japanese")
    pair_path = context.samples_dir / PAIR_FILE if context.samples_dir is not None else None
    if english is None or japanese is None or pair_path is None or not pair_path.is_file():
        raise SettingsError("the budget lens trains on the bundled samples, which this installation lacks")
    pair = parallel_pair(pair_path.read_text(encoding="utf-8"))
    return merge_budget(english, japanese, pair, merges=options["merges"], mix=options["mix"] / 100,
                        pattern=context.model.pattern)


def strip_lines(result: MergeBudget, width: int = 64) -> list[str]:
    """The script of each merge in rank order, one letter each (see :data:`SCRIPT_MARKS`)."""
    marks = "".join(SCRIPT_MARKS[script] for script in result.scripts)
    return [f"  {start:>5} {marks[start : start + width]}" for start in range(0, len(marks), width)]


def curve_lines(result: MergeBudget, rows: int = 5) -> list[str]:
    """A few points of the token-cost curve, evenly spread, first and last included."""
    curve = result.curve
    picked = sorted({round(i * (len(curve) - 1) / (rows - 1)) for i in range(rows)}) if len(curve) > 1 else [0]
    return [f"  k {curve[i][0]:>5,}   en {curve[i][1]:>4}   ja {curve[i][2]:>4}" for i in picked if curve]


def render_text(result: MergeBudget) -> str:
    english, japanese = result.pair
    counts = ", ".join(f"{script} {n}" for script, n in result.script_counts.items())
    lines = [
        f"{result.mix:.0%} English, {1 - result.mix:.0%} Japanese "
        f"({result.training_bytes['en']:,} + {result.training_bytes['ja']:,} bytes); "
        f"{len(result.merges)} of {result.budget} merges made",
        f"merges by script: {counts}",
        f"the sentence pair: English {english.count} tokens, Japanese {japanese.count} tokens",
        f"  en {tokens_line(english.tokens)}",
        f"  ja {tokens_line(japanese.tokens)}",
        "",
        "tokens for the pair with the first k merges:",
        *curve_lines(result),
        "",
        "each merge's script in rank order (L latin, k kana, K kanji, . other):",
        *strip_lines(result),
    ]
    if result.merges:
        lines += ["", "first merges: " + ", ".join(pair_text(pair) for pair in result.merges[:8])]
    return "\n".join(lines)


def _view() -> type:
    from bpe_tui.lenses.views.budget import BudgetView

    return BudgetView


LENS = LensSpec(
    name="budget",
    title="Merge budget",
    description="A merge budget split between English and Japanese by the training mix",
    options=(
        LensOption("merges", "merges", "int", default=256, minimum=32, maximum=4096, step=32,
                   help="the merge budget (32 to 4096)"),
        LensOption("mix", "English %", "int", default=50, minimum=0, maximum=100, step=5,
                   help="English share of the training text, in percent (the rest is Japanese)"),
    ),
    compute=compute,
    render_text=render_text,
    view=_view,
)
