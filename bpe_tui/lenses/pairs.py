"""The pairs lens: weighted pair counts pass by pass on a word-frequency corpus (see :mod:`core.analysis.lenses.pairs`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bpe_tui.lenses.corpus_files import bundled, read_corpus
from bpe_tui.lenses.shown import pair_text, symbols_text
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from core.analysis.lenses.pairs import PairsResult, corpus_words, pair_passes
from core.errors import CorpusError
from core.input_files import shown_path

WORD_COUNTS = "word_counts.txt"
"""The bundled word-frequency corpus in the samples folder."""

SHOWN_PAIRS = 8
SHOWN_WORDS = 12


def corpus_option(help_text: str, default_name: str) -> LensOption:
    """The corpus field: ``help_text`` for ``--help``, and the default's short name for the pane's field."""
    return LensOption("corpus", "corpus", "path", default=None, help=help_text, hint=f"a path (empty: {default_name})")


def word_counts(context: LensContext, corpus: str | None) -> dict[str, int]:
    """The corpus the pairs and wordpiece lenses work on: ``corpus``, or the bundled word counts."""
    path = Path(corpus) if corpus else bundled(context.samples_dir, WORD_COUNTS)
    text = read_corpus(path)
    try:
        return corpus_words(text, context.model.pattern, tuple(context.model.special_tokens))
    except CorpusError as error:
        raise CorpusError(f"{shown_path(path)}: {error}") from None


def compute(context: LensContext, options: Mapping[str, Any]) -> PairsResult:
    return pair_passes(word_counts(context, options["corpus"]), options["passes"])


def render_text(result: PairsResult) -> str:
    lines = [f"{len(result.start)} words, {result.start_symbols:,} symbols; each pass merges the most frequent "
             "pair (a tie goes to the lexicographically greater pair)"]
    for number, done in enumerate(result.passes, 1):
        tie = f"  tied with {', '.join(pair_text(p) for p in done.tied_with)}: the greater pair wins" if done.tied_with else ""
        lines.append(f"pass {number}: {pair_text(done.pair)}  count {done.count:,}{tie}  -> {done.symbols:,} symbols")
        top = ", ".join(f"{pair_text(pair)} {count}" for pair, count in done.counts[:SHOWN_PAIRS])
        more = f", … {len(done.counts) - SHOWN_PAIRS} more" if len(done.counts) > SHOWN_PAIRS else ""
        lines.append(f"  counts: {top}{more}")
        words = ", ".join(symbols_text(word, count) for word, count in done.words[:SHOWN_WORDS])
        more = f", … {len(done.words) - SHOWN_WORDS} more" if len(done.words) > SHOWN_WORDS else ""
        lines.append(f"  corpus: {words}{more}")
    if not result.passes:
        lines.append("no pair to merge: every word is a single symbol")
    return "\n".join(lines)


def _view() -> type:
    from bpe_tui.lenses.views.pairs import PairsView

    return PairsView


LENS = LensSpec(
    name="pairs",
    title="Pair counts",
    description="Weighted pair counts pass by pass on a word-frequency corpus, ties and all",
    options=(
        LensOption("passes", "passes", "int", default=10, minimum=1, maximum=200, help="how many passes, one merge each (default 10)"),
        corpus_option("word-count lines, any text, or shards (.jsonl...) (default: the bundled samples/word_counts.txt)", "samples/word_counts.txt"),
    ),
    compute=compute,
    render_text=render_text,
    view=_view,
)
