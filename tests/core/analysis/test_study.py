"""The vocabulary-size study: each size's figures equal those of a tokenizer trained separately to that size."""

from __future__ import annotations

import itertools

import pytest
from tests.data_paths import SAMPLES

from core import reference
from core.analysis.coverage import context_coverage
from core.analysis.study import SizeMeasured, SizeReached, StudyFinished, StudyRun, measure, parse_sizes, prefix_model
from core.encode.tokenizer import Tokenizer
from core.errors import SettingsError
from core.model import BPEModel
from core.train.run import TrainingRun

CORPUS = SAMPLES / "english.txt"
SPECIAL = "<|endoftext|>"


def separately_trained(vocab_size: int) -> BPEModel:
    run = TrainingRun(CORPUS, vocab_size, [SPECIAL], workers=1)
    for _ in run.events():
        pass
    return run.result()


def texts() -> dict[str, str]:
    return {name: (SAMPLES / f"{name}.txt").read_text(encoding="utf-8") for name in ("english", "japanese", "mixed")}


def test_every_size_equals_a_tokenizer_trained_to_it() -> None:
    ticks = itertools.count()
    sizes = [257, 300, 450, 700]
    events = list(StudyRun(CORPUS, sizes, texts(), d=64, special_tokens=[SPECIAL], workers=1,
                           clock=lambda: float(next(ticks))).events())
    study = events[-1].study
    assert isinstance(events[-1], StudyFinished) and [s.vocab for s in study.sizes] == sizes
    for size in study.sizes:
        alone = separately_trained(size.vocab)
        tokenizer = Tokenizer.from_model(alone)
        for name, text in texts().items():
            ids = tokenizer.encode(text, allowed_special="all")
            assert size.tokens[name] == len(ids), (size.vocab, name)
            assert size.bytes_per_token[name] == pytest.approx(len(text.encode("utf-8")) / len(ids))
        assert size.embedding == size.vocab * 64
        learned = [token for token in alone.vocab.values() if token != SPECIAL.encode()]
        assert size.longest_token in learned and len(size.longest_token) == max(map(len, learned))
    # The times come from the run's own events, in order, from the clock it was given.
    reached = [e for e in events if isinstance(e, SizeReached)]
    assert [e.vocab for e in reached] == sizes[1:]  # 257 (no merge) is reached at the start
    assert study.sizes[0].seconds == 0.0 and [s.seconds for s in study.sizes[1:]] == [e.seconds for e in reached]
    assert all(a < b for a, b in zip([e.seconds for e in reached], [e.seconds for e in reached][1:]))
    assert [e.done for e in events if isinstance(e, SizeMeasured)] == [1, 2, 3, 4]


def test_the_cut_of_the_largest_equals_the_smaller_model_exactly() -> None:
    large, small = separately_trained(600), separately_trained(420)
    cut = prefix_model(large, 420)
    assert (cut.vocab, cut.merges, cut.merge_counts, cut.merge_runner_ups) == (
        small.vocab, small.merges, small.merge_counts, small.merge_runner_ups
    )


def test_sizes_beyond_the_pairs_of_the_corpus_are_unreached(tmp_path) -> None:
    corpus = tmp_path / "tiny.txt"
    corpus.write_text("low low lower", encoding="utf-8")
    study = list(StudyRun(corpus, [258, 300], {"corpus": "low"}, workers=1).events())[-1].study
    assert [s.vocab for s in study.sizes] == [258] and study.unreached == (300,)


def test_japanese_bare_bytes_by_hand() -> None:
    vocab = {i: bytes([i]) for i in range(256)}
    no_merges = measure(BPEModel(vocab, []), {"japanese": "日本 a"}, seconds=0.0, d=2)
    assert no_merges.japanese_bare_bytes == pytest.approx(6 / 8)  # 6 bytes of 日本, then " " and "a"
    joined = BPEModel(vocab | {256: b"\xe6\x97", 257: "日".encode()}, [(b"\xe6", b"\x97"), (b"\xe6\x97", b"\xa5")])
    assert measure(joined, {"japanese": "日本 a"}, seconds=0.0, d=2).japanese_bare_bytes == pytest.approx(3 / 6)


