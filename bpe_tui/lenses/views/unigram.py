"""The unigram lens's view: the count, BPE's rank, and the best segmentations with BPE's marked."""

from __future__ import annotations

from textual.content import Content

from bpe_tui.lenses.views.base import LensView, dim, heading, token_row
from core.analysis.lenses.unigram import UnigramResult


class UnigramView(LensView):
    """The most probable segmentations of a word under a unigram model; BPE's highlighted."""

    def render_result(self, result: UnigramResult) -> Content:
        lines = [
            Content.assemble(heading(f"{result.count:,}"), " segmentations",
                             dim(f"  (log p from {result.corpus_tokens:,} tokens of text, add-one smoothed)")),
            Content.assemble("BPE's ranks ", heading(result.rank_text), f"  log p {result.bpe.logprob:.3f}  ",
                             token_row(range(len(result.bpe.tokens)), result.bpe.tokens)),
            Content(""),
        ]
        for number, segmentation in enumerate(result.segmentations, 1):
            ours = segmentation.tokens == result.bpe.tokens
            lines.append(Content.assemble(
                ("▸" if ours else " ", "bold $readable-accent"), dim(f"{number:>3} "),
                (f"{segmentation.logprob:9.3f}  ", "bold $readable-accent" if ours else ""),
                token_row(range(len(segmentation.tokens)), segmentation.tokens),
            ))
        return Content("\n").join(lines)
