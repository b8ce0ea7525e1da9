"""The slider lens: a sentence re-tokenised after k merges (see :mod:`core.analysis.lenses.slider`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpe_tui.lenses.shown import ids_line, tokens_line
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from bpe_tui.text import counted
from core.analysis.lenses.slider import SliderResult, slider

DEFAULT_TEXT = "Tokenizers quietly rewrite unbelievable sentences."


def compute(context: LensContext, options: Mapping[str, Any]) -> SliderResult:
    return slider(context.model, options["text"], options["merges"])


def render_text(result: SliderResult) -> str:
    return "\n".join([
        f"after {result.merges:,} of {result.total_merges:,} merges: {counted(result.count, 'token')} "
        f"({counted(result.text_bytes, 'byte')})",
        tokens_line(result.tokens),
        ids_line(result.ids),
    ])


def _view() -> type:
    from bpe_tui.lenses.views.slider import SliderView

    return SliderView


def _all_merges(context: LensContext | None) -> int:
    return len(context.model.merges) if context is not None else 0


LENS = LensSpec(
    name="slider",
    title="Merge slider",
    description="A sentence re-tokenised after k merges, k from 0 to all",
    options=(
        LensOption("text", "text", "text", default=DEFAULT_TEXT, help="the sentence"),
        LensOption("merges", "merges", "int", default=_all_merges, minimum=0, maximum=_all_merges,
                   help="how many merges to apply (default: all)"),
    ),
    compute=compute,
    render_text=render_text,
    view=_view,
)
