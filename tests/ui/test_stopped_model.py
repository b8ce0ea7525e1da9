"""training_runner.stopped_model: a stopped run's merges so far equal a run trained to that many merges."""

from __future__ import annotations

import dataclasses

import pytest

from bpe_tui.training_spec import TrainingSpec, training_run
from bpe_tui.training_runner import stopped_model, with_corpus_hash
from core.train.events import MergeMade
from core.train.run import TrainingRun
from tests.ui.app_harness import SAMPLES


@pytest.mark.parametrize("stop_at", [1, 17, 90])
def test_the_stopped_model_is_the_run_cut_at_that_merge(stop_at: int) -> None:
    spec = TrainingSpec(vocab_size=400, corpus_path=SAMPLES / "japanese.txt", special_tokens=("<|endoftext|>",), workers=1)
    merges = [event for event in training_run(spec).events() if isinstance(event, MergeMade)][:stop_at]
    built = with_corpus_hash(stopped_model(spec, merges))
    cut = TrainingRun(spec.corpus_path, 400, spec.special_tokens, workers=1, max_merges=stop_at)
    for _ in cut.events():
        pass
    expected = cut.result()
    assert built.vocab == expected.vocab and built.merges == expected.merges
    assert built.merge_counts == expected.merge_counts and built.special_tokens == expected.special_tokens
    assert built.name == expected.name
    assert built.training is not None and expected.training is not None
    assert built.training.stopped_after == stop_at
    # Everything else is what the run itself records (the corpus hash filled in, as saving does).
    assert built.training == dataclasses.replace(expected.training, stopped_after=stop_at)
