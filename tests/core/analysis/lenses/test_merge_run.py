"""Merge replay without a scan per merge: the heap's merges are the reference's, and the slider's curve
(one run per distinct fragment) equals re-encoding at each k, with lookups linear in the text, not quadratic."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.lenses.replay import merge_fragment, merge_run
from core.analysis.lenses.slider import slider
from core.analysis.lenses.tables import ModelTables
from core.model import BPEModel
from core.reference import encode_pretoken, train

TOY_VOCAB, TOY_MERGES = train("aaab abab bbba aab ba ab aaaa bbbb " * 3, 256 + 12)
TOY_RANKS = {pair: rank for rank, pair in reversed(list(enumerate(TOY_MERGES)))}


@settings(max_examples=200, deadline=None)
@given(word=st.text(alphabet="ab", max_size=40), limit=st.one_of(st.none(), st.integers(0, len(TOY_MERGES))))
def test_merge_run_makes_the_reference_merges(word: str, limit: int | None) -> None:
    start = [bytes([b]) for b in word.encode()]
    ranks = TOY_RANKS if limit is None else {pair: rank for pair, rank in TOY_RANKS.items() if rank < limit}
    tokens, made = merge_run(start, TOY_RANKS, limit)
    assert tokens == encode_pretoken(word.encode(), ranks)
    assert made == [rank for rank, _i, _after in merge_fragment(word.encode(), ranks)]


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet="ab ", max_size=60), k=st.integers(0, len(TOY_MERGES)))
def test_slider_curve_is_the_count_with_the_first_k_merges(text: str, k: int) -> None:
    model = BPEModel(TOY_VOCAB, TOY_MERGES)
    result = slider(model, text, k, curve_points=len(TOY_MERGES))
    assert result.curve == tuple((j, slider(model, text, j, curve_points=1).count) for j in range(len(TOY_MERGES) + 1))
    assert result.count == dict(result.curve)[k]


class CountingRanks(dict):
    """A merge-rank table that counts its lookups."""

    lookups = 0

    def get(self, key, default=None):  # type: ignore[override]
        CountingRanks.lookups += 1
        return super().get(key, default)


def test_a_long_fragment_costs_lookups_linear_in_its_length(monkeypatch: pytest.MonkeyPatch) -> None:
    # "a" * 4000 is one fragment for GPT-2's pattern; a scan per merge looked up ~n²/2 pairs at each of
    # the curve's 41 points (minutes of work), a heap looks each new pair up once.
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"aa", 257: b"aaaa", 258: b"aaaaaaaa"}
    model = BPEModel(vocab, [(b"a", b"a"), (b"aa", b"aa"), (b"aaaa", b"aaaa")])
    plain = ModelTables.of
    monkeypatch.setattr(ModelTables, "of", classmethod(lambda cls, m: (t := plain(m)) and
                                                       cls(t.model, t.ids, CountingRanks(t.ranks))))
    CountingRanks.lookups = 0
    result = slider(model, "a" * 4000, 2)
    assert result.count == 1000 and result.curve[-1] == (3, 500)
    assert CountingRanks.lookups < 20 * 4000
