"""The unigram lens: a word's segmentations ranked by a unigram model of the tokenizer's own token
frequencies (see :mod:`core.analysis.lenses.unigram`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bpe_tui.lenses.corpus_files import read_corpus
from bpe_tui.lenses.pairs import corpus_option
from bpe_tui.lenses.shown import tokens_line
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from core.analysis.lenses.unigram import RANK_DEPTH, UnigramResult, check_word, token_counts, unigram

DEFAULT_WORD = " tokenization"
CORPUS_SAMPLES = ("english", "japanese", "mixed")
"""The bundled samples the probabilities come from by default."""


def compute(context: LensContext, options: Mapping[str, Any]) -> UnigramResult:
    check_word(options["word"])  # before counting the corpus
    if options["corpus"]:
        texts = [read_corpus(Path(options["corpus"]))]
    else:
        texts = [context.samples[name] for name in CORPUS_SAMPLES if name in context.samples]
    counts = token_counts(context.tokenizer, texts)
    return unigram(context.model, options["word"], counts, options["top"], context.tokenizer)


def render_text(result: UnigramResult) -> str:
    lines = [
        f"{result.count:,} segmentations into vocabulary tokens (counted by dynamic programming); "
        f"probabilities from {result.corpus_tokens:,} corpus tokens, add-one smoothed",
        f"BPE's segmentation ranks {result.rank_text}: {tokens_line(result.bpe.tokens)}  "
        f"log p = {result.bpe.logprob:.3f}",
    ]
    for number, segmentation in enumerate(result.segmentations, 1):
        mark = "*" if segmentation.tokens == result.bpe.tokens else " "
        lines.append(f"{mark}{number:>4}  {segmentation.logprob:9.3f}  {tokens_line(segmentation.tokens)}")
    return "\n".join(lines)


def _view() -> type:
    from bpe_tui.lenses.views.unigram import UnigramView

    return UnigramView


LENS = LensSpec(
    name="unigram",
    title="Unigram ranking",
    description="Every segmentation of a word, ranked by a unigram model of the tokenizer's own token counts",
    options=(
        LensOption("word", "word", "text", default=DEFAULT_WORD, help="the word to segment"),
        LensOption("top", "top", "int", default=20, minimum=1, maximum=RANK_DEPTH, help="how many segmentations to list (default 20)"),
        corpus_option(
            "the text token counts come from (default: the bundled English, Japanese and mixed samples)", "the samples"
        ),
    ),
    compute=compute,
    render_text=render_text,
    view=_view,
)
