"""The character base (``base="chars"``): a hand-checked toy, then the fast trainer and tokenizer against
``core.reference`` on generated text, by every route the trainer can take."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import reference
from core.encode.tokenizer import Tokenizer
from core.errors import SettingsError
from core.model import BPEModel
from core.train.events import MergeMade, StopReason, TrainingFinished
from core.train.run import TrainingRun
from tests.core.test_reference_equality import pool_reading, split_merges, whole_text_merges

CHECKED = settings(
    deadline=None,
    derandomize=True,
    database=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
"""The same generated cases on every run; no deadline on a loaded machine."""


def trained(text: str, vocab_size: int, specials: list[str] | None = None, **options) -> tuple[BPEModel, list[MergeMade]]:
    events = list(TrainingRun.from_text(text, vocab_size, specials or [], base="chars", workers=1, **options).events())
    assert isinstance(events[-1], TrainingFinished)
    return events[-1].model, [e for e in events if isinstance(e, MergeMade)]


# -- a toy worked by hand -----------------------------------------------------------------------------------


def test_toy_alphabet_and_first_merges() -> None:
    # Pre-tokens "あいあい" and " あい". The alphabet is the two kana (ids 256, 257 by code point; the space is
    # byte 32 already). Pairs: (あ, い) 2 + 1 = 3, (い, あ) 1, (" ", あ) 1, so あい first. Then (あい, あい) and
    # (" ", あい) both occur once: the tie goes to the greater pair as bytes, and 0xE3 > 0x20.
    model, made = trained("あいあい あい", 256 + 2 + 3)
    a, i = "あ".encode(), "い".encode()
    assert model.base == "chars"
    assert (model.vocab[256], model.vocab[257]) == (a, i)
    assert model.merges == [(a, i), (a + i, a + i), (b" ", a + i)]
    assert [e.count for e in made] == [3, 1, 1]
    assert [e.won_tie for e in made] == [False, True, False]
    assert (model.vocab[258], model.vocab[259], model.vocab[260]) == (a + i, a + i + a + i, b" " + a + i)


def test_toy_encoding_starts_from_characters_and_falls_back_to_bytes() -> None:
    model, _ = trained("あいあい あい", 256 + 2 + 3)
    tokenizer = Tokenizer.from_model(model)
    # う was never seen: its three UTF-8 bytes (e3 81 86) are byte tokens 227, 129, 134.
    assert tokenizer.encode("あいあい あいう") == [259, 260, 0xE3, 0x81, 0x86]
    assert tokenizer.encode("いあ") == [257, 256]  # characters, not the bytes of each
    assert tokenizer.decode(tokenizer.encode("あいう 🙂")) == "あいう 🙂"
    # The byte-level tokenizer with the same vocab and merges starts from bytes: no merge ever applies.
    assert Tokenizer(model.vocab, model.merges).encode("あい") == list("あい".encode())


def test_rare_characters_fall_back_to_bytes_and_are_never_merged() -> None:
    # min_char_count=2: a, b, the space are kept; é (once) is not. "abab", " é", " ab" -> (a, b) 3, then
    # (ab, ab) 1 ties with (" ", ab) 1 and wins (0x61 > 0x20). " é" leaves only the space: no pair.
    model, made = trained("abab é ab", 256 + 2, min_char_count=2)
    assert len(model.vocab) == 256 + 2  # no alphabet beyond the bytes: é is rare
    assert model.merges == [(b"a", b"b"), (b"ab", b"ab")]
    assert [e.count for e in made] == [3, 1]
    tokenizer = Tokenizer.from_model(model)
    assert tokenizer.encode(" é") == [32, 0xC3, 0xA9]
    # With every character kept, é gets id 256 and (" ", é) is a pair like any other.
    kept, _ = trained("abab é ab", 256 + 1 + 10)
    assert kept.vocab[256] == "é".encode()
    assert (b" ", "é".encode()) in kept.merges


def test_the_minimum_pair_frequency_stops_a_character_base_too() -> None:
    # In the toy, (あ, い) occurs 3 times and every later pair once: with min_frequency=2 only the first is made.
    events = list(TrainingRun.from_text("あいあい あい", 1000, base="chars", min_frequency=2, workers=1).events())
    assert events[-1].model.merges == [("あ".encode(), "い".encode())]
    assert events[-1].reason == StopReason.MIN_FREQUENCY
    assert reference.train("あいあい あい", 1000, base="chars", min_frequency=2)[1] == events[-1].model.merges


def test_a_vocab_size_below_the_alphabet_is_refused() -> None:
    # Five characters make a base of 261 tokens: a model of 261 when 258 were asked for would be a silent surprise.
    with pytest.raises(SettingsError, match=r"vocab size 258 is below the character base's 261 tokens \(256 bytes, "
                       r"0 special tokens, 5 characters\)"):
        trained("日本語です", 256 + 2)
    model, made = trained("日本語です", 256 + 5)  # exactly the base: no merge, and the size asked for
    assert made == [] and len(model.vocab) == 256 + 5


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"base": "words"}, "base 'words' is not understood"),
        ({"base": "chars", "min_char_count": 0}, "min char count 0 must be a whole number >= 1"),
        ({"base": "chars", "min_char_count": 1.5}, "min char count 1.5 must be a whole number >= 1"),
    ],
)
def test_bad_settings_are_refused(options: dict, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        TrainingRun.from_text("ab", 300, **options)


# -- the fast paths against the reference -----------------------------------------------------------------

pieces = st.one_of(
    st.text(alphabet="abelorstw'", min_size=1, max_size=8),
    st.text(alphabet="  \n\t", min_size=1, max_size=4),
    st.text(alphabet=".,!?-", min_size=1, max_size=3),
    st.text(alphabet="日本語のはをですカタナ。", min_size=1, max_size=12),
    st.sampled_from(["🙂", "👍🏽", "é", "ß", "<|endoftext|>", "<|endof", "naïve"]),
)
texts = st.lists(pieces, max_size=30).map("".join)


ROUTES = {
    "memory": (1, None),
    "memory-split-merges": (1, split_merges),
    "memory-whole-text-merges": (1, whole_text_merges),
    "file-2-workers-pool": (2, pool_reading),
}


@pytest.mark.parametrize("route", ROUTES)
@CHECKED
@given(text=texts, min_char_count=st.integers(1, 3), merges=st.integers(0, 40))
def test_training_equals_the_reference(
    route: str, text: str, min_char_count: int, merges: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workers, patch = ROUTES[route]
    specials = ["<|endoftext|>"]
    vocab_size = 256 + 1 + len(reference.char_alphabet(text, specials, min_char_count=min_char_count)) + merges
    vocab, expected = reference.train(text, vocab_size, specials, base="chars", min_char_count=min_char_count)
    with monkeypatch.context() as patched:
        if patch is not None:
            patch(patched)
        if workers == 1:
            run = TrainingRun.from_text(text, vocab_size, specials, base="chars", min_char_count=min_char_count, workers=1)
        else:
            path = tmp_path / "corpus.txt"
            path.write_bytes(text.encode("utf-8"))
            run = TrainingRun(path, vocab_size, specials, base="chars", min_char_count=min_char_count, workers=workers)
        events = list(run.events())
    model = events[-1].model
    assert model.merges == expected
    assert model.vocab == vocab
    words = (
        reference.count_char_words(text, specials, min_char_count=min_char_count)
    )
    counts = [e.count for e in events if isinstance(e, MergeMade)]
    assert counts == [n for _, _, n in reference.learn_merges(words, len(expected))]


@CHECKED
@given(corpus=texts, text=texts, min_char_count=st.integers(1, 3))
def test_encoding_equals_the_reference(corpus: str, text: str, min_char_count: int) -> None:
    specials = ["<|endoftext|>"]
    vocab, merges = reference.train(corpus, 256 + 80, specials, base="chars", min_char_count=min_char_count)
    tokenizer = Tokenizer.from_model(BPEModel(vocab, merges, specials, base="chars"))
    for sample in (text, text * 12, corpus):  # long pieces and many pieces take the engine's faster paths
        ids = tokenizer.encode(sample, allowed_special="all")
        assert ids == reference.encode(sample, vocab, merges, specials, base="chars")
        assert tokenizer.decode(ids) == sample


def test_japanese_sample_encodes_as_the_reference(samples_dir: Path) -> None:
    text = (samples_dir / "japanese.txt").read_text(encoding="utf-8")
    vocab, merges = reference.train(text[:1500], 256 + 400, base="chars", min_char_count=2)
    tokenizer = Tokenizer.from_model(BPEModel(vocab, merges, base="chars"))
    ids = tokenizer.encode(text)
    assert ids == reference.encode(text, vocab, merges, base="chars")
    assert tokenizer.decode(ids) == text
