"""The vocab lens: 256 + merges + special tokens, and the ladder of shipped vocabularies (see
:mod:`core.analysis.lenses.vocab`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpe_tui.lenses.spec import LensContext, LensSpec
from core.analysis.lenses.vocab import VocabResult, tiktoken_cache_dir, vocab_arithmetic


def compute(context: LensContext, options: Mapping[str, Any]) -> VocabResult:
    return vocab_arithmetic(context.model, tiktoken_cache_dir())


def render_text(result: VocabResult) -> str:
    lines = [f"this tokenizer: {result.sum_text}", "shipped vocabularies:"]
    width = max(len(rung.name) for rung in result.ladder)
    for rung in result.ladder:
        note = rung.note
        lines.append(f"  {rung.name:<{width}}  {rung.vocab:>9,}" + (f"  {note}" if note else ""))
    lines.append(f"  {'(this one)':<{width}}  {result.total:>9,}")
    if any(rung.unassigned is None and rung.name in ("cl100k_base", "o200k_base") for rung in result.ladder):
        lines.append("(ids with no string are counted for cl100k/o200k only when tiktoken has their files cached)")
    return "\n".join(lines)


def _view() -> type:
    from bpe_tui.lenses.views.vocab import VocabView

    return VocabView


LENS = LensSpec(
    name="vocab",
    title="Vocabulary sums",
    description="The vocabulary as 256 bytes + merges + special tokens, beside shipped tokenizers",
    options=(),
    compute=compute,
    render_text=render_text,
    view=_view,
)
