"""Shared material for the format, fingerprint and export tests: small tokenizers, tricky texts, references.

The small tokenizers are trained here, in memory; the GPT-2 one comes from the files bundled in
``samples/gpt2`` and is cached because loading it takes a moment. None of them needs the shared data.
"""

from __future__ import annotations

import functools

from core.train.events import TrainingFinished
from core.formats import load_tokenizer
from core.model import BPEModel
from core.pretokenize.patterns import GPT2_PATTERN
from core.train.run import TrainingRun
from tests.data_paths import GPT2_DIR

SPECIAL = "<|endoftext|>"

TRAINING_TEXT = (
    "The quick brown fox jumps over the lazy dog. The dog didn't mind; it's lazy, they're sure.\n"
    "Numbers: 1234, 56.78 and 2024-06-01.   Spaces   everywhere\t\ttabs\r\nwindows lines\n\n"
    "猫が好きです。犬も好きです。今日は天気がいいですね。カタカナとひらがなと漢字。\n"
    "emoji 🎉🎉 and naïve café façade résumé\n"
) * 3

TEXTS = [
    "",
    "a",
    " ",
    "Hello, world!",
    "The lazy dog didn't jump; they'll see. I'VE 123 4567 89",
    "naïve café — “quotes” and ‘apostrophes’",
    "日本語のテキストです。猫が好き。",
    "emoji 🎉👩‍👩‍👧 flags 🇯🇵",
    "tabs\tand\r\nwindows\nnewlines\n\n\n  spaces   \n",
    "control \x00\x01\x1b[31mred\x7f",
    "def f(x):\n    return x ** 2  # square\n",
    f"one{SPECIAL}two {SPECIAL} three{SPECIAL}{SPECIAL}",
    f"{SPECIAL}",
    "   leading and trailing   ",
    "\u3000ideographic space\u00a0nbsp",
]
"""Text the round-trip and reference tests encode: empty, one character, emoji, Japanese, control
characters, whitespace runs, code, and special tokens glued to text."""


def train_small(
    pattern: str = GPT2_PATTERN, vocab_size: int = 420, special_tokens: tuple[str, ...] = (SPECIAL,)
) -> BPEModel:
    """A tokenizer trained on :data:`TRAINING_TEXT` (ids: bytes, then specials, then merges)."""
    run = TrainingRun.from_text(TRAINING_TEXT, vocab_size, list(special_tokens), workers=1, pattern=pattern)
    finished = [event for event in run.events() if isinstance(event, TrainingFinished)]
    return finished[-1].model


@functools.cache
def small_model() -> BPEModel:
    return train_small()


@functools.cache
def gpt2_model() -> BPEModel:
    """GPT-2's tokenizer, loaded from the folder holding its ``vocab.json`` + ``merges.txt``."""
    return load_tokenizer(GPT2_DIR)


def tiktoken_encoding(ranks: dict[bytes, int], special_tokens: dict[str, int], pattern: str = GPT2_PATTERN):
    """An offline ``tiktoken.Encoding`` (never ``get_encoding``: no network in tests)."""
    import tiktoken

    return tiktoken.Encoding("bpe-tui-test", pat_str=pattern, mergeable_ranks=ranks, special_tokens=special_tokens)


def encoder(model: BPEModel):
    """Our tokenizer for ``model``."""
    from core.encode.tokenizer import Tokenizer

    return Tokenizer.from_model(model)
