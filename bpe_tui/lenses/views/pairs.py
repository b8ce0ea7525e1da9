"""The pairs lens's view: one line per pass, then the last pass in full (its pair table and the corpus after)."""

from __future__ import annotations

from rich.cells import cell_len
from textual.content import Content

from bpe_tui.lenses.shown import symbols_text
from bpe_tui.lenses.views.base import LensView, dim, heading, padded
from bpe_tui.text import escape_token
from core.analysis.lenses.pairs import PairsResult

TABLE_ROWS = 10
WORD_ROWS = 14


def _pair(pair: tuple[bytes, bytes]) -> str:
    return f"{escape_token(pair[0])} + {escape_token(pair[1])}"


class PairsView(LensView):
    """Pass by pass; ←/→ adds or removes a pass, so the last one shown in full is the one to study."""

    def render_result(self, result: PairsResult) -> Content:
        lines = [Content.assemble(heading(f"{len(result.start)} words"), f", {result.start_symbols:,} symbols",
                                  dim("; pass, pair, count → symbols after")),
                 dim("a tie goes to the lexicographically greater pair")]
        width = max((cell_len(_pair(p.pair)) for p in result.passes), default=0)
        for number, done in enumerate(result.passes, 1):
            tie = Content.styled(f"  tie: {', '.join(_pair(p) for p in done.tied_with)}", "$readable-warning") if done.tied_with else ""
            lines.append(Content.assemble(dim(f"{number:>3} "), (padded(_pair(done.pair), width), "bold"),
                                          f" {done.count:>5,}", dim(f" → {done.symbols:,}"), tie))
        if not result.passes:
            return Content("\n").join([*lines, dim("no pair to merge")])
        last = result.passes[-1]
        lines += [Content(""), heading(f"pass {len(result.passes)}: every pair's count")]
        for pair, count in last.counts[:TABLE_ROWS]:
            style = "bold $readable-accent" if pair == last.pair else "$readable-warning" if pair in last.tied_with else ""
            lines.append(Content.assemble((f"  {padded(_pair(pair), width + 4)} {count:>5,}", style)))
        if len(last.counts) > TABLE_ROWS:
            lines.append(dim(f"  … {len(last.counts) - TABLE_ROWS:,} more"))
        lines += [Content(""), heading(f"the corpus after it: {last.symbols:,} symbols")]
        lines += [Content(f"  {symbols_text(word, count)}") for word, count in last.words[:WORD_ROWS]]
        if len(last.words) > WORD_ROWS:
            lines.append(dim(f"  … {len(last.words) - WORD_ROWS:,} more words"))
        return Content("\n").join(lines)
