"""The replay lens: one word encoded as merge replay, step by step (see :mod:`core.analysis.lenses.replay`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpe_tui.lenses.shown import ids_line, pair_text, quoted, tokens_line
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from bpe_tui.text import cell_width, pad_cells
from core.analysis.lenses.replay import ReplayResult, replay

DEFAULT_WORD = " tokenization"


def compute(context: LensContext, options: Mapping[str, Any]) -> ReplayResult:
    return replay(context.model, options["word"])


def render_text(result: ReplayResult) -> str:
    lines = [
        f"{quoted(result.word)}: {len(result.start)} tokens at the start, {len(result.steps)} merges, "
        f"{len(result.tokens)} tokens at the end",
        f"  start              {tokens_line(result.start)}",
    ]
    width = max((cell_width(pair_text(step.pair)) for step in result.steps), default=0)
    for step in result.steps:
        lines.append(f"  rank {step.rank:>6}  {pad_cells(pair_text(step.pair), width)}  -> {tokens_line(step.tokens)}")
    lines.append(f"ids {ids_line(result.ids)}")
    return "\n".join(lines)


def _view() -> type:
    from bpe_tui.lenses.views.replay import ReplayView

    return ReplayView


LENS = LensSpec(
    name="replay",
    title="Merge replay",
    description="One word encoded as merge replay: the lowest-rank pair each step, until none is left",
    options=(LensOption("word", "word", "text", default=DEFAULT_WORD, help="the word to encode"),),
    compute=compute,
    render_text=render_text,
    view=_view,
)
