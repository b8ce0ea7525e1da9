"""The wordpiece lens: BPE's frequency score against WordPiece's likelihood score (see
:mod:`core.analysis.lenses.wordpiece`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpe_tui.lenses.pairs import corpus_option, word_counts
from bpe_tui.lenses.shown import pair_text
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from bpe_tui.text import cell_width, counted, pad_cells
from core.analysis.lenses.wordpiece import WordpieceResult, compare_scores


def compute(context: LensContext, options: Mapping[str, Any]) -> WordpieceResult:
    return compare_scores(word_counts(context, options["corpus"]), options["merges"])


def render_text(result: WordpieceResult) -> str:
    shared_pairs = {m.pair for m in result.bpe} & {m.pair for m in result.wordpiece}
    lines = [f"{counted(len(result.bpe), 'merge')} each; {counted(result.shared, 'pair')} merged by both (marked *); "
             "ties go to the lexicographically greater pair"]
    left = [f"{pair_text(m.pair)}  {m.score_text(False)}" for m in result.bpe]
    width = max(map(cell_width, left), default=0)
    lines.append(f"      {'BPE: count(ab)':<{width + 1}}   WordPiece: count(ab)/(count(a)·count(b))")
    for rank in range(max(len(result.bpe), len(result.wordpiece))):
        cells = []
        for merges, texts, likelihood in ((result.bpe, left, False), (result.wordpiece, None, True)):
            if rank >= len(merges):
                cells.append("")
                continue
            merge = merges[rank]
            mark = "*" if merge.pair in shared_pairs else " "
            text = texts[rank] if texts is not None else f"{pair_text(merge.pair)}  {merge.score_text(likelihood)}"
            cells.append(f"{mark}{text}")
        lines.append(f"  {rank + 1:>3} {pad_cells(cells[0], width + 1)}   {cells[1]}".rstrip())
    return "\n".join(lines)


def _view() -> type:
    from bpe_tui.lenses.views.wordpiece import WordpieceView

    return WordpieceView


LENS = LensSpec(
    name="wordpiece",
    title="BPE vs WordPiece",
    description="On the pairs corpus, BPE's count(ab) against WordPiece's count(ab)/(count(a)·count(b))",
    options=(
        LensOption("merges", "merges", "int", default=10, minimum=1, maximum=200, help="how many merges each makes (default 10)"),
        corpus_option("word-count lines, any text, or shards (.jsonl...) (default: the bundled samples/word_counts.txt)", "samples/word_counts.txt"),
    ),
    compute=compute,
    render_text=render_text,
    view=_view,
)
