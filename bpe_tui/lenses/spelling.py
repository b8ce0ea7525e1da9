"""The spelling lens: each word's characters against its tokens (see :mod:`core.analysis.lenses.spelling`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpe_tui.lenses.shown import shown_word, tokens_line
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from bpe_tui.text import cell_width, counted, pad_cells
from core.analysis.lenses.spelling import DEFAULT_WORDS, Spelling, spelling


def compute(context: LensContext, options: Mapping[str, Any]) -> Spelling:
    return spelling(context.tokenizer, options["words"].split(), leading_space=options["space"])


def render_text(result: Spelling) -> str:
    width = max(cell_width(shown_word(row.word)) for row in result.words)
    lines = ["each word after a space, as inside a sentence" if result.leading_space else "each word on its own"]
    for row in result.words:
        lines.append(
            f"  {pad_cells(shown_word(row.word), width)}  {counted(len(row.chars), 'character'):>13} -> {counted(row.encoded.count, 'token')}  "
            f"{tokens_line(row.encoded.tokens)}"
        )
    return "\n".join(lines)


def _view() -> type:
    from bpe_tui.lenses.views.spelling import SpellingView

    return SpellingView


LENS = LensSpec(
    name="spelling",
    title="Spelling",
    description="The letters of each word against the tokens the model receives",
    options=(
        LensOption("words", "words", "text", default=" ".join(DEFAULT_WORDS), help="the words, space-separated"),
        LensOption("space", "leading space", "bool", default=False, help="encode each word after a space"),
    ),
    compute=compute,
    render_text=render_text,
    view=_view,
)
