"""Lenses on a character-base model: those that re-derive an encoding step by step (replay, slider,
longest-match), and the vocab lens's sum.

Such a model starts each pre-token from its characters, not its bytes (``core.reference.initial_tokens``);
a lens that started from bytes would find no merge to make and show byte tokens ``encode`` never gives.
"""

from __future__ import annotations

from functools import cache

from core.analysis.lenses.longest_match import longest_match
from core.analysis.lenses.replay import replay
from core.analysis.lenses.slider import slider
from core.analysis.lenses.vocab import vocab_arithmetic
from core.encode.tokenizer import Tokenizer
from core.model import BPEModel
from core.train.run import TrainingRun
from tests.data_paths import SAMPLES

TEXT = "駅前の小さな本屋で、古い地図を三枚買いました。 The cat sat. 𝄞!"


@cache
def char_model() -> BPEModel:
    """Characters seen twice or more in the Japanese and English samples get tokens; the rest fall back to bytes."""
    text = (SAMPLES / "japanese.txt").read_text(encoding="utf-8") + (SAMPLES / "english.txt").read_text(encoding="utf-8")
    run = TrainingRun.from_text(text, 256 + 1200, ["<|endoftext|>"], base="chars", min_char_count=2, workers=1)
    for _ in run.events():
        pass
    return run.result()


def test_replay_starts_from_characters_and_ends_at_encode() -> None:
    model = char_model()
    result = replay(model, TEXT)
    assert list(result.ids) == Tokenizer.from_model(model).encode(TEXT)
    assert result.start[:3] == ("駅".encode(), "前".encode(), "の".encode())
    assert "𝄞".encode() not in result.start  # never seen in training: its four bytes, one token each
    assert result.steps  # merges were made (from bytes none could be)


def test_slider_at_all_merges_is_encode_and_at_none_is_the_characters() -> None:
    model = char_model()
    tokenizer = Tokenizer.from_model(model)
    full = slider(model, TEXT, len(model.merges))
    assert list(full.ids) == tokenizer.encode(TEXT)
    assert full.curve[-1] == (len(model.merges), len(tokenizer.encode(TEXT)))
    start = slider(model, TEXT, 0)
    assert start.count == len(TEXT) - 1 + 4  # one token a character, 𝄞 as four bytes


def test_longest_match_replay_side_is_encode() -> None:
    model = char_model()
    result = longest_match(model, TEXT)
    assert list(result.replay) == Tokenizer.from_model(model).encode(TEXT)
    assert result.all_valid


def test_vocab_names_a_character_base_models_characters() -> None:
    model = char_model()
    result = vocab_arithmetic(model, rank_sets={})
    characters = len(model.vocab) - 256 - len(model.merges) - 1
    assert f"+ {characters:,} characters = {len(model.vocab):,}" in result.sum_text and "other" not in result.sum_text
