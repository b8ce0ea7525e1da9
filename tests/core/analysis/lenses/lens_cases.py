"""Tokenizers the lens tests share: GPT-2 from the bundled files, and a small one trained on the English sample."""

from __future__ import annotations

from functools import cache

from core.encode.tokenizer import Tokenizer
from core.model import BPEModel
from core.train.run import TrainingRun
from tests.core.encode.tokenizer_cases import gpt2_tokenizer
from tests.data_paths import SAMPLES

EOT = "<|endoftext|>"


@cache
def gpt2_model() -> BPEModel:
    """GPT-2 as a model (with ``<|endoftext|>`` as its special token)."""
    return gpt2_tokenizer().model


@cache
def english_model(vocab_size: int = 400) -> BPEModel:
    """A tokenizer trained on the bundled English sample, ``<|endoftext|>`` special (ids 256 + merges after)."""
    text = (SAMPLES / "english.txt").read_text(encoding="utf-8")
    run = TrainingRun.from_text(text, vocab_size, [EOT], workers=1)
    for _ in run.events():
        pass
    return run.result()


@cache
def english_tokenizer(vocab_size: int = 400) -> Tokenizer:
    return Tokenizer.from_model(english_model(vocab_size))
