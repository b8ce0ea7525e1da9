"""Property-based fuzzing of the four loaders: damaged valid files load soundly or fail in one line.

Each case takes a valid seed file (:mod:`tests.hostile.model_cases`) and damages it: bytes flipped,
inserted or deleted, a cut at a random byte or line end, lines deleted, repeated, swapped or moved, a
JSON value replaced by a huge, negative, fractional, wrong-typed or nested one, a key renamed or deleted,
two ids swapped. Loading must then end in a model that encodes every test text back exactly and keeps its
fingerprint through a save, or in a one-line ``BPEError``: never another exception, never a long wait.
The cases are the same on every run (``derandomize``); ``BPE_TUI_FUZZ_EXAMPLES`` runs more.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from core.encode.tokenizer import Tokenizer
from core.formats import load_tokenizer
from tests.hostile.model_cases import FUZZ_EXAMPLES, check_outcome, mutate, seed_count, seed_files

CI_EXAMPLES = 120
"""Mutations per seed in CI: two to four seeds a format, so 240-480 a format (about 35 s in all)."""

SLOW_SECONDS = 10.0
"""A load (with its checks) of these small files taking longer than this is a hang in the making."""

FUZZ = settings(
    max_examples=FUZZ_EXAMPLES or CI_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

SEEDS = [(fmt, index) for fmt in ("bpe-tui", "gpt2", "hf", "tiktoken") for index in range(seed_count(fmt))]


@pytest.mark.parametrize("fmt, index", SEEDS, ids=[f"{fmt}-{index}" for fmt, index in SEEDS])
def test_seed_files_load_and_pass_the_check(fmt: str, index: int) -> None:
    """The undamaged seeds are valid: the fuzzing starts from files that load."""
    with tempfile.TemporaryDirectory() as folder:
        path = _write(Path(folder), list(seed_files(fmt, index)))
        assert check_outcome(lambda: load_tokenizer(path), "seed") == "loaded"


@pytest.mark.parametrize("fmt, index", SEEDS, ids=[f"{fmt}-{index}" for fmt, index in SEEDS])
@FUZZ
@given(rng=st.randoms(use_true_random=False))
def test_damaged_file_loads_soundly_or_fails_in_one_line(fmt: str, index: int, rng: random.Random) -> None:
    mutation = mutate(rng, seed_files(fmt, index))
    note(mutation.description)
    with tempfile.TemporaryDirectory() as folder:
        path = _write(Path(folder), mutation.files)
        started = time.monotonic()
        check_outcome(lambda: load_tokenizer(path), mutation.description)
        if fmt == "gpt2":  # CS336's entry point reads the same files
            vocab, merges = Path(folder) / "vocab.json", Path(folder) / "merges.txt"
            check_outcome(lambda: Tokenizer.from_files(vocab, merges, ["<|endoftext|>"]), mutation.description)
        assert time.monotonic() - started < SLOW_SECONDS, mutation.description


@pytest.mark.parametrize("fmt", ["bpe-tui", "gpt2", "hf", "tiktoken"])
def test_mutations_reach_both_outcomes(fmt: str) -> None:
    """The damage is neither always fatal nor always harmless, so both halves of the check are exercised."""
    outcomes: Counter[str] = Counter()
    for seed in range(40):
        mutation = mutate(random.Random(seed), seed_files(fmt, seed % seed_count(fmt)))
        with tempfile.TemporaryDirectory() as folder:
            path = _write(Path(folder), mutation.files)
            outcomes[check_outcome(lambda: load_tokenizer(path), mutation.description)] += 1
    assert outcomes["loaded"] >= 3 and outcomes["error"] >= 10, outcomes


def _write(folder: Path, files: list[tuple[str, bytes]]) -> Path:
    for name, content in files:
        (folder / name).write_bytes(content)
    return folder / files[0][0]
