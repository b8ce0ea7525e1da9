"""Tokenizer behaviour on small hand-built vocabularies: special tokens, options, errors, round trips."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.encode.plain_text
from core.errors import BPEError, SettingsError
from core.pretokenize.fast_split import splitter_for, tiles_every_text
from core.model import BPEModel
from core.pretokenize.patterns import GPT2_PATTERN, SETTLING_PATTERNS, compile_pattern
from core.encode.tokenizer import DisallowedSpecialTokenError, InvalidTokenIdError, Tokenizer
from tests.core.encode.tokenizer_cases import EOT, SMALL_MERGES, byte_vocab, naive_encode_tokens, small_tokenizer

DOUBLE = EOT + EOT
FIXED_TEXTS = ["", "a", "é", "の", "🙂", "👩‍👩‍👧", "日本語のテキストです。", "\x00\x01\x1f\x7f", "\r\n\t\x0b\x0c",
               "the the  low\n\n\n"]


def test_encode_applies_merges_by_rank() -> None:
    tok = small_tokenizer()
    # "the": t+h, then th+e. " lower": l+o, then lo+w; nothing joins the space to "low".
    assert tok.decode_tokens_bytes(tok.encode("the lower")) == [b"the", b" ", b"low", b"e", b"r"]
    # " the": t+h (rank 0), then th+e (rank 1) beats " "+th (rank 2), and no merge joins " " to "the".
    assert tok.decode_tokens_bytes(tok.encode(" the")) == [b" ", b"the"]


def test_special_tokens_missing_from_vocab_get_new_ids_in_order() -> None:
    tok = Tokenizer(byte_vocab() | {300: b"ab"}, [(b"a", b"b")], ["<x>", "<y>", "<x>"])
    assert tok.special_tokens == ["<x>", "<y>"]
    assert tok.special_token_ids == {"<x>": 301, "<y>": 302}
    assert tok.encode("ab<y>ab<x>") == [300, 302, 300, 301]


@pytest.mark.parametrize("kind", [set, frozenset])
def test_special_tokens_as_a_set_are_refused(kind) -> None:
    """A set's order is its hash order, which PYTHONHASHSEED changes from process to process: three tokens
    appended got ids [256, 257, 258], [258, 257, 256] or [257, 256, 258], so two workers disagreed."""
    tokens = kind(["<|a|>", "<|b|>", "<|c|>"])
    with pytest.raises(TypeError, match=f"not a {kind.__name__}"):
        Tokenizer(byte_vocab(), [], tokens)
    assert Tokenizer(byte_vocab(), [], sorted(tokens)).encode("<|a|><|c|>") == [256, 258]


def test_special_token_already_in_vocab_keeps_its_id() -> None:
    tok = Tokenizer(byte_vocab() | {256: EOT.encode()}, [], [EOT])
    assert tok.encode(EOT) == [256]
    assert len(tok.vocab) == 257


def test_overlapping_special_tokens_longest_wins_and_are_never_split() -> None:
    tok = small_tokenizer([EOT, DOUBLE])
    eot, double = tok.special_token_ids[EOT], tok.special_token_ids[DOUBLE]
    assert tok.encode(EOT * 3) == [double, eot]
    ids = tok.encode("the" + DOUBLE + " the" + EOT)
    assert ids[1] == double and ids[-1] == eot
    assert tok.decode(ids) == "the" + DOUBLE + " the" + EOT
    expected = naive_encode_tokens("the" + DOUBLE + " the" + EOT, SMALL_MERGES, [EOT, DOUBLE])
    assert tok.decode_tokens_bytes(ids) == expected


def test_text_around_special_tokens_is_pre_tokenised_as_separate_documents() -> None:
    tok = small_tokenizer([EOT])
    text = "the  " + EOT + "  the"
    assert tok.decode_tokens_bytes(tok.encode(text)) == naive_encode_tokens(text, SMALL_MERGES, [EOT])


def test_encode_ordinary_treats_special_tokens_as_text() -> None:
    tok = small_tokenizer([EOT])
    assert tok.encode_ordinary(EOT) == tok.encode(EOT, allowed_special=set(), disallowed_special=())
    assert tok.encode_ordinary(EOT) == list(EOT.encode())


def test_default_allows_every_special_token_unlike_tiktoken() -> None:
    tok = small_tokenizer([EOT, "<pad>"])
    assert tok.encode("<pad>" + EOT) == [tok.special_token_ids["<pad>"], tok.special_token_ids[EOT]]


def test_disallowed_special_token_raises_naming_it() -> None:
    tok = small_tokenizer([EOT, "<pad>"])
    with pytest.raises(DisallowedSpecialTokenError) as error:
        tok.encode("hi <pad>", allowed_special={EOT})
    assert "'<pad>'" in str(error.value) and "\n" not in str(error.value)
    assert isinstance(error.value, ValueError)
    with pytest.raises(DisallowedSpecialTokenError):
        tok.encode(EOT, allowed_special=set())


def test_allowed_subset_and_plain_text_for_the_rest() -> None:
    tok = small_tokenizer([EOT, "<pad>"])
    ids = tok.encode("<pad>" + EOT, allowed_special={EOT}, disallowed_special=())
    assert ids == list(b"<pad>") + [tok.special_token_ids[EOT]]


def test_unknown_special_token_names_are_rejected() -> None:
    with pytest.raises(SettingsError, match="<nope>"):
        small_tokenizer([EOT]).encode("x", allowed_special={"<nope>"})


def test_decode_replaces_invalid_utf8() -> None:
    tok = small_tokenizer()
    assert tok.decode([0xE3, 0x81]) == "\ufffd"
    assert tok.decode([0xFF, ord("a")]) == "\ufffda"
    assert tok.decode_bytes([0xE3, 0x81]) == b"\xe3\x81"


@pytest.mark.parametrize("bad", [99999, -1, 257.5, "3", None])
def test_decode_rejects_unknown_ids_with_one_line_naming_the_id(bad) -> None:
    tok = small_tokenizer()
    for call in (tok.decode, tok.decode_bytes, tok.decode_tokens_bytes):
        with pytest.raises(InvalidTokenIdError) as error:
            call([104, 105, bad])
        message = str(error.value)
        assert repr(bad) in message and "position 2" in message and "\n" not in message
    with pytest.raises(InvalidTokenIdError, match=repr(bad)):
        tok.decode_single_token_bytes(bad)
    assert issubclass(InvalidTokenIdError, BPEError)


def test_decode_accepts_any_iterable_of_ids() -> None:
    tok = small_tokenizer()
    assert tok.decode(iter([104, 105])) == "hi"
    assert tok.decode_tokens_bytes(x for x in [104, 105]) == [b"h", b"i"]


@pytest.mark.parametrize("text", FIXED_TEXTS)
def test_round_trip_fixed_cases(text) -> None:
    tok = small_tokenizer([EOT])
    assert tok.decode(tok.encode(text)) == text
    assert tok.decode(tok.encode_ordinary(text + EOT)) == text + EOT


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_round_trip_any_text(text) -> None:
    tok = small_tokenizer([EOT])
    assert tok.decode(tok.encode(text)) == text
    assert tok.decode_tokens_bytes(tok.encode(text)) == naive_encode_tokens(text, SMALL_MERGES, [EOT])


@settings(max_examples=150, deadline=None)
@given(text=st.lists(st.sampled_from(["a", "aa", " ", "  ", "\n", "'", "l", "の", "the", EOT]), max_size=80).map("".join))
def test_huge_text_is_split_in_slices_with_the_same_result(text) -> None:
    tok = small_tokenizer([EOT])
    expected = naive_encode_tokens(text, SMALL_MERGES, [EOT])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(core.encode.plain_text, "SPLIT_CHARS", 7)  # every special-free stretch counts as huge
        assert tok.decode_tokens_bytes(tok.encode(text)) == expected
        assert tok.decode_tokens_bytes(tok.encode_ordinary(text)) == naive_encode_tokens(text, SMALL_MERGES)


def test_long_text_in_short_slices_equals_one_split(monkeypatch) -> None:
    """Under GPT-2's pattern a long text is split in slices of SHORT_SLICE_CHARS; the ids must be those of one
    split of the whole, whatever falls at a slice's end ('l of 'll, a space before a word, a run cut short)."""
    import random

    rng = random.Random(16)
    words = ["a", "aa", " ", "  ", "\n", "\n\n", "'", "'ll", "l", "の", "the", " low", " 42", "!?", "\t "]
    text = "".join(rng.choice(words) for _ in range(60_000))
    assert len(text) > 3 * core.encode.plain_text.SHORT_SLICE_CHARS
    slices = []
    tok = small_tokenizer([EOT])
    settled = tok._plain.encode_settled
    monkeypatch.setattr(tok._plain, "encode_settled", lambda *args: slices.append(args[1:]) or settled(*args))
    sliced = tok.encode_ordinary(text)
    assert len(slices) >= 3
    monkeypatch.setattr(core.encode.plain_text, "SHORT_SLICE_CHARS", 1 << 30)
    slices.clear()
    assert small_tokenizer([EOT]).encode_ordinary(text) == sliced and not slices
    # A pattern not known to settle within the held pieces keeps the long slices.
    other = Tokenizer.from_model(BPEModel(byte_vocab(), [], pattern=r"\S+|\s+"))
    assert other._plain.short_slices is False and small_tokenizer([EOT])._plain.short_slices is True


