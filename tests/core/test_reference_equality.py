"""The fast paths against ``core.reference``: identical pre-token counts, merges, counts, vocab and ids.

The reference recounts every pair after every merge and encodes by rescanning each pre-token, so it has
no incremental state that could drift; the fast trainer (heap, pair index, cold pairs, joined strings,
worker processes) and the fast tokenizer (caches, unit-by-unit merging) must agree with it exactly, on
the sample corpora and on generated texts built to provoke the hard cases: repeated letters and
overlapping pairs, whitespace runs, punctuation, digits, Japanese, emoji, special tokens glued to text,
and fragments of special tokens outside them; line separators, byte-order marks, joiners and combining
marks; special tokens with regex metacharacters, line breaks, spaces or non-ASCII characters, nested or
overlapping; invalid UTF-8 read with ``errors="replace"``. Generated cases run under several split
patterns, in memory and from a file, in one process and with worker processes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tests.core.encode.tokenizer_cases import naive_encode_tokens
from tests.core.reference_runs import ReferenceRun, train_reference

from core import reference
from core.encode.tokenizer import Tokenizer
from core.model import BPEModel
from core.pretokenize.patterns import GPT2_PATTERN
from core.train import joined_words, word_store, worker_pool
from core.train import reading_stage
from core.train.events import MergeMade, TrainingFinished
from core.train.run import TrainingRun, train_bpe

SPECIAL = "<|endoftext|>"
SAMPLE_MERGES = 150

PATTERNS = {
    "gpt2": GPT2_PATTERN,
    "space-attached": r"\S+\s+|\S+|\s+",
    "word-nonword": r"\w+|\W+",
}
"""GPT-2's pattern and two that cut elsewhere: whitespace kept after a word, and words against the rest."""

CHECKED = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
"""Generated cases are the same on every run, so CI cannot flake; no deadline on a loaded machine."""


def run_fast(run: TrainingRun) -> tuple[list[MergeMade], TrainingFinished]:
    events = list(run.events())
    assert isinstance(events[-1], TrainingFinished)
    return [e for e in events if isinstance(e, MergeMade)], events[-1]


def assert_same_training(expected: ReferenceRun, merges_made: list[MergeMade], finished: TrainingFinished) -> None:
    model = finished.model
    first = next((i for i, (a, b) in enumerate(zip(model.merges, expected.merges)) if a != b), None)
    assert first is None, f"merge {first}: fast {model.merges[first]}, reference {expected.merges[first]}"
    assert model.merges == expected.merges
    assert [(e.left, e.right) for e in merges_made] == expected.merges
    assert [e.count for e in merges_made] == expected.counts
    assert model.merge_counts == expected.counts
    assert model.vocab == expected.vocab
    assert finished.reason == expected.reason


# -- the reference itself ----------------------------------------------------------------------------------


def test_the_reference_itself_on_hand_checked_cases() -> None:
    # The reference is only worth comparing against if it is right; these are small enough to check by eye.
    assert reference.merge_word((b"a",) * 5, (b"a", b"a")) == (b"aa", b"aa", b"a")  # left to right
    assert reference.merge_word((b"a", b"b", b"a", b"b"), (b"b", b"a")) == (b"a", b"ba", b"b")
    assert reference.split_on_special_tokens("x<a><a>y<a>z", ["<a>", "<a><a>"]) == ["x", "<a><a>", "y", "<a>", "z"]
    assert reference.count_pretokens("it's  a\n\n b") == {"it": 1, "'s": 1, " ": 1, " a": 1, "\n\n": 1, " b": 1}
    assert reference.count_pairs(reference.count_words("aaa aaa")) == {(b"a", b"a"): 4, (b" ", b"a"): 1}
    # Toy corpus (worked by hand in test_train_behaviour): counts 5, 5, 4, 2, 2; ties went to the greater pair.
    toy = train_reference("low low low lower lower newest", 256 + 5, [])
    assert toy.merges == [(b"o", b"w"), (b"l", b"ow"), (b" ", b"low"), (b"e", b"r"), (b" low", b"er")]
    assert toy.counts == [5, 5, 4, 2, 2]
    assert toy.reason == "vocab_size"
    assert (toy.vocab, toy.merges) == reference.train("low low low lower lower newest", 256 + 5)
    assert train_reference("low low", 1000, []).reason == "no_pairs"
    assert train_reference("low low lower", 1000, [], min_frequency=2).reason == "min_frequency"
    # Encoding: lowest rank first, and of two occurrences of the best pair the leftmost.
    assert reference.encode_pretoken(b"abab", {(b"a", b"b"): 1, (b"b", b"a"): 0}) == [b"a", b"ba", b"b"]
    assert reference.encode_pretoken(b"xyxy", {(b"xy", b"x"): 0, (b"x", b"y"): 1}) == [b"xyx", b"y"]


