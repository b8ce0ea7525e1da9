"""The merge engine's ways of merging and its cold pairs, each checked against the reference's recount.

``core.train.word_store`` merges a handful of pre-tokens in a Python loop and many of them through one joined
string, ``core.train.joined_words`` splits the whole text for the first, dense merges, and ``core.train.pair_queue`` leaves
rare new pairs uncounted until the best count falls to them. Each combination must pick exactly the pairs,
counts and runner-up counts that recounting from scratch gives, through the point where the cold pairs are
brought back.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.core.reference_runs import apply_merges

from core import reference
from core.train import joined_words, word_store
from core.train.reading import count_pretokens
from core.train.pair_queue import PairMerger, descending_key
from core.pretokenize.patterns import GPT2_PATTERN
from core.train.worker_pool import WorkerPool

SPECIAL = "<|endoftext|>"
BASE = {i: bytes([i]) for i in range(256)}


def engine(text: str, cold_below: int) -> tuple[PairMerger, dict[int, bytes]]:
    vocab = dict(BASE)
    return PairMerger(dict(count_pretokens(text, [SPECIAL], GPT2_PATTERN)), vocab, cold_below), vocab


@pytest.mark.parametrize(
    ("index_below", "few_words", "cold_below"),
    [(None, 0, 1), (None, 0, 8), (None, 10**9, 8), (None, 64, 8), (None, 64, 40), (20, 64, 8), (0, 64, 8)],
    ids=[
        "joined-all-counted", "joined-cold", "loop-cold", "both-cold", "both-very-cold",
        "whole-text-then-both", "whole-text-throughout",
    ],
)
def test_each_merge_matches_a_full_recount(
    samples_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    index_below: int | None,
    few_words: int,
    cold_below: int,
) -> None:
    monkeypatch.setattr(word_store, "FEW_WORDS", few_words)
    if index_below is not None:  # merge on the whole joined text until a merge has fewer occurrences
        monkeypatch.setattr(joined_words.JoinedWords, "suits", staticmethod(lambda words, freqs: True))
        monkeypatch.setattr(joined_words.JoinedWords, "is_sparse", lambda self, count: count < index_below)
        if index_below:  # and in many short segments
            monkeypatch.setattr(joined_words, "JOINED_SEGMENT_CHARS", 500)
    text = (samples_dir / "mixed.txt").read_text(encoding="utf-8")
    merger, vocab = engine(text, cold_below)
    assert isinstance(merger.words, joined_words.JoinedWords) == (index_below is not None)
    if index_below:
        assert len(merger.words._segments) > 10
    words = reference.count_words(text, [SPECIAL])
    for _ in range(300):
        ranked = reference.ranked_pairs(reference.count_pairs(words))
        pair, count, runner_up = merger.pop_best()
        left, right = vocab[ord(pair[0])], vocab[ord(pair[1])]
        assert (left, right, count) == ranked[0]
        assert runner_up == (ranked[1][2] if len(ranked) > 1 else 0)
        merger.apply(pair, len(vocab))
        words = apply_merges(words, [(left, right)])
    assert count < cold_below or cold_below == 1, "the run should have reached the cold pairs"
    assert isinstance(merger.words, word_store.WordStore) == (index_below != 0)
    assert merger.queue.cold_below == 1


def test_a_word_of_one_repeated_letter_in_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    # "aaaaa" -> "aa aa a" -> "aaaa a": touching occurrences, the case where neighbours are other occurrences.
    for few_words in (0, 10**9):
        monkeypatch.setattr(word_store, "FEW_WORDS", few_words)
        merger, vocab = engine(" ".join(["aaaaa"] * 3 + ["aaa"] * 2 + ["xaaaay"]), cold_below=8)
        made = []
        while (best := merger.pop_best()) is not None:
            pair, count, _ = best
            made.append((vocab[ord(pair[0])], vocab[ord(pair[1])], count))
            merger.apply(pair, len(vocab))
        words = reference.count_words(" ".join(["aaaaa"] * 3 + ["aaa"] * 2 + ["xaaaay"]), [SPECIAL])
        expected = []
        while pairs := reference.count_pairs(words):
            expected.append(reference.ranked_pairs(pairs)[0])
            words = apply_merges(words, [expected[-1][:2]])
        assert made == expected


def test_once_every_pair_is_counted_none_is_counted_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # A corpus of one repeated byte leaves one kind of pair after each merge (aa aa ... -> aaaa aaaa ...), so
    # no runner-up. Every pair was then counted again from the pre-tokens, merge after merge, though none
    # was cold any more: a pass over the whole text each time (20 MB of "a": 22 s, now 12 s).
    from core.train.pair_queue import PairQueue

    recounts = []
    warm_all = PairQueue.warm_all
    monkeypatch.setattr(PairQueue, "warm_all", lambda self, recount: (recounts.append(1), warm_all(self, recount)))
    text = "a" * 4096
    merger, vocab = engine(text, cold_below=8)
    made = []
    while (best := merger.pop_best()) is not None:
        made.append((vocab[ord(best[0][0])], vocab[ord(best[0][1])]))
        merger.apply(best[0], len(vocab))
    assert made == reference.train(text, 1000)[1]
    assert len(made) == 12 and len(recounts) == 1


def test_top_pairs_include_cold_pairs(samples_dir: Path) -> None:
    text = (samples_dir / "japanese.txt").read_text(encoding="utf-8")
    words = reference.count_words(text, [SPECIAL])
    merges_so_far = []
    for _ in range(5):
        merges_so_far.append(reference.ranked_pairs(reference.count_pairs(words))[0][:2])
        words = apply_merges(words, merges_so_far[-1:])
    expected = reference.ranked_pairs(reference.count_pairs(words))[:12]
    # Cold from the sixth merge's count: the five merges before it reach no cold pair, but the top 12 do.
    merger, vocab = engine(text, cold_below=expected[0][2])
    assert expected[-1][2] < merger.queue.cold_below
    for _ in range(5):
        pair, _, _ = merger.pop_best()
        merger.apply(pair, len(vocab))
    assert merger.queue.cold_below > 1
    assert [(vocab[ord(p[0])], vocab[ord(p[1])], n) for p, n in merger.top_pairs(12)] == expected


def test_a_first_count_shared_with_worker_processes_changes_nothing(
    samples_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(word_store, "PARALLEL_COUNT_MIN_CHARS", 0)
    word_counts = dict(count_pretokens((samples_dir / "mixed.txt").read_text(encoding="utf-8"), [SPECIAL], GPT2_PATTERN))
    alone_vocab, shared_vocab = dict(BASE), dict(BASE)
    alone = PairMerger(word_counts, alone_vocab)
    with WorkerPool(2) as pool:
        spy = CountingPool(pool)
        shared = PairMerger(word_counts, shared_vocab, pool=spy, parts=3)  # type: ignore[arg-type]
    assert spy.calls == 1
    assert shared.queue.counts == alone.queue.counts
    assert run_merges(shared, shared_vocab, 200) == run_merges(alone, alone_vocab, 200)
    assert shared_vocab == alone_vocab


class CountingPool:
    """A process pool that counts how often work is handed to it."""

    def __init__(self, pool: WorkerPool) -> None:
        self.pool, self.calls = pool, 0

    def map_unordered(self, *args: object) -> object:
        self.calls += 1
        return self.pool.map_unordered(*args)


def run_merges(merger: PairMerger, vocab: dict[int, bytes], n: int) -> list[tuple[str, int, int]]:
    made = []
    for _ in range(n):
        best = merger.pop_best()
        assert best is not None
        made.append(best)
        merger.apply(best[0], len(vocab))
    return made


def test_the_engine_is_freed_with_its_run_not_left_for_the_garbage_collector(samples_dir: Path) -> None:
    # A reference cycle inside the engine would keep every pre-token, index list and heap entry alive
    # until a full collection (at a CLI's exit, 15 ms of a tinyshakespeare run). Cold pairs are warmed
    # here too, the path that once kept a callback to the merger.
    import gc
    import weakref

    from core.train.run import TrainingRun

    run = TrainingRun.from_text((samples_dir / "english.txt").read_text(encoding="utf-8"), 2000)
    list(run.events())
    assert run._merger is not None and run._merger.queue.cold_below == 1  # the warm-up happened
    engine_ref = weakref.ref(run._merger)
    gc.disable()
    try:
        del run
        assert engine_ref() is None
    finally:
        gc.enable()


@given(st.binary(max_size=6), st.binary(max_size=6))
def test_a_merged_tokens_key_is_made_from_its_parts_keys(left: bytes, right: bytes) -> None:
    # add_token builds the new token's tie-break key this way instead of from its bytes.
    assert descending_key(left + right) == descending_key(left)[:-1] + descending_key(right)


@pytest.mark.parametrize("long_from", [word_store.LONG_WORD_CHARS, 4])
@given(entries=st.lists(st.tuples(st.text(alphabet="abc", max_size=6), st.integers(1, 3)), max_size=30), first=st.integers(0, 5))
def test_count_pairs_counts_and_indexes_every_pair(long_from: int, entries: list[tuple[str, int]], first: int) -> None:
    # Short pre-tokens (up to three tokens) take their own branch; "aaa" has one pair twice. With long_from 4,
    # every pre-token of five tokens or more takes the branch of very long ones.
    words, freqs = [w for w, _ in entries], [f for _, f in entries]
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(word_store, "LONG_WORD_CHARS", long_from)
        counts, where = word_store.count_pairs(words, freqs, first)
    expected: dict[str, int] = {}
    places: dict[str, set[int]] = {}
    for index, (word, freq) in enumerate(entries, first):
        for a, b in zip(word, word[1:]):
            expected[a + b] = expected.get(a + b, 0) + freq
            places.setdefault(a + b, set()).add(index)
    assert counts == expected
    assert {pair: set(ids) for pair, ids in where.items()} == places
    assert all(len(ids) == len(set(ids)) for ids in where.values())  # each pre-token listed once per pair


def test_a_very_long_pre_token_is_counted_without_listing_its_pairs() -> None:
    # A line of DNA or digits is one pre-token: its pairs, listed before counting, took ~60 bytes a
    # character (a 10 MB line: 800 MB). Counted as they are made, memory holds only the distinct pairs.
    import tracemalloc

    word = "ACGT" * 25_000 + "A"  # 100,001 characters: over LONG_WORD_CHARS
    tracemalloc.start()
    try:
        counts, where = word_store.count_pairs([word, "ACG"], [2, 1])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert counts == {"AC": 50_001, "CG": 50_001, "GT": 50_000, "TA": 50_000}
    assert where == {"AC": [0, 1], "CG": [0, 1], "GT": [0], "TA": [0]}
    assert peak < len(word)  # the word itself is not counted here: it was made before tracing began


def test_a_merge_indexes_each_pre_token_once_per_new_pair() -> None:
    # Merging (a, b) in "abab...ab" makes (X, X) 999 times in one pre-token: the index listed it 999 times,
    # which a line of DNA or digits, merge after merge, grew by millions of entries.
    store = word_store.WordStore(["ab" * 1000, "abc"], [1, 2])
    store.recount()
    deltas = store.merge("ab", "X")
    assert deltas["XX"] == 999 and deltas["Xc"] == 2
    assert store._where["XX"] == [0] and store._where["Xc"] == [1]