@pytest.mark.parametrize(
    "pattern",
    sorted(SETTLING_PATTERNS),
    ids=lambda pattern: pattern[:24],
)
@settings(max_examples=300, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(
            ["a", "B", "ll", "'", "'l", "'S", "'ll", " ", "  ", "\n", "\r\n", " \n", "\t", "1", "234", " 5", "!", "/",
             "の", "日本", "e\u0301", "X"]
        ),
        max_size=50,
    ),
    slice_chars=st.integers(1, 12),
)
def test_the_held_pieces_settle_every_known_pattern(pattern, words, slice_chars) -> None:
    """A slice's pieces, its last HELD_PIECES held back, are those of the whole text, for every pattern whose
    long texts are encoded in short slices (and cut so by encode_iterable). Pieces, not ids, are compared:
    with few merges "'ll" and "'" + "ll" encode alike."""
    text = "".join(words)
    plain = Tokenizer.from_model(BPEModel(byte_vocab(), [], pattern=pattern))._plain
    assert plain.short_slices
    met: list[str] = []
    plain.encode_split = lambda _text, pieces: met.extend(pieces) or []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(core.encode.plain_text, "SHORT_SLICE_CHARS", slice_chars)
        plain.encode(text)
    assert met == plain.split(text)


def test_surrogates_encode_as_replacement_characters() -> None:
    tok = small_tokenizer([EOT])
    text = "a\ud800b\udfff" + EOT
    expected = tok.encode("a\ufffdb\ufffd" + EOT)
    assert tok.encode(text) == expected
    assert tok.encode_ordinary(text) == tok.encode_ordinary("a\ufffdb\ufffd" + EOT)
    assert list(tok.encode_iterable(["a\ud800", "b\udfff<|endof", "text|>"])) == expected