def test_reference_encode_of_special_tokens() -> None:
    vocab = {i: bytes([i]) for i in range(256)} | {256: SPECIAL.encode()}
    assert reference.encode(f"a{SPECIAL}b<x>", vocab, [], [SPECIAL, "<x>"]) == [97, 256, 98, 257]
    assert reference.encode(SPECIAL, vocab, []) == [ord(c) for c in SPECIAL]  # not special: plain text
    assert reference.decode([97, 256, 98], vocab) == f"a{SPECIAL}b"


# -- training on the sample corpora ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["english", "japanese", "mixed"])
def test_samples_equal_the_reference(samples_dir: Path, name: str) -> None:
    path = samples_dir / f"{name}.txt"
    vocab_size = 256 + 1 + SAMPLE_MERGES
    expected = train_reference(path.read_bytes().decode("utf-8"), vocab_size, [SPECIAL])
    # Enough distinct pairs that the vocabulary, not the corpus, ends training: all 150 merges are compared.
    assert len(expected.merges) == SAMPLE_MERGES
    merges_made, finished = run_fast(TrainingRun(path, vocab_size, [SPECIAL], workers=1))
    assert_same_training(expected, merges_made, finished)


def test_toy_sample_equals_the_reference_to_exhaustion(samples_dir: Path) -> None:
    path = samples_dir / "toy.txt"
    expected = train_reference(path.read_text(encoding="utf-8"), 1000, [SPECIAL])
    assert expected.reason == "no_pairs"
    merges_made, finished = run_fast(TrainingRun(path, 1000, [SPECIAL]))
    assert_same_training(expected, merges_made, finished)


# -- generated texts ------------------------------------------------------------------------------------------

ALPHABET = "abdelorstv" + "  \n\n\t\r" + ".,!?'-<|>" + "0123" + "日本語のはé"
"""Few letters, so pairs repeat and overlap ("aaa"); contraction letters; ``<|>`` to imitate special tokens."""

HOSTILE = "\r\n\u2028\u2029\x85\ufeff\u200d\u0301\u0308\x01\x7f\xff\u0661\u0662 \t"
"""Characters that corpora from elsewhere hold: line and paragraph separators (U+2028, U+2029, NEL), a
byte-order mark, a zero-width joiner, combining marks, control characters, U+00FF (whose UTF-8 ends in
byte 0xBF), Arabic-Indic digits; with CR, LF, spaces and tabs, so runs of them mix."""

SPECIAL_SETS = [
    [],
    [SPECIAL],
    [SPECIAL, "<|pad|>"],
    ["<s>", "<s><s>"],
    ["<a>", "<a><b>", "<b>"],
    ["a|b$", "(x)\\", "$$"],
    ["«fin»", " the", "日本"],
    ["\r\n", "\n\n", "a a"],
    ["aa", "aaa"],
]
"""No special tokens, one, two, two where one contains the other (the longer one wins), three where one is
two others side by side; then hostile ones: regex metacharacters (``|``, ``(``, ``\\``, ``$``), non-ASCII,
one that begins with a space and equals a pre-token (`` the``), line breaks and one with a space inside (CR
LF, LF LF, ``a a``), and two made of a letter the text repeats (``aaaa`` holds both, overlapping)."""

pieces = st.one_of(
    st.text(alphabet="abelnorstw'", min_size=1, max_size=8),  # ASCII words with contraction letters
    st.sampled_from(["low", " lower", " newest", "aaaa", " it's", "we'll", " the"]),
    st.text(alphabet="  \t\n\r\x0b\x0c\u00a0\u3000", min_size=1, max_size=5),  # whitespace runs, two not ASCII
    st.text(alphabet=".,!?-()\"'", min_size=1, max_size=3),
    st.text(alphabet="0123456789", min_size=1, max_size=5),
    st.text(alphabet="日本語のはをですカタナ。", min_size=1, max_size=12),
    st.sampled_from(["🙂", "👍🏽", "🇯🇵", "🎉🎉🎉", "👨‍👩‍👧", "é", "ß"]),
    st.sampled_from([SPECIAL, "<|pad|>", "<s>", "<s><s>", "<|endof", "text|>"]),  # whole, and fragments
    st.sampled_from(sorted({token for tokens in SPECIAL_SETS for token in tokens} | {"<a", "b>", "«fi", "a|", "\\"})),
    st.text(alphabet=HOSTILE, min_size=1, max_size=6),
    st.text(alphabet=ALPHABET, max_size=30),
)
texts = st.lists(pieces, max_size=30).map("".join)


def plain(monkeypatch: pytest.MonkeyPatch) -> None:
    """The trainer as it runs on small corpora, untouched."""


