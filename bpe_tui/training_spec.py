"""What a training run is asked to do (``TrainingSpec``), and the one place a spec becomes a core ``TrainingRun``.

The app's form, its start-up run and ``bpe-tui train`` all describe a run as a spec, and all turn it into
a run with :func:`training_run`, so the app's child process and the CLI cannot build runs differently.
Nothing here imports Textual or starts a process: the CLI and the training process import it too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.train.run import TrainingRun


@dataclass(frozen=True)
class TrainingSpec:
    """Everything a training run needs, picklable so it can cross into the child process.

    Attributes:
        vocab_size: the vocabulary size to train to.
        corpus_path: the corpus (a text file, a shard, a folder of shards, a glob or a URL: a string keeps
            a URL's ``//``), or ``None`` to train on ``text``.
        text: in-memory text to train on (the start-up tokenizer), or ``None``.
        special_tokens: special token strings; also where documents are split.
        workers: pre-tokenisation processes (``None``: one per CPU).
        min_frequency: stop merging when the best pair is rarer than this.
        errors: what to do with bytes that are not UTF-8: ``"strict"`` refuses the corpus, ``"replace"``
            trains on U+FFFD in their place (as ``bpe-tui train --errors``).
        text_field: the JSON field or Parquet column holding a record's text (a corpus of shards).
        skip_bad_records: skip and count bad records instead of stopping at the first.
        dask: a Dask scheduler address or ``local[:N]`` to count shards on, or ``None`` to count here.
        base: ``"bytes"``, or ``"chars"`` to start from the corpus's characters (``bpe-tui train --base``).
        min_char_count: with the character base, the fewest occurrences a character needs for a token.
        min_count: pre-tokens seen fewer times in the whole corpus are dropped before merging (1 keeps all).
        label: what the run is called in the UI and in the tokenizer's name.
        measure_texts: ``(name, text)`` pairs whose bytes/token is re-measured during the run.
    """

    vocab_size: int
    corpus_path: Path | str | None = None
    text: str | None = None
    special_tokens: tuple[str, ...] = ()
    workers: int | None = None
    min_frequency: int = 0
    errors: str = "strict"
    text_field: str = "text"
    skip_bad_records: bool = False
    dask: str | None = None
    base: str = "bytes"
    min_char_count: int = 1
    min_count: int = 1
    label: str = ""
    measure_texts: tuple[tuple[str, str], ...] = field(default=(), repr=False)


def training_run(spec: TrainingSpec) -> TrainingRun:
    """The core's run for ``spec``: what the training process and ``bpe-tui train`` iterate.

    Raises:
        SettingsError: the spec's settings are invalid.
        CorpusError: the corpus file cannot be trained on.

    >>> from core.train.events import MergeMade
    >>> run = training_run(TrainingSpec(vocab_size=258, text="ab ab<|x|>ab", special_tokens=("<|x|>",)))
    >>> [event.token for event in run.events() if isinstance(event, MergeMade)]
    [b'ab']
    """
    from core.train.run import TrainingRun  # here: the app's start-up needs the spec, not the trainer

    return TrainingRun(
        spec.corpus_path,
        spec.vocab_size,
        spec.special_tokens,
        text=spec.text,
        workers=spec.workers,
        min_frequency=spec.min_frequency,
        errors=spec.errors,
        text_field=spec.text_field,
        skip_bad_records=spec.skip_bad_records,
        dask=spec.dask,
        base=spec.base,
        min_char_count=spec.min_char_count,
        min_count=spec.min_count,
    )