def test_pickles_as_its_model() -> None:
    tok = small_tokenizer([EOT, "<new>"])
    again = pickle.loads(pickle.dumps(tok))
    text = "the low の<new>" + EOT
    assert again.encode(text) == tok.encode(text) and again.special_token_ids == tok.special_token_ids
    assert again.vocab == tok.vocab and again.merges == tok.merges


def test_empty_special_token_is_rejected() -> None:
    with pytest.raises(SettingsError, match="empty"):
        small_tokenizer([""])


def test_vocab_must_hold_every_byte_and_merges_known_tokens() -> None:
    vocab = byte_vocab()
    del vocab[200]
    with pytest.raises(SettingsError, match="single bytes"):
        Tokenizer(vocab, [])
    with pytest.raises(SettingsError, match="merge 0"):
        Tokenizer(byte_vocab(), [(b"a", b"b")])  # b"ab" has no id


def test_a_merge_naming_an_unknown_token_is_named_by_its_rank() -> None:
    merges = [(b"a", b"b"), (b"ab", b"c"), (b"x", b"y")]
    with pytest.raises(SettingsError, match=r"merge 2 \(b'x', b'y'\) needs token b'xy'"):
        Tokenizer(byte_vocab() | {256: b"ab", 257: b"abc"}, merges)
    with pytest.raises(SettingsError, match=r"merge 1 \(b'zz', b'c'\) needs token b'zz'"):
        Tokenizer(byte_vocab() | {256: b"ab", 257: b"abc"}, [(b"a", b"b"), (b"zz", b"c")])


