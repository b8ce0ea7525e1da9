"""The longest-match lens's view: both encodings one above the other, the fragments where they differ listed."""

from __future__ import annotations

from textual.content import Content

from bpe_tui.lenses.views.base import LensView, dim, heading, token_row
from bpe_tui.text import escape_token
from core.analysis.lenses.longest_match import LongestMatchResult


class LongestMatchView(LensView):
    """Merge replay above greedy longest match, with ids; differing fragments below."""

    def render_result(self, result: LongestMatchResult) -> Content:
        count = len(result.differences)
        verdict = "same ids" if result.same else f"{count} fragment{'s differ' if count > 1 else ' differs'}"
        lines = [
            Content.assemble(heading(verdict), dim(f"  replay {len(result.replay)} tokens, "
                                                   f"longest match {len(result.longest_match)}")),
            Content(""),
            dim("merge replay (what encode gives)"),
            token_row(result.replay, result.replay_tokens, show_ids=True),
            dim("greedy longest match"),
            token_row(result.longest_match, result.longest_tokens, show_ids=True),
            Content(""),
        ]
        for difference in result.differences:
            lines.append(Content.assemble(
                (f"{escape_token(difference.fragment)}  ", "bold"),
                token_row(range(len(difference.replay)), difference.replay), dim("  vs  "),
                token_row(range(len(difference.longest_match)), difference.longest_match),
            ))
        note = ("every id is valid and both decode to the same text: the failure is silent"
                if result.all_valid else "some ids are not valid")
        lines.append(Content.styled(note, "italic $readable-warning" if not result.same else "dim"))
        return Content("\n").join(lines)
