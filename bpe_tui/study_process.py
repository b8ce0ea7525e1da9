"""Runs a ``core.analysis.study.StudyRun`` in a separate process, as ``training_process`` runs training.

A study is a training run followed by encoding every evaluation text once per size: seconds to minutes of
pure Python holding the GIL, which in a thread would freeze the app. So it runs in a spawned child that
sends its events through a queue in batches (progress at most every 50 ms, every size and the end at
once); the Study pane's thread worker polls it and posts messages. Cancelling terminates the child and its
reading workers (``TrainingProcess.cancel``). Nothing here imports Textual.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bpe_tui.training_process import BATCH_SECONDS, CHILD_NICENESS, ChildProcess, failures_sent, silence_output
from core.analysis.coverage import DEFAULT_WINDOWS
from core.analysis.study import StudyRun
from core.analysis.study_corpus import corpus_sample
from core.train.events import PhaseProgress


@dataclass(frozen=True)
class StudySpec:
    """Everything a study needs, picklable so it can cross into the child process.

    Attributes:
        corpus_path: the corpus to train on: a text file or shards, as training reads them (its first
            4 MiB are also the first evaluation text, ``corpus``; see ``core.analysis.study_corpus``).
        sizes: the vocabulary sizes.
        texts: further evaluation texts as ``(name, text)`` pairs.
        special_tokens: as for training.
        d: the embedding width.
        windows: the context windows whose coverage each size reports.
        text_field: the JSON field or Parquet column holding a record's text (a corpus of shards).
        skip_bad_records: skip and count bad records instead of stopping at the first.
        errors: invalid UTF-8 in the corpus: ``"strict"`` stops, ``"replace"`` reads U+FFFD (as training).
    """

    corpus_path: Path
    sizes: tuple[int, ...]
    texts: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    special_tokens: tuple[str, ...] = ()
    d: int = 768
    windows: tuple[int, ...] = DEFAULT_WINDOWS
    text_field: str = "text"
    skip_bad_records: bool = False
    errors: str = "strict"


def study_run(spec: StudySpec) -> StudyRun:
    """The core's study for ``spec`` (the child makes it; tests can run it in-process).

    Raises:
        SettingsError: bad sizes or width.
        CorpusError: the corpus, or one of its records, cannot be read.
    """
    reading = {"text_field": spec.text_field, "skip_bad_records": spec.skip_bad_records, "errors": spec.errors}
    texts = {"corpus": corpus_sample(spec.corpus_path, spec.special_tokens, **reading).text, **dict(spec.texts)}
    return StudyRun(
        spec.corpus_path, spec.sizes, texts, d=spec.d, windows=spec.windows, special_tokens=spec.special_tokens,
        **reading,
    )


def _study_main(spec: StudySpec, events: multiprocessing.Queue) -> None:  # pragma: no cover - in child
    """Body of the study process: run, batch progress, always end with ``None``."""
    silence_output()
    try:
        os.nice(CHILD_NICENESS)
    except OSError:
        pass
    with failures_sent(events, doing="the study", smaller="a smaller corpus or fewer sizes"):
        last_sent = time.monotonic()
        for event in study_run(spec).events():
            now = time.monotonic()
            if isinstance(event, PhaseProgress) and now - last_sent < BATCH_SECONDS:
                continue  # progress is only ever shown as the latest
            events.put([event])
            last_sent = now


class StudyProcess(ChildProcess):
    """A study in a child process: ``start``, ``poll`` and ``cancel`` as for a training run.

    >>> import tempfile; path = Path(tempfile.mkstemp()[1]); _ = path.write_text("low low low lower lower newest")
    >>> process = StudyProcess(StudySpec(path, (258, 259)))
    >>> process.start()
    >>> events = []
    >>> while (batch := process.poll(5.0)) is not None:
    ...     events.extend(batch)
    >>> [size.vocab for size in events[-1].study.sizes]
    [258, 259]
    """

    CHILD_NAME = "bpe-tui-study"

    def __init__(self, spec: StudySpec, *, context: str = "spawn") -> None:
        super().__init__(spec, context=context)
        self.spec: StudySpec = spec

    def child_main(self) -> Callable[..., None]:
        return _study_main