def test_duplicate_bytes_encode_as_the_lowest_id_and_a_repeated_merge_keeps_its_first_rank() -> None:
    # Two ids for b"ab": the lower one encodes, whichever order the vocab lists them in.
    vocab = {300: b"ab", **byte_vocab(), 256: b"ab", 257: b"cd", 258: b"bc"}
    merges = [(b"a", b"b"), (b"c", b"d"), (b"b", b"c"), (b"c", b"d")]
    tok = Tokenizer(vocab, merges)
    assert tok.encode("ab") == [256]
    # (c, d) ranks 1, not 3, so it merges before (b, c) at rank 2.
    assert tok.encode("bcd") == [98, 257]
    # Merges given as lists are read as pairs.
    assert Tokenizer(byte_vocab() | {256: b"ab"}, [[b"a", b"b"]]).encode("ab") == [256]


def test_from_model_keeps_the_pattern_and_model_round_trips() -> None:
    model = BPEModel(byte_vocab() | {256: b"ab"}, [(b"a", b"b")], ["<s>"], pattern=r"\S+|\s+", name="tiny")
    tok = Tokenizer.from_model(model)
    assert tok.encode("ab a-b") == [256, 32, 97, 45, 98]  # "a-b" is one pre-token under \S+
    again = tok.model
    assert again.pattern == model.pattern and again.name == "tiny" and again.special_tokens == ["<s>"]
    assert Tokenizer.from_model(again).encode("ab<s>") == tok.encode("ab<s>")


def test_model_property_includes_appended_special_tokens() -> None:
    tok = small_tokenizer(["<new>"])
    model = tok.model
    assert model.vocab[tok.special_token_ids["<new>"]] == b"<new>"
    assert model.pattern == GPT2_PATTERN and model.merges == SMALL_MERGES
    assert Tokenizer.from_model(model).encode("the<new>") == tok.encode("the<new>")


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_fast_splitter_equals_the_regex_pattern(text) -> None:
    assert splitter_for(GPT2_PATTERN)(text) == compile_pattern().findall(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=())))
def test_gpt2_pieces_tile_every_text_as_encoding_assumes(text) -> None:
    # Encoding skips checking this for the patterns tiles_every_text names; any character, surrogates too.
    assert tiles_every_text(GPT2_PATTERN)
    assert "".join(compile_pattern().findall(text)) == text
    assert "".join(splitter_for(GPT2_PATTERN)(text)) == text


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0xFFFF, exclude_categories=())))
def test_fast_splitter_equals_the_regex_pattern_on_bmp_text(text) -> None:
    # Includes lone surrogates and every category, on the path that uses the stdlib re engine.
    assert splitter_for(GPT2_PATTERN)(text) == compile_pattern().findall(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x7F, exclude_categories=())), st.booleans())
def test_fast_splitter_equals_the_regex_pattern_on_ascii_text(text, spell_out_bmp) -> None:
    # ASCII text (every control character included) takes the small re pattern, in training and encoding.
    assert splitter_for(GPT2_PATTERN, spell_out_bmp=spell_out_bmp)(text) == compile_pattern().findall(text)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x3100, exclude_categories=())))
def test_training_splitter_equals_the_regex_pattern(text) -> None:
    assert splitter_for(GPT2_PATTERN, spell_out_bmp=False)(text) == compile_pattern().findall(text)


def test_fast_splitter_on_every_ascii_character() -> None:
    every = "".join(map(chr, range(0x80)))
    sample = "".join(f"{every[i:i + 3]} {every[i + 1]}  \n'{every[i + 2]}ll'S" for i in range(0, 0x7D))
    assert sample.isascii()
    assert splitter_for(GPT2_PATTERN, spell_out_bmp=False)(sample) == compile_pattern().findall(sample)


def test_fast_splitter_on_every_bmp_character_class() -> None:
    every = "".join(map(chr, range(0x10000)))
    sample = "".join(f"{every[i:i + 7]} {every[i + 3:i + 5]}  \n'll{every[i + 1]}" for i in range(0, 0xFFF0, 5))
    assert splitter_for(GPT2_PATTERN)(sample) == compile_pattern().findall(sample)


def test_written_out_ascii_classes_are_what_regex_matches() -> None:
    from core.pretokenize.fast_split import ASCII_CLASSES, class_below

    assert {prop: class_below(prop, 0x80) for prop in ASCII_CLASSES} == ASCII_CLASSES
