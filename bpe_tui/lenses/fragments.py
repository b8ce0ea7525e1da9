"""The fragments lens: pre-tokenisation under the tokenizer's pattern (see :mod:`core.analysis.lenses.fragments`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpe_tui.lenses.shown import quoted, tokens_line
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from bpe_tui.text import cell_width, counted, pad_cells
from core.analysis.lenses.fragments import FragmentsResult, fragments

DEFAULT_TEXT = "It's 2024: don't split  these words!<|endoftext|>"


def compute(context: LensContext, options: Mapping[str, Any]) -> FragmentsResult:
    return fragments(context.model, options["text"], context.tokenizer, specials=options["specials"])


def render_text(result: FragmentsResult) -> str:
    width = max((cell_width(quoted(f.text)) for f in result.fragments), default=0)
    lines = [f"{counted(len(result.fragments), 'fragment')}; tokens crossing a fragment boundary: {result.crossing}"
             + ("" if result.specials else " (special tokens read as text)")]
    for fragment in result.fragments:
        kind = "special" if fragment.special else counted(fragment.bytes, "byte")
        lines.append(f"  {pad_cells(quoted(fragment.text), width)}  {kind:>9}  -> {tokens_line(fragment.tokens)}")
    return "\n".join(lines)


def _view() -> type:
    from bpe_tui.lenses.views.fragments import FragmentsView

    return FragmentsView


LENS = LensSpec(
    name="fragments",
    title="Fragments",
    description="Pre-tokenisation by the tokenizer's own pattern: no merge crosses a fragment",
    options=(
        LensOption("text", "text", "text", default=DEFAULT_TEXT, help="the text to cut"),
        LensOption("specials", "special tokens", "bool", default=True,
                   help="recognise special tokens (off: their text is cut like any other)"),
    ),
    compute=compute,
    render_text=render_text,
    view=_view,
)
