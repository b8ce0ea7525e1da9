"""The sharded merge engine must choose exactly the merges the single-process one does."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.corpus import count_pretokens
from core.merging import PairMerger
from core.patterns import GPT2_PATTERN
from core.sharded_merging import ShardedMerger


def _run(engine, vocab: dict[int, bytes], n: int) -> list[tuple[str, int, int]]:
    made = []
    try:
        for _ in range(n):
            best = engine.pop_best()
            if best is None:
                break
            engine.apply(best[0], len(vocab))
            made.append((vocab[len(vocab) - 1], best[1], best[2]))
    finally:
        engine.close()
    return made


@pytest.mark.parametrize("workers", [2, 3])
def test_sharded_merges_equal_single_process(samples_dir: Path, workers: int) -> None:
    text = "".join((samples_dir / name).read_text(encoding="utf-8") for name in ("japanese.txt", "mixed.txt"))
    word_counts = dict(count_pretokens(text, ["<|endoftext|>"], GPT2_PATTERN))
    base = {i: bytes([i]) for i in range(256)}
    single_vocab, sharded_vocab = dict(base), dict(base)
    single = _run(PairMerger(word_counts, single_vocab), single_vocab, 600)
    sharded = _run(ShardedMerger(word_counts, sharded_vocab, workers), sharded_vocab, 600)
    assert len(single) == 600
    assert sharded == single
    assert sharded_vocab == single_vocab


def test_sharded_workers_stop_on_close(samples_dir: Path) -> None:
    text = (samples_dir / "english.txt").read_text(encoding="utf-8")
    engine = ShardedMerger(dict(count_pretokens(text, [], GPT2_PATTERN)), {i: bytes([i]) for i in range(256)}, 2)
    processes = list(engine._processes)
    assert processes and all(p.is_alive() for p in processes)
    engine.close()
    assert not any(p.is_alive() for p in processes)


def test_sharding_only_when_merges_are_expensive() -> None:
    """Many short words and many merges: a round trip per merge would cost more than the work it splits."""
    from core.sharded_merging import SHARDED_MIN_UNIQUE, make_merger

    base = {i: bytes([i]) for i in range(256)}
    short = {f"w{i:06d}": 1 for i in range(SHARDED_MIN_UNIQUE)}  # 7 characters each
    engine = make_merger(short, dict(base), 2, merges=20_000)
    try:
        assert isinstance(engine, PairMerger)
    finally:
        engine.close()
    engine = make_merger(short, dict(base), 2, merges=40)
    try:
        assert isinstance(engine, ShardedMerger)
    finally:
        engine.close()
    engine = make_merger(short, dict(base), 1, merges=40)
    assert isinstance(engine, PairMerger)
