"""The longest-match lens: greedy longest-vocabulary-match against merge replay (see
:mod:`core.analysis.lenses.longest_match`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpe_tui.lenses.shown import ids_line, quoted, tokens_line
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from core.analysis.lenses.longest_match import LongestMatchResult, longest_match

DEFAULT_TEXT = "strawberry pineapples"


def compute(context: LensContext, options: Mapping[str, Any]) -> LongestMatchResult:
    return longest_match(context.model, options["text"])


def render_text(result: LongestMatchResult) -> str:
    count = len(result.differences)
    verdict = "the same ids" if result.same else f"different ids in {count} fragment{'s' if count > 1 else ''}"
    lines = [
        f"merge replay and greedy longest match give {verdict}",
        f"  replay         {tokens_line(result.replay_tokens)}",
        f"                 {ids_line(result.replay)}",
        f"  longest match  {tokens_line(result.longest_tokens)}",
        f"                 {ids_line(result.longest_match)}",
    ]
    for difference in result.differences:
        lines.append(f"  {quoted(difference.fragment)}: replay {tokens_line(difference.replay)}, "
                     f"longest match {tokens_line(difference.longest_match)}")
    lines.append("every id is valid and both decode to the text: nothing fails, the model just sees other ids"
                 if result.all_valid else "some ids are not valid")
    return "\n".join(lines)


def _view() -> type:
    from bpe_tui.lenses.views.longest_match import LongestMatchView

    return LongestMatchView


LENS = LensSpec(
    name="longest-match",
    title="Longest match",
    description="Greedy longest-vocabulary-match against merge replay: where they part, silently",
    options=(LensOption("text", "text", "text", default=DEFAULT_TEXT, help="a word or a text"),),
    compute=compute,
    render_text=render_text,
    view=_view,
)
