"""The budget lens: its training equals the plain reference trainer, and merges follow the mix."""

from __future__ import annotations

import pytest

from core.analysis.lenses.budget import SEPARATOR, merge_budget, merge_script, parallel_pair, training_mix
from core.errors import SettingsError
from core.reference import encode as reference_encode
from core.reference import train as reference_train
from tests.data_paths import SAMPLES


def corpora() -> tuple[str, str, tuple[str, str]]:
    read = lambda name: (SAMPLES / name).read_text(encoding="utf-8")  # noqa: E731
    return read("english.txt"), read("japanese.txt"), parallel_pair(read("parallel.txt"))


def test_bundled_pair_is_one_english_and_one_japanese_sentence() -> None:
    english, japanese = corpora()[2]
    assert english.isascii() and english.endswith(".")
    assert not any(ch.isascii() for ch in japanese) and japanese.endswith("。")


@pytest.mark.parametrize("mix", [0.0, 0.4, 1.0])
def test_training_equals_reference_trainer(mix: float) -> None:
    english, japanese, pair = corpora()
    result = merge_budget(english, japanese, pair, merges=32, mix=mix, size=6000)
    english_part, japanese_part = training_mix(english, japanese, mix, 6000)
    vocab, merges = reference_train(english_part + SEPARATOR + japanese_part, 256 + 1 + 32, [SEPARATOR])
    assert list(result.merges) == merges
    for sentence, encoded in zip(pair, result.pair):
        assert list(encoded.ids) == reference_encode(sentence, vocab, merges, [SEPARATOR])
    assert result.training_bytes == {"en": len(english_part.encode()), "ja": len(japanese_part.encode())}
    assert sum(result.training_bytes.values()) <= 6000


def test_training_mix_cuts_on_whole_characters() -> None:
    english, japanese = training_mix("abcdef", "あいうえ", 0.5, size=8)
    assert (english, japanese) == ("abcd", "あ")  # 4 bytes of English; "あい" would be 6 of the 4 left
    assert training_mix("ab", "あ", 1.0) == ("ab", "")  # the smaller corpus sets the size: 2 bytes


def test_all_english_and_all_japanese_by_script() -> None:
    english, japanese, pair = corpora()
    all_english = merge_budget(english, japanese, pair, merges=200, mix=1.0)
    all_japanese = merge_budget(english, japanese, pair, merges=200, mix=0.0)
    assert all_english.script_counts["kana"] == all_english.script_counts["kanji"] == 0
    assert all_english.script_counts["latin"] > 150
    assert all_japanese.script_counts["latin"] == 0
    assert all_japanese.script_counts["kana"] + all_japanese.script_counts["kanji"] > 150
    # Each language is cheaper under the tokenizer trained on it.
    assert all_english.tokens["en"] < all_japanese.tokens["en"]
    assert all_japanese.tokens["ja"] < all_english.tokens["ja"]
    data = all_english.to_json()
    assert data["mix"] == 1.0 and set(data["merges"]) == {"latin", "kana", "kanji", "other"}
    assert sum(data["merges"].values()) == len(data["scripts"]) == 200
    assert set(data["tokens"]) == {"en", "ja"}


def test_merge_script_by_hand() -> None:
    corpus = "the cat 猫 ねこ 42".encode()
    assert merge_script(b"th", corpus) == "latin"
    assert merge_script(b" c", corpus) == "latin"
    assert merge_script("猫".encode()[:2], corpus) == "kanji"  # two bytes of a kanji
    assert merge_script("ね".encode()[2:] + "こ".encode()[:1], corpus) == "kana"  # across two kana
    assert merge_script(b"42", corpus) == "other"
    assert merge_script(b" \xe7", corpus) == "kanji"  # a space and the lead byte of 猫


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"merges": 0, "mix": 0.5}, "merge budget"),
        ({"merges": 10_001, "mix": 0.5}, "merge budget"),
        ({"merges": 32, "mix": 1.5}, "English share"),
        ({"merges": 32, "mix": float("nan")}, "English share"),
    ],
)
def test_bad_settings_are_named(options, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        merge_budget("a b", "あ", ("a", "あ"), **options)


@pytest.mark.parametrize("text", ["only one", f"a{SEPARATOR}", f"a{SEPARATOR}b{SEPARATOR}c"])
def test_bad_pair_file_is_named(text: str) -> None:
    with pytest.raises(SettingsError, match="sentence pair"):
        parallel_pair(text)


def test_training_uses_the_given_pattern() -> None:
    english, japanese, pair = corpora()
    pattern = r"\S+|\s+"  # spaces never join words: no merge may start with a space
    result = merge_budget(english, japanese, pair, merges=40, mix=0.5, size=4000, pattern=pattern)
    english_part, japanese_part = training_mix(english, japanese, 0.5, 4000)
    _, merges = reference_train(english_part + SEPARATOR + japanese_part, 256 + 1 + 40, [SEPARATOR], pattern=pattern)
    assert list(result.merges) == merges
    assert not any(left.startswith(b" ") and left.strip() for left, _ in result.merges)


def test_curve_runs_from_bytes_to_the_trained_tokenizer() -> None:
    english, japanese, pair = corpora()
    result = merge_budget(english, japanese, pair, merges=96, mix=0.5, size=8000)
    merges = [point[0] for point in result.curve]
    assert merges[0] == 0 and merges[-1] == 96 and merges == sorted(set(merges))
    # With no merges each byte is a token; with all of them, the trained tokenizer's own counts.
    assert result.curve[0][1:] == (len(pair[0].encode()), len(pair[1].encode()))
    assert result.curve[-1][1:] == (result.tokens["en"], result.tokens["ja"])
    english_part, japanese_part = training_mix(english, japanese, 0.5, 8000)
    k, en, ja = result.curve[len(result.curve) // 2]  # a point part-way, by the slow reference trainer
    vocab, merges_k = reference_train(english_part + SEPARATOR + japanese_part, 256 + 1 + k, [SEPARATOR])
    assert 0 < k < 96
    assert (en, ja) == tuple(len(reference_encode(text, vocab, merges_k, [SEPARATOR])) for text in pair)
    assert result.to_json()["curve"][-1] == {"merges": 96, "en": result.tokens["en"], "ja": result.tokens["ja"]}
