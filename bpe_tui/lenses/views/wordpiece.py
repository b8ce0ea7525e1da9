"""The wordpiece lens's view: the two merge tables side by side, pairs both made highlighted."""

from __future__ import annotations

from rich.cells import cell_len
from textual.content import Content

from bpe_tui.lenses.views.base import LensView, dim, heading
from bpe_tui.text import escape_token
from core.analysis.lenses.wordpiece import ScoredMerge, WordpieceResult


def _cell(merge: ScoredMerge | None, likelihood: bool, shared: set[tuple[bytes, bytes]], width: int) -> Content:
    if merge is None:
        return Content(" " * width)
    text = f"{escape_token(merge.pair[0])} + {escape_token(merge.pair[1])}"
    score = merge.score_text(likelihood)
    padding = " " * max(0, width - cell_len(text) - cell_len(score) - 2)
    style = "bold $readable-accent" if merge.pair in shared else ""
    return Content.assemble((text, style), "  ", padding, dim(score))


class WordpieceView(LensView):
    """BPE's merges beside WordPiece's, rank by rank; ←/→ adds or removes a merge from both."""

    def render_result(self, result: WordpieceResult) -> Content:
        shared = {m.pair for m in result.bpe} & {m.pair for m in result.wordpiece}
        width = max([cell_len(f"{escape_token(m.pair[0])} + {escape_token(m.pair[1])}") + 2 + cell_len(m.score_text(False))
                     for m in result.bpe] + [14])
        lines = [
            Content.assemble(heading(f"{result.shared} of {len(result.bpe)}"), " pairs merged by both",
                             dim(" (highlighted)")),
            dim("BPE scores count(ab), WordPiece count(ab)/(count(a)·count(b)); ties go to the greater pair"),
            Content(""),
            Content.assemble(dim(f"{'':>4} "), (f"{'BPE':<{width}}", "bold"), "   ", ("WordPiece", "bold")),
        ]
        for rank in range(max(len(result.bpe), len(result.wordpiece))):
            bpe = result.bpe[rank] if rank < len(result.bpe) else None
            piece = result.wordpiece[rank] if rank < len(result.wordpiece) else None
            lines.append(Content.assemble(dim(f"{rank + 1:>4} "), _cell(bpe, False, shared, width), "   ",
                                          _cell(piece, True, shared, 0)))
        return Content("\n").join(lines)
