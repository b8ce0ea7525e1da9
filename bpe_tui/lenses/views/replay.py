"""The replay lens's view: the word's bytes, then one line per merge (rank, pair) with the tokens after it."""

from __future__ import annotations

from rich.cells import cell_len
from textual.content import Content

from bpe_tui.lenses.views.base import LensView, dim, heading, padded, token_row
from bpe_tui.text import escape_token
from core.analysis.lenses.replay import ReplayResult


class ReplayView(LensView):
    """Merge replay of one word: each step's lowest-rank pair and the word after merging it."""

    def render_result(self, result: ReplayResult) -> Content:
        # Tokens of a step are numbered by position so neighbours take different colours; ids come last.
        def row(tokens: tuple[bytes, ...]) -> Content:
            return token_row(range(len(tokens)), tokens)

        width = max((cell_len(escape_token(a)) + cell_len(escape_token(b)) + 3 for a, b in (s.pair for s in result.steps)),
                    default=0)
        lines = [
            Content.assemble(heading(escape_token(result.word)), dim(f"  {len(result.steps)} merges, "
                                                                     f"{len(result.start)} → {len(result.tokens)} tokens")),
            Content.assemble(dim(f"{'start':<13}{'':<{width}}  "), row(result.start)),
        ]
        for step in result.steps:
            pair = f"{escape_token(step.pair[0])} + {escape_token(step.pair[1])}"
            lines.append(Content.assemble(dim("rank "), f"{step.rank:>6}  ", f"{padded(pair, width)}  ", row(step.tokens)))
        lines += [Content(""), Content.assemble(dim("ids  "), token_row(result.ids, result.tokens, show_ids=True))]
        return Content("\n").join(lines)