def split_merges(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every merge through one joined string and a split, instead of a Python loop over a few pre-tokens.
    monkeypatch.setattr(word_store, "FEW_WORDS", 0)


def whole_text_merges(monkeypatch: pytest.MonkeyPatch) -> None:
    # The first merges on JoinedWords (the store for Japanese), handing over when a pair occurs under 3 times.
    monkeypatch.setattr(joined_words.JoinedWords, "suits", staticmethod(lambda words, freqs: True))
    monkeypatch.setattr(joined_words.JoinedWords, "is_sparse", lambda self, count: count < 3)


def shared_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    # One worker and this process each read a share of many small chunks, and share the first pair count.
    monkeypatch.setattr(reading_stage, "SHARED_READING_MIN_BYTES", 0)
    monkeypatch.setattr(reading_stage, "SHARED_CHUNK_BYTES", 16)
    monkeypatch.setattr(word_store, "PARALLEL_COUNT_MIN_CHARS", 0)


def pool_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    # A full pool of workers reads every chunk while this process adds up the counts.
    monkeypatch.setattr(reading_stage, "SHARED_READING_MIN_BYTES", 0)
    monkeypatch.setattr(reading_stage, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(word_store, "PARALLEL_COUNT_MIN_CHARS", 0)


ROUTES: dict[str, tuple[str, int, Callable[[pytest.MonkeyPatch], None]]] = {
    "memory": ("memory", 1, plain),
    "memory-split-merges": ("memory", 1, split_merges),
    "memory-whole-text-merges": ("memory", 1, whole_text_merges),
    "file-1-worker": ("file", 1, plain),
    "file-2-workers-shared": ("file", 2, shared_reading),
    "file-2-workers-pool": ("file", 2, pool_reading),
}
"""How the fast trainer is run: the input, the number of workers, and the thresholds patched to force a path."""

CUT_PRONE = "one, two. three, four! five, six? seven, eight. nine, ten! " * 3
"""A text that a cut before a space after punctuation changes under both custom patterns (``, `` is one
pre-token of the word/non-word pattern, ``two. `` one of the space-attached one)."""


def training_cases() -> Iterator[object]:
    for route in ROUTES:
        for name in PATTERNS:
            yield pytest.param(route, name, id=f"{route}-{name}")


class PoolSpy(worker_pool.WorkerPool):
    """A real pool that counts, across examples, the jobs it was given."""

    jobs = 0

    def map_unordered(self, function, jobs):
        jobs = list(jobs)
        PoolSpy.jobs += len(jobs)
        return super().map_unordered(function, jobs)


@pytest.mark.parametrize(("route", "pattern_name"), training_cases())
def test_generated_training_equals_the_reference(tmp_path: Path, route: str, pattern_name: str) -> None:
    source, workers, force = ROUTES[route]
    pattern = PATTERNS[pattern_name]
    path = tmp_path / "corpus.txt"
    PoolSpy.jobs = 0

    examples = 100 if pattern_name == "gpt2" and workers == 1 else 40
    @settings(CHECKED, max_examples=examples)
    @example(text=CUT_PRONE, specials=[], min_frequency=0, merges_wanted=40)
    @given(
        text=texts,
        specials=st.sampled_from(SPECIAL_SETS),
        min_frequency=st.sampled_from([0, 0, 2]),
        merges_wanted=st.integers(0, 60),
    )
    def check(text: str, specials: list[str], min_frequency: int, merges_wanted: int) -> None:
        vocab_size = 256 + len(specials) + merges_wanted
        expected = train_reference(text, vocab_size, specials, pattern=pattern, min_frequency=min_frequency)
        options = {"pattern": pattern, "min_frequency": min_frequency, "workers": workers}
        with pytest.MonkeyPatch.context() as monkeypatch:
            force(monkeypatch)
            monkeypatch.setattr(worker_pool, "WorkerPool", PoolSpy)
            if source == "memory":
                merges_made, finished = run_fast(TrainingRun.from_text(text, vocab_size, specials, **options))
                assert_same_training(expected, merges_made, finished)
                return
            path.write_bytes(text.encode("utf-8"))
            # The full event stream with shared reading; the CS336 interface on the other file routes.
            if route == "file-2-workers-shared":
                assert_same_training(expected, *run_fast(TrainingRun(path, vocab_size, specials, **options)))
            else:
                assert train_bpe(path, vocab_size, specials, **options) == (expected.vocab, expected.merges)

    check()
    if workers > 1:
        assert PoolSpy.jobs > 0, "no chunk was ever read by a worker process: the route tests nothing"


BROKEN_UTF8 = [b"\xff", b"\x80", b"\xc3", b"\xe3\x81", b"\xf0\x9f\x99", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]
"""Bytes that are not UTF-8: stray, cut-off sequences (a kana, an emoji), overlong, a surrogate, past U+10FFFF."""

raw_texts = st.lists(st.one_of(texts.map(lambda text: text.encode("utf-8")), st.sampled_from(BROKEN_UTF8)), max_size=8).map(b"".join)


@pytest.mark.parametrize("route", ["file-1-worker", "file-2-workers-shared"])
def test_invalid_utf8_read_with_replace_equals_the_reference(tmp_path: Path, route: str) -> None:
    # errors="replace": the reference trains on the text as Python decodes the whole file; chunks cut next
    # to a broken sequence must decode to the same U+FFFD characters.
    _source, workers, force = ROUTES[route]
    path = tmp_path / "corpus.txt"

    @settings(CHECKED, max_examples=40)
    @given(raw=raw_texts, specials=st.sampled_from(SPECIAL_SETS), merges_wanted=st.integers(0, 40))
    def check(raw: bytes, specials: list[str], merges_wanted: int) -> None:
        path.write_bytes(raw)
        vocab_size = 256 + len(specials) + merges_wanted
        expected = reference.train(raw.decode("utf-8", errors="replace"), vocab_size, specials)
        with pytest.MonkeyPatch.context() as monkeypatch:
            force(monkeypatch)
            assert train_bpe(path, vocab_size, specials, workers=workers, errors="replace") == expected

    check()


# -- encoding --------------------------------------------------------------------------------------------------


def fast_tokenizer(
    vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]], specials: list[str], pattern: str
) -> Tokenizer:
    if pattern == GPT2_PATTERN:
        return Tokenizer(vocab, merges, specials)  # the CS336 constructor
    return Tokenizer.from_model(BPEModel(vocab, merges, specials, pattern))