@pytest.mark.parametrize("sizes, needle", [([100], "too small"), ([], "no vocabulary sizes")])
def test_bad_sizes(sizes: list[int], needle: str) -> None:
    with pytest.raises(SettingsError, match=needle):
        StudyRun(CORPUS, sizes, {}, workers=1)


@pytest.mark.parametrize("text, needle", [
    ("300,²", "size '²' is not a whole number"),  # isdigit() takes it, int() does not: a ValueError in the app
    ("1" * 5000, r"size 111111111111\.\.\. \(5,000 digits\) is too large"),  # int() refuses 4,301 digits
], ids=["superscript", "5000 digits"])
def test_sizes_typed_oddly_are_a_settings_error(text: str, needle: str) -> None:
    with pytest.raises(SettingsError, match=needle):
        parse_sizes(text)
    assert parse_sizes("٣٠٠") == [300]  # decimal digits of other scripts are still numbers, as int() reads them


def test_coverage_of_a_toy_tokenizer_by_hand() -> None:
    run = TrainingRun.from_text("low low low lower lower newest", 259)  # merges: ow, low, " low"
    for _ in run.events():
        pass
    # "low lower" -> low | " low" | e | r: token lengths 3, 4, 1, 1.
    result = measure(run.result(), {"toy": "low lower"}, seconds=0.0, d=1, windows=(1, 2, 3, 100))
    assert result.coverage == {"toy": {1: (3, 3), 2: (7, 7), 3: (8, 8), 100: (9, 9)}}
    assert result.to_json()["coverage"] == {
        "toy": {"1": {"chars": 3, "bytes": 3}, "2": {"chars": 7, "bytes": 7}, "3": {"chars": 8, "bytes": 8},
                "100": {"chars": 9, "bytes": 9}}
    }


def test_coverage_counts_a_character_only_when_the_window_holds_all_its_bytes() -> None:
    bytes_only = BPEModel({i: bytes([i]) for i in range(256)}, [])
    result = measure(bytes_only, {"japanese": "日本"}, seconds=0.0, d=1, windows=(2, 3, 6))
    assert result.coverage["japanese"] == {2: (0, 2), 3: (1, 3), 6: (2, 6)}
    apart = measure(bytes_only, {"docs": ("ab", "c")}, seconds=0.0, d=1, windows=(2, 3))
    assert apart.coverage["docs"] == {2: (2, 2), 3: (3, 3)} and apart.tokens["docs"] == 3


def test_each_sizes_coverage_is_that_of_a_tokenizer_trained_to_it() -> None:
    windows = (128, 1024, 8192)
    study = list(StudyRun(CORPUS, [300, 500], texts(), special_tokens=[SPECIAL], workers=1, windows=windows)
                 .events())[-1].study
    assert study.windows == windows
    for size in study.sizes:
        tokenizer = Tokenizer.from_model(separately_trained(size.vocab))
        for name, text in texts().items():
            lengths = [len(piece) for piece in tokenizer.decode_tokens_bytes(tokenizer.encode(text))]
            expected = {c.window: (c.chars, c.bytes) for c in context_coverage(text, lengths, windows)}
            assert size.coverage[name] == expected, (size.vocab, name)
        chars, covered = size.coverage["japanese"][1024]
        assert covered > chars * 2  # Japanese: three bytes a character


def test_bad_windows_are_refused() -> None:
    with pytest.raises(SettingsError, match="context windows"):
        StudyRun(CORPUS, [300], {}, workers=1, windows=(0,))


def test_a_character_base_larger_than_every_size_names_them_all_unreached() -> None:
    # With some size above the alphabet, the smaller ones were named as not reached; with none, the run
    # ended in the trainer's error instead, so the sizes were never named.
    corpus = SAMPLES / "japanese.txt"
    smallest = 256 + len(reference.char_alphabet(corpus.read_text(encoding="utf-8")))
    run = StudyRun(corpus, [300, smallest - 1], {"japanese": "日本"}, workers=1, base="chars")
    finished = [event for event in run.events() if isinstance(event, StudyFinished)]
    assert len(finished) == 1
    study = finished[0].study
    assert (study.sizes, study.unreached, study.smallest) == ((), (300, smallest - 1), smallest)
    with pytest.raises(SettingsError, match="below the character base"):  # training itself still refuses
        for _ in TrainingRun(corpus, smallest - 1, [], workers=1, base="chars").events():
            pass
