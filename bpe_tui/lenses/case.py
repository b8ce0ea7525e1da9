"""The case lens: one word as `` word``, ``word``, `` Word`` and ``Word`` (see :mod:`core.analysis.lenses.case`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpe_tui.lenses.shown import ids_line, quoted, tokens_line
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from bpe_tui.text import counted
from core.analysis.lenses.case import CaseVariants, case_variants


def compute(context: LensContext, options: Mapping[str, Any]) -> CaseVariants:
    return case_variants(context.tokenizer, options["word"])


def render_text(result: CaseVariants) -> str:
    width = max(len(quoted(variant.text)) for variant in result.variants)
    forms = "four forms" if result.form_count == 4 else f"{result.form_count} forms (it has no capital letter)"
    lines = [f"{result.word!r}: {forms}, {result.distinct_ids} different ids between them"]
    for variant in result.variants:
        lines.append(
            f"  {quoted(variant.text):<{width}}  {counted(variant.count, 'token'):<9} "
            f"{ids_line(variant.ids)}  {tokens_line(variant.tokens)}"
        )
    return "\n".join(lines)


def _view() -> type:
    from bpe_tui.lenses.views.case import CaseView

    return CaseView


LENS = LensSpec(
    name="case",
    title="Case",
    description="One word as ' word', 'word', ' Word', 'Word': four unrelated ids",
    options=(LensOption("word", "word", "text", default="tokenizer", help="the word"),),
    compute=compute,
    render_text=render_text,
    view=_view,
)
