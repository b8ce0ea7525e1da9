"""The whitespace lens: two words in four spacings (see :mod:`core.analysis.lenses.whitespace`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpe_tui.lenses.shown import quoted, tokens_line
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from bpe_tui.text import counted
from core.analysis.lenses.whitespace import SPACINGS, WhitespaceVariants, whitespace_variants
from core.errors import SettingsError


def compute(context: LensContext, options: Mapping[str, Any]) -> WhitespaceVariants:
    words = options["words"].split()
    if len(words) != 2:
        raise SettingsError(f"give the whitespace lens exactly two words (--words 'hello world'), not {len(words)}")
    return whitespace_variants(context.tokenizer, words[0], words[1])


def render_text(result: WhitespaceVariants) -> str:
    width = max(len(quoted(variant.text)) for variant in result.variants)
    lines = []
    for name, variant in zip(SPACINGS, result.variants):
        lines.append(f"  {name:<14} {quoted(variant.text):<{width}}  {counted(variant.count, 'token'):<9} {tokens_line(variant.tokens)}")
    return "\n".join(lines)


def _view() -> type:
    from bpe_tui.lenses.views.whitespace import WhitespaceView

    return WhitespaceView


LENS = LensSpec(
    name="whitespace",
    title="Whitespace",
    description="The same two words plain, with a trailing, a leading and a double space",
    options=(LensOption("words", "two words", "text", default="hello world", help="the two words, space-separated"),),
    compute=compute,
    render_text=render_text,
    view=_view,
)
