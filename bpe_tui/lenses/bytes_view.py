"""The bytes lens: a Japanese sentence's tokens with their bytes (see :mod:`core.analysis.lenses.bytes_view`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpe_tui.lenses.shown import quoted
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from core.analysis.lenses.bytes_view import DEFAULT_SENTENCE, ByteTokens, byte_tokens
from core.analysis.script_mix import SCRIPTS


def compute(context: LensContext, options: Mapping[str, Any]) -> ByteTokens:
    return byte_tokens(context.tokenizer, options["text"])


def summary_line(result: ByteTokens) -> str:
    """Characters, bytes and tokens of the whole text, and how many tokens are bare bytes."""
    data = result.to_json()
    return (
        f"{data['chars']} characters, {data['bytes']} bytes, {data['count']} tokens; "
        f"{result.bare_tokens} bare (a piece of a character, not a whole one)"
    )


def render_text(result: ByteTokens) -> str:
    lines = [summary_line(result), ""]
    width = max(len(str(span.id)) for span in result.spans)
    hex_width = min(max([24] + [len(span.token.hex(' ')) for span in result.spans]), 35)  # up to 12 bytes
    for span in result.spans:
        mark = "  bare" if span.splits_char else ""
        lines.append(f"  {span.id:>{width}}  {span.token.hex(' '):<{hex_width}} {quoted(span.token)}{mark}")
    lines += ["", f"  {'script':<7} {'chars':>6} {'bytes':>6} {'tokens':>7}"]
    for script in SCRIPTS:
        cost = result.scripts[script]
        lines.append(f"  {script:<7} {cost.chars:>6} {cost.bytes:>6} {cost.tokens:>7}")
    return "\n".join(lines)


def _view() -> type:
    from bpe_tui.lenses.views.bytes_view import BytesView

    return BytesView


LENS = LensSpec(
    name="bytes",
    title="Bytes",
    description="A Japanese sentence token by token with its bytes; bare byte tokens marked",
    options=(LensOption("text", "text", "text", default=DEFAULT_SENTENCE, help="the text (default: a Japanese sentence)"),),
    compute=compute,
    render_text=render_text,
    view=_view,
)