long_texts = st.lists(
    st.one_of(
        pieces,
        st.text(alphabet="日本語のはをですカタナ", min_size=10, max_size=40),  # one long pre-token, wide characters
        st.text(alphabet="a", min_size=20, max_size=80),
        st.text(alphabet=" ", min_size=20, max_size=80),
        st.sampled_from(["🙂" * 12, "の" * 30]),
    ),
    max_size=60,
).map("".join)
"""Texts that also reach the tokenizer's paths for long pieces and for text of mostly wide characters."""


@pytest.mark.parametrize("pattern_name", list(PATTERNS))
@settings(CHECKED, max_examples=40)
@given(
    corpus=texts,
    text=long_texts,
    specials=st.sampled_from(SPECIAL_SETS),
    extra=st.sampled_from([[], ["<|new|>"]]),
    merges_wanted=st.integers(0, 80),
)
def test_encode_with_trained_merges_equals_the_reference(
    pattern_name: str, corpus: str, text: str, specials: list[str], extra: list[str], merges_wanted: int
) -> None:
    # Trained by the reference on one text, applied to another (and to the first); special tokens the vocab
    # lacks are appended.
    pattern = PATTERNS[pattern_name]
    vocab, merges = reference.train(corpus, 256 + len(specials) + merges_wanted, specials, pattern=pattern)
    tokenizer = fast_tokenizer(vocab, merges, specials + extra, pattern)
    for sample in (text, corpus, text):  # the second time through, pieces come from the tokenizer's cache
        expected = reference.encode(sample, vocab, merges, specials + extra, pattern=pattern)
        assert tokenizer.encode(sample) == expected
        assert reference.decode(expected, tokenizer.vocab) == sample
    if pattern == GPT2_PATTERN:
        # For merges learnt by training, leftmost-first merging equals GPT-2's merge-every-occurrence loop.
        tokens = [tokenizer.vocab[i] for i in reference.encode(text, vocab, merges, specials)]
        assert tokens == naive_encode_tokens(text, merges, specials)


PARTS = [b"a", b"b", b"ab", b"ba", b"aa", b"aab", b"\xe3", b"\xe3\x81", b"\x81\xae", b" ", b" a"]
"""Token bytes to build merges from, in any order: a merge may use a token that a later merge makes."""


@settings(CHECKED, max_examples=60)
@given(
    chosen=st.lists(st.tuples(st.sampled_from(PARTS), st.sampled_from(PARTS)), max_size=25),
    text=st.lists(st.sampled_from(["a", "b", "ab", "aab", "の", " ", " a", "ba", "\n"]), max_size=40).map("".join),
)
def test_encode_with_merges_in_any_order_equals_the_reference(chosen: list[tuple[bytes, bytes]], text: str) -> None:
    # Not how training orders merges: a pair of lower rank can appear only after a later merge, and a merge
    # can repeat. The rule still holds: lowest rank first, leftmost first.
    vocab = {i: bytes([i]) for i in range(256)}
    for left, right in chosen:
        for token in (left, right, left + right):
            if token not in vocab.values():
                vocab[len(vocab)] = token
    assert Tokenizer(vocab, chosen).encode(text) == reference.encode(text, vocab, chosen)
