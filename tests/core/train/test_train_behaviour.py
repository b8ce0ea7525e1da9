"""Trainer behaviour on hand-made corpora: the toy merge sequence, the tie rule, special tokens, the event stream.

Expected values are worked out by hand (see the comments) or recounted by the plain reference in
``core.reference``; only the stop/resume checks compare a run with a longer run of the same trainer.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
from pathlib import Path

import pytest
from tests.core.reference_runs import apply_merges

from core import reference
from core.train.events import PHASES, MergeMade, PhaseProgress, TrainingFinished
from core.model import BPEModel, TrainingInfo
from core.train.run import TrainingRun, train_bpe

SPECIAL = "<|endoftext|>"


def merges_made(run: TrainingRun) -> list[MergeMade]:
    return [e for e in run.events() if isinstance(e, MergeMade)]


def finished(run: TrainingRun) -> TrainingFinished:
    events = list(run.events())
    assert isinstance(events[-1], TrainingFinished)
    return events[-1]


# -- the toy corpus, by hand ---------------------------------------------------------------------------------

# samples/toy.txt is "low low low lower lower newest\n". Its pre-tokens (GPT-2 pattern) are
#   "low" x1, " low" x2, " lower" x2, " newest" x1, "\n" x1 (one byte: no pairs).
# Pair counts before any merge (weighted by pre-token frequency; "_" is the space):
#   (l,o) 1+2+2 = 5   (o,w) 1+2+2 = 5   (_,l) 2+2 = 4   (w,e) 2 (lower) + 1 (newest) = 3   (e,r) 2
#   (_,n) (n,e) (e,w) (e,s) (s,t) 1 each
# 1. (l,o) and (o,w) tie at 5; b"o" > b"l", so (o,w) wins.                               -> ow, runner-up 5
#    Now: l ow | _ l ow | _ l ow e r | _ n e w e s t.  (w,e) lost "lower", so it is 1.
# 2. (l,ow) 5 is alone at the top; next best (_,l) 4.                                   -> low
# 3. (_,low) 4; next (low,e) 2 and (e,r) 2.                                              -> " low"
# 4. (" low",e) 2 ties (e,r) 2; b"e" > b" low" (0x65 > 0x20), so (e,r) wins.            -> er, runner-up 2
# 5. (" low",er) 2; everything else is 1.                                                -> " lower"
# Only " newest" has pairs left, all 1: (_,n) (n,e) (e,w) (w,e) (e,s) (s,t); the greatest left byte wins each
# tie while another pair remains:
# 6. (w,e): b"w" is the greatest left side.          _ n e we s t
# 7. (we,s): b"we" > b"s" > b"n" > b"e" > b" ".      _ n e wes t
# 8. (wes,t).                                        _ n e west
# 9. (n,e): b"n" > b"e" > b" ".                      _ ne west
# 10. (ne,west): b"ne" > b" ".                       _ newest
# 11. (_,newest), alone, runner-up 0.                then no pair is left: "no_pairs".
TOY_STEPS = [
    # left, right, count, runner_up_count, won_tie
    (b"o", b"w", 5, 5, True),
    (b"l", b"ow", 5, 4, False),
    (b" ", b"low", 4, 2, False),
    (b"e", b"r", 2, 2, True),
    (b" low", b"er", 2, 1, False),
    (b"w", b"e", 1, 1, True),
    (b"we", b"s", 1, 1, True),
    (b"wes", b"t", 1, 1, True),
    (b"n", b"e", 1, 1, True),
    (b"ne", b"west", 1, 1, True),
    (b" ", b"newest", 1, 0, False),
]


def test_toy_sample_merges_step_by_step(samples_dir: Path) -> None:
    run = TrainingRun(samples_dir / "toy.txt", 1000, [])
    events = list(run.events())
    made = [e for e in events if isinstance(e, MergeMade)]
    assert [(e.left, e.right, e.count, e.runner_up_count, e.won_tie) for e in made] == TOY_STEPS
    assert [e.new_id for e in made] == list(range(256, 256 + len(TOY_STEPS)))
    assert events[-1].reason == "no_pairs"
    assert events[-1].model.vocab[266] == b" newest"


def test_toy_literal_text_gives_the_same_sequence() -> None:
    # Without the trailing newline the pairs are the same: "\n" is a pre-token of one byte.
    made = merges_made(TrainingRun.from_text("low low low lower lower newest", 1000))
    assert [(e.left, e.right, e.count) for e in made] == [step[:3] for step in TOY_STEPS]


def test_toy_train_bpe_with_special_token_shifts_ids(samples_dir: Path) -> None:
    vocab, merges = train_bpe(samples_dir / "toy.txt", 256 + 1 + 5, [SPECIAL])
    assert merges == [step[:2] for step in TOY_STEPS[:5]]
    assert vocab[256] == SPECIAL.encode()
    assert vocab[257] == b"ow" and vocab[261] == b" lower"


# -- ties ----------------------------------------------------------------------------------------------------


def first_merge(text: str) -> MergeMade:
    return merges_made(TrainingRun.from_text(text, 257))[0]


@pytest.mark.parametrize(
    ("text", "winner"),
    [
        ("ab\ncd", (b"c", b"d")),  # left sides differ: b"c" > b"a"
        ("ab\nac", (b"a", b"c")),  # same left side: the right side decides
        ("é\nzz", (b"\xc3", b"\xa9")),  # bytes compare unsigned: 0xc3 > b"z" (0x7a)
        ("ba\nab", (b"b", b"a")),  # not first seen, not insertion order
    ],
)
def test_tie_goes_to_the_greater_pair(text: str, winner: tuple[bytes, bytes]) -> None:
    merge = first_merge(text)
    assert (merge.left, merge.right) == winner
    assert merge.won_tie and merge.runner_up_count == merge.count == 1


def test_higher_count_beats_greater_pair() -> None:
    merge = first_merge("ab\nab\ncd")
    assert (merge.left, merge.right, merge.count) == (b"a", b"b", 2)
    assert merge.runner_up_count == 1 and not merge.won_tie


def test_tie_where_the_greater_pair_starts_with_a_prefix_of_the_other() -> None:
    # Pre-tokens: "abc" x3, "az" x3, "ab" x1 (newlines are their own pre-tokens).
    # 1. (a,b) = 3 + 1 = 4 beats (b,c) 3 and (a,z) 3.        -> ab, runner-up 3, no tie
    # 2. (ab,c) 3 ties (a,z) 3. (b"ab", b"c") > (b"a", b"z") because b"ab" > b"a" (a proper prefix sorts
    #    first). Comparing the concatenations instead would pick "az" > "abc": wrong.
    # 3. (a,z) 3, nothing left to compete.                     -> runner-up 0
    made = merges_made(TrainingRun.from_text("abc\nabc\nabc\naz\naz\naz\nab", 1000))
    assert [(e.left, e.right, e.count, e.runner_up_count, e.won_tie) for e in made] == [
        (b"a", b"b", 4, 3, False),
        (b"ab", b"c", 3, 3, True),
        (b"a", b"z", 3, 0, False),
    ]


def test_tie_compares_bytes_not_token_ids() -> None:
    # Pre-tokens: "zz" x5, "ab" x4, "zzc" x2, "abc" x2.
    # 1. (z,z) 5 + 2 = 7                                   -> zz, id 256
    # 2. (a,b) 4 + 2 = 6                                   -> ab, id 257
    # 3. (zz,c) 2 ties (ab,c) 2: b"zz" > b"ab", so (zz,c) wins although "ab" has the greater id.
    # (The prefix test above has the greater pair on the greater id, so neither id order passes both.)
    text = "zz\n" * 5 + "ab\n" * 4 + "zzc\n" * 2 + "abc\n" * 2
    made = merges_made(TrainingRun.from_text(text, 1000))
    assert [(e.left, e.right, e.new_id, e.count, e.runner_up_count, e.won_tie) for e in made] == [
        (b"z", b"z", 256, 7, 6, False),
        (b"a", b"b", 257, 6, 2, False),
        (b"zz", b"c", 258, 2, 2, True),
        (b"ab", b"c", 259, 2, 0, False),
    ]


# -- special tokens ------------------------------------------------------------------------------------------


def test_special_tokens_are_never_merged_across_or_into() -> None:
    # Documents are "a", "ba" x49, "b": the only pair in the text is (b,a). Without the split, "<|endoftext|>"
    # would be glued to its neighbours and give pairs like (a,<) and (<,|).
    text = "a<|endoftext|>b" * 50
    vocab, merges = train_bpe_text(text, 256 + 1 + 40, [SPECIAL])
    assert merges == [(b"b", b"a")]
    assert all(set(vocab[i]) <= set(b"ab") for i in range(257, len(vocab)))


def test_special_token_text_is_merged_when_not_declared_special() -> None:
    # The control for the test above: the same text, no special tokens, does merge "<|" (so the check can fail).
    _, merges = train_bpe_text("a<|endoftext|>b" * 50, 256 + 40, [])
    assert (b"<", b"|") in merges


def test_special_token_fragments_outside_a_special_token_are_ordinary_text() -> None:
    # "<|" occurs 20 times outside the special token: its merge is legitimate. ">" and the letters of
    # "endoftext" occur only inside the special token, so no merge may contain them.
    text = "a<|b<|endoftext|>" * 20
    vocab, merges = train_bpe_text(text, 256 + 1 + 40, [SPECIAL])
    assert merges == [(b"<", b"|")]
    assert not any(set(vocab[i]) & set(b">endoftx") for i in range(257, len(vocab)))


def train_bpe_text(text: str, vocab_size: int, specials: list[str]) -> tuple[dict[int, bytes], list]:
    model = finished(TrainingRun.from_text(text, vocab_size, specials)).model
    return model.vocab, model.merges


def test_special_token_ids_follow_the_bytes_in_the_order_given(tmp_path: Path) -> None:
    specials = ["<|z|>", "<|a|>", "<|終|>"]
    path = tmp_path / "corpus.txt"
    path.write_text("hello<|a|>hello world<|終|>yellow<|z|>", encoding="utf-8")
    vocab, merges = train_bpe(path, 256 + 3 + 6, specials)
    assert [vocab[256], vocab[257], vocab[258]] == [s.encode("utf-8") for s in specials]
    assert sorted(vocab) == list(range(256 + 3 + 6))
    assert [vocab[259 + rank] for rank in range(len(merges))] == [a + b for a, b in merges]
    assert len(set(vocab.values())) == len(vocab)


def test_vocab_ids_are_contiguous_on_a_real_corpus(samples_dir: Path) -> None:
    vocab, merges = train_bpe(samples_dir / "mixed.txt", 256 + 1 + 60, [SPECIAL])
    assert sorted(vocab) == list(range(256 + 1 + 60))
    assert len(merges) == 60
    assert len(set(vocab.values())) == len(vocab)


# -- the event stream ----------------------------------------------------------------------------------------

ENGLISH_MERGES = 50


@pytest.fixture
def english(samples_dir: Path) -> Path:
    return samples_dir / "english.txt"


def test_events_phases_merges_and_finish_in_order(english: Path) -> None:
    events = list(TrainingRun(english, 256 + 1 + ENGLISH_MERGES, [SPECIAL], workers=1).events())
    progress = [e for e in events if isinstance(e, PhaseProgress)]
    phases = [e.phase for e in progress]
    assert set(phases) == set(PHASES)
    assert phases == sorted(phases, key=PHASES.index)  # reading, then counting, then merging
    size = english.stat().st_size
    reading = [e for e in progress if e.phase == "reading"]
    assert reading[0].done == 0 and reading[-1].done == size and all(e.total == size for e in reading)
    assert [e.done for e in reading] == sorted(e.done for e in reading)
    merging = [e for e in progress if e.phase == "merging"]
    assert merging[0].total == ENGLISH_MERGES
    # Every merge comes after the merging phase has been announced, and the finish comes last, once.
    first_merge_at = next(i for i, e in enumerate(events) if isinstance(e, MergeMade))
    assert events.index(merging[0]) < first_merge_at
    assert [i for i, e in enumerate(events) if isinstance(e, TrainingFinished)] == [len(events) - 1]
    made = [e for e in events if isinstance(e, MergeMade)]
    assert [e.rank for e in made] == list(range(ENGLISH_MERGES))
    assert [e.new_id for e in made] == list(range(257, 257 + ENGLISH_MERGES))
    model = events[-1].model
    assert events[-1].reason == "vocab_size"
    assert [model.vocab[e.new_id] for e in made] == [e.token for e in made]
    assert model.merges == [(e.left, e.right) for e in made]
    assert model.merge_counts == [e.count for e in made]


def test_runner_up_and_won_tie_match_the_reference_ranking(english: Path) -> None:
    # The runner-up is the best other pair just before the merge (what it beat), recounted the slow way.
    made = merges_made(TrainingRun(english, 256 + 1 + 20, [SPECIAL]))
    words = reference.count_words(english.read_bytes().decode("utf-8"), [SPECIAL])
    for event in made:
        ranked = reference.ranked_pairs(reference.count_pairs(words))
        assert (event.left, event.right, event.count) == ranked[0]
        assert event.runner_up_count == ranked[1][2]
        assert event.won_tie == (ranked[1][2] == ranked[0][2])
        words = apply_merges(words, [(event.left, event.right)])


def test_max_merges_stops_early_with_a_prefix_of_the_full_run(english: Path) -> None:
    full = finished(TrainingRun(english, 256 + 1 + ENGLISH_MERGES, [SPECIAL])).model
    run = TrainingRun(english, 256 + 1 + ENGLISH_MERGES, [SPECIAL], max_merges=7)
    end = finished(run)
    assert end.reason == "max_merges"
    part = run.result()
    assert part.merges == full.merges[:7]
    assert part.merge_counts == full.merge_counts[:7]
    assert part.vocab == {i: full.vocab[i] for i in range(257 + 7)}
    assert end.model == part


def test_stopping_the_iteration_keeps_the_model_so_far(english: Path) -> None:
    full = finished(TrainingRun(english, 256 + 1 + ENGLISH_MERGES, [SPECIAL])).model
    run = TrainingRun(english, 256 + 1 + ENGLISH_MERGES, [SPECIAL])
    seen = 0
    for event in run.events():
        if isinstance(event, MergeMade):
            seen += 1
            if seen == 12:
                break
    assert run.result().merges == full.merges[:12]
    assert run.result().vocab == {i: full.vocab[i] for i in range(257 + 12)}


def cancel_from_another_thread(run: TrainingRun) -> None:
    thread = threading.Thread(target=run.cancel)
    thread.start()
    thread.join()


def test_cancel_from_another_thread_ends_merging_without_finish(english: Path) -> None:
    run = TrainingRun(english, 256 + 1 + ENGLISH_MERGES, [SPECIAL])
    after_cancel = []
    merged = 0
    for event in run.events():
        if merged >= 3:
            after_cancel.append(event)
        if isinstance(event, MergeMade):
            merged += 1
            if merged == 3:
                cancel_from_another_thread(run)
    assert run.cancelled
    assert not any(isinstance(e, (MergeMade, TrainingFinished)) for e in after_cancel)
    assert len(run.result().merges) == 3


def test_cancel_while_reading_makes_no_merges(english: Path) -> None:
    run = TrainingRun(english, 256 + 1 + ENGLISH_MERGES, [SPECIAL])
    events = []
    for event in run.events():
        events.append(event)
        if len(events) == 1:
            cancel_from_another_thread(run)
    assert events[0].phase == "reading"
    assert not any(isinstance(e, (MergeMade, TrainingFinished)) for e in events)
    assert run.result().merges == []


def test_events_pickle_round_trip_and_are_frozen(samples_dir: Path) -> None:
    events = list(TrainingRun(samples_dir / "toy.txt", 1000, [SPECIAL]).events())
    kinds = {type(e) for e in events}
    assert kinds == {PhaseProgress, MergeMade, TrainingFinished}
    for event in events:
        copy = pickle.loads(pickle.dumps(event))
        assert copy == event and type(copy) is type(event)
    for event, field in ((events[0], "done"), (next(e for e in events if isinstance(e, MergeMade)), "count"),
                         (events[-1], "reason")):
        with pytest.raises(AttributeError):
            setattr(event, field, 0)


def test_result_records_training_info_and_counts(english: Path) -> None:
    run = TrainingRun(english, 256 + 1 + ENGLISH_MERGES, [SPECIAL], min_frequency=3)
    made = [e for e in run.events() if isinstance(e, MergeMade)]
    model = run.result()
    assert isinstance(model, BPEModel)
    info = model.training
    assert isinstance(info, TrainingInfo)
    data = english.read_bytes()
    assert info.corpus_sha256 == hashlib.sha256(data).hexdigest()
    assert info.corpus_bytes == len(data)
    assert info.min_frequency == 3
    assert info.vocab_size == 256 + 1 + ENGLISH_MERGES
    assert model.special_tokens == [SPECIAL]
    assert model.merge_counts == [e.count for e in made]
    assert len(made) == ENGLISH_MERGES


def test_result_of_text_records_its_hash() -> None:
    run = TrainingRun.from_text("héllo wörld", 300)
    finished(run)
    info = run.result().training
    assert info.corpus_sha256 == hashlib.sha256("héllo wörld".encode()).hexdigest()
    assert info.corpus_bytes == len("héllo wörld".encode())


def test_min_frequency_stops_when_the_best_count_falls_below(samples_dir: Path) -> None:
    # Toy counts are 5, 5, 4, 2, 2, then 1 (see TOY_STEPS): with min_frequency 2 the five merges of count >= 2
    # are made and the sixth (count 1) is refused.
    run = TrainingRun(samples_dir / "toy.txt", 1000, [], min_frequency=2)
    end = finished(run)
    assert end.reason == "min_frequency"
    assert end.model.merges == [step[:2] for step in TOY_STEPS[:5]]
    assert end.model.merge_counts == [5, 5, 4, 2, 2]
    assert reference.train("low low low lower lower newest\n", 1000, min_frequency=2)[1] == end.model.merges


def test_min_frequency_on_a_real_corpus_is_a_prefix_of_the_full_run(english: Path) -> None:
    full = finished(TrainingRun(english, 256 + 1 + 200, [SPECIAL])).model
    threshold = full.merge_counts[120]
    expected = [m for m, c in zip(full.merges, full.merge_counts) if c >= threshold]
    assert 120 < len(expected) < 200  # the threshold really cuts the run short
    end = finished(TrainingRun(english, 256 + 1 + 200, [SPECIAL], min_frequency=threshold))
    assert end.reason == "min_frequency"
    assert end.model.merges == expected
    assert min(end.model.merge_counts) >= threshold


def test_empty_corpus_trains_to_the_base_vocabulary(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    run = TrainingRun(path, 1000, [SPECIAL, "<|pad|>"])
    end = finished(run)
    assert end.model.merges == []
    assert end.model.vocab == {**{i: bytes([i]) for i in range(256)}, 256: SPECIAL.encode(), 257: b"<|pad|>"}
    assert end.reason == "no_pairs"
    assert end.model.training.corpus_bytes == 0
    assert end.model.training.corpus_sha256 == hashlib.sha256(b"").hexdigest()
    vocab, merges = train_bpe(path, 1000, [])
    assert merges == [] and vocab == {i: bytes([i]) for i in range(256)}


def test_corpus_of_only_special_tokens_has_no_merges() -> None:
    end = finished(TrainingRun.from_text(SPECIAL * 5, 1000, [SPECIAL]))
    assert end.model.merges == [] and end.reason == "no_pairs"
    assert len(end.model.vocab) == 257


def test_top_pairs_are_ordered_like_training_picks(english: Path) -> None:
    words = reference.count_words(english.read_bytes().decode("utf-8"), [SPECIAL])
    run = TrainingRun(english, 256 + 1 + 30, [SPECIAL])
    events = run.events()
    # Counting is done once the merging phase is announced; nothing is merged yet.
    for event in events:
        if isinstance(event, PhaseProgress) and event.phase == "merging":
            break
    assert run.top_pairs(10) == reference.ranked_pairs(reference.count_pairs(words))[:10]
    merges: list[tuple[bytes, bytes]] = []
    predicted = run.top_pairs(1)[0]
    for event in events:
        if not isinstance(event, MergeMade):
            continue
        # What top_pairs put first is what training merged next.
        assert (event.left, event.right, event.count) == predicted
        merges.append((event.left, event.right))
        if len(merges) in (1, 17):
            assert run.top_pairs(10) == reference.ranked_pairs(reference.count_pairs(apply_merges(words, merges)))[:10]
        predicted = run.top_pairs(1)[0] if run.top_pairs(1) else None
    assert len(merges) == 30
