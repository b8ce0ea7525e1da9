"""The Python API given the wrong thing: tiktoken's meaning where it has one, else a TypeError or ValueError
naming the argument (and the position, for an item of a sequence), never a silently different result."""

from __future__ import annotations

import io

import numpy as np
import pytest

from core.encode.tokenizer import InvalidTokenIdError, TokenIdTypeError, Tokenizer
from core.errors import BPEError, SettingsError
from tests.core.formats.format_cases import SPECIAL, tiktoken_encoding
from tests.data_paths import GPT2_MERGES, GPT2_VOCAB

BYTES = {i: bytes([i]) for i in range(256)}


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return Tokenizer(BYTES | {256: b"ab", 257: b"<s>"}, [(b"a", b"b")], ["<s>"])


def one_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert message and "\n" not in message
    return message


# -------------------------------------------------------------------------------------------- constructor


@pytest.mark.parametrize(
    "kwargs, error, names",
    [
        ({"special_tokens": "<s>"}, TypeError, "special_tokens"),
        ({"special_tokens": b"<s>"}, TypeError, "special_tokens"),
        ({"special_tokens": ["<s>", b"<t>"]}, TypeError, "special_tokens[1]"),
        ({"special_tokens": ["<s>", None]}, TypeError, "special_tokens[1]"),
        ({"special_tokens": 5}, TypeError, "special_tokens"),
        ({"special_tokens": [""]}, SettingsError, "empty"),
        ({"special_tokens": ["<\ud800>"]}, SettingsError, "'<\\ud800>'"),
        ({"vocab": [b"a"]}, TypeError, "vocab"),
        ({"vocab": BYTES | {256: "ab"}}, TypeError, "vocab[256]"),
        ({"vocab": BYTES | {"256": b"ab"}}, TypeError, "vocab key '256'"),
        ({"vocab": BYTES | {-1: b"ab"}}, SettingsError, "negative"),
        ({"merges": "ab"}, TypeError, "merges"),
        ({"merges": [(b"a", b"b", b"c")]}, TypeError, "merges[0]"),
        ({"merges": [("a", "b")]}, TypeError, "merges[0]"),
    ],
)
def test_constructor_arguments_of_the_wrong_kind(kwargs: dict, error: type, names: str) -> None:
    arguments = {"vocab": BYTES | {256: b"ab"}, "merges": [(b"a", b"b")], "special_tokens": None} | kwargs
    with pytest.raises(error) as caught:
        Tokenizer(**arguments)
    assert names in one_line(caught)


def test_a_surrogate_special_token_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="surrogate"):
        Tokenizer(BYTES, [], ["ok", "\udc80"])


def test_from_files_special_tokens_must_be_a_list() -> None:
    with pytest.raises(TypeError, match="special_tokens"):
        Tokenizer.from_files(GPT2_VOCAB, GPT2_MERGES, SPECIAL)  # type: ignore[arg-type]


def test_from_files_keeps_cs336_ids() -> None:
    """Special tokens missing from the vocab are appended after its largest id, in the order given."""
    tokenizer = Tokenizer.from_files(GPT2_VOCAB, GPT2_MERGES, [SPECIAL, "<new>", "<new>"])
    assert tokenizer.special_token_ids == {SPECIAL: 50256, "<new>": 50257}
    assert tokenizer.encode("Hello world<new>") == [15496, 995, 50257]


# -------------------------------------------------------------------------------------------------- encode


@pytest.mark.parametrize("text", [b"abc", None, 5, ["a"]], ids=["bytes", "none", "int", "list"])
def test_encode_needs_str(tok: Tokenizer, text: object) -> None:
    for method in (tok.encode, tok.encode_ordinary, tok.encode_with_spans):
        with pytest.raises(TypeError) as caught:
            method(text)  # type: ignore[arg-type]
        assert "must be str" in one_line(caught)


@pytest.mark.parametrize(
    "kwargs, names",
    [
        ({"allowed_special": None}, "allowed_special"),
        ({"disallowed_special": None}, "disallowed_special"),
        ({"allowed_special": "<s>"}, "allowed_special"),
        ({"disallowed_special": "<s>"}, "disallowed_special"),
        ({"allowed_special": 5}, "allowed_special"),
        ({"allowed_special": {"<s>": 1}}, "allowed_special"),
        ({"allowed_special": {b"<s>"}}, "allowed_special"),
    ],
)
def test_special_arguments_of_the_wrong_kind(tok: Tokenizer, kwargs: dict, names: str) -> None:
    with pytest.raises(TypeError) as caught:
        tok.encode("a<s>", **kwargs)
    assert names in one_line(caught)


def test_special_arguments_keep_tiktokens_meaning(tok: Tokenizer) -> None:
    """``"all"``, a set, or any other collection of names; a name that is not special is a ValueError."""
    assert tok.encode("a<s>", allowed_special={"<s>"}) == tok.encode("a<s>", allowed_special=["<s>"]) == [97, 257]
    assert tok.encode("a<s>", allowed_special=frozenset(), disallowed_special=()) == [97, 60, 115, 62]
    with pytest.raises(SettingsError, match="'<t>' is not a special token"):
        tok.encode("a", allowed_special={"<t>"})
    with pytest.raises(BPEError, match="disallowed"):
        tok.encode("a<s>", allowed_special=set())


def test_none_is_a_type_error_in_tiktoken_too() -> None:
    """What the decision follows: tiktoken refuses ``allowed_special=None`` with a TypeError, not "none"."""
    encoding = tiktoken_encoding({bytes([b]): b for b in range(256)}, {"<s>": 256})
    with pytest.raises(TypeError):
        encoding.encode("a<s>", allowed_special=None)  # type: ignore[arg-type]


def test_encode_iterable_names_the_bad_item(tok: Tokenizer) -> None:
    stream = tok.encode_iterable(["a", "b", None, "c"])  # type: ignore[list-item]
    with pytest.raises(TypeError) as caught:
        list(stream)
    assert "item 2" in one_line(caught) and "None" in str(caught.value)


def test_encode_iterable_of_a_binary_file_says_text_mode(tok: Tokenizer) -> None:
    with pytest.raises(TypeError, match="text mode"):
        list(tok.encode_iterable(io.BytesIO(b"hello\nworld\n")))  # type: ignore[arg-type]
    assert list(tok.encode_iterable(io.StringIO("ab\n<s>"))) == [256, 10, 257]


@pytest.mark.parametrize("value", [None, 5, b"bytes"], ids=["none", "int", "bytes"])
def test_encode_iterable_of_no_iterable_fails_at_once(tok: Tokenizer, value: object) -> None:
    with pytest.raises(TypeError, match="encode_iterable"):
        tok.encode_iterable(value)  # type: ignore[arg-type]


def test_encode_iterable_of_one_string_still_works(tok: Tokenizer) -> None:
    assert list(tok.encode_iterable("ab<s>")) == [256, 257]


# -------------------------------------------------------------------------------------------------- decode


@pytest.mark.parametrize("ids", [b"abc", bytearray(b"ab"), "abc", 97], ids=["bytes", "bytearray", "str", "int"])
def test_decode_needs_a_sequence_of_ids(tok: Tokenizer, ids: object) -> None:
    for method in (tok.decode, tok.decode_bytes, tok.decode_tokens_bytes):
        with pytest.raises(TypeError) as caught:
            method(ids)  # type: ignore[arg-type]
        assert "sequence of token ids" in one_line(caught) and method.__name__ in str(caught.value)


@pytest.mark.parametrize("bad", [2.0, 97.5, "97", None, np.float64(97)], ids=["2.0", "97.5", "str", "none", "np-float"])
def test_decode_refuses_ids_that_are_not_integers(tok: Tokenizer, bad: object) -> None:
    for method in (tok.decode, tok.decode_bytes, tok.decode_tokens_bytes):
        with pytest.raises(TokenIdTypeError) as caught:
            method([97, bad])  # type: ignore[list-item]
        assert "position 1" in one_line(caught) and "not an integer" in str(caught.value)
    with pytest.raises(TypeError):
        tok.decode_single_token_bytes(bad)  # type: ignore[arg-type]
    assert issubclass(TokenIdTypeError, TypeError) and issubclass(TokenIdTypeError, InvalidTokenIdError)


@pytest.mark.parametrize("bad, expected", [(-1, "negative"), (258, "0..257"), (10**30, "0..257"), (2**64, "0..257")])
def test_decode_refuses_ids_out_of_range(tok: Tokenizer, bad: int, expected: str) -> None:
    for method in (tok.decode, tok.decode_bytes, tok.decode_tokens_bytes):
        with pytest.raises(InvalidTokenIdError) as caught:
            method([97, bad])
        assert "position 1" in one_line(caught) and expected in str(caught.value)
        assert isinstance(caught.value, ValueError) and not isinstance(caught.value, TypeError)


def test_decode_takes_numpy_ids_and_bools_as_ints(tok: Tokenizer) -> None:
    assert tok.decode(np.array([256, 257, 97], dtype=np.uint16)) == "ab<s>a"
    assert tok.decode(np.array([256, 97], dtype=np.int64)) == "aba"
    assert tok.decode_single_token_bytes(np.uint32(256)) == b"ab"
    assert tok.decode([True]) == "\x01"  # bool is an int, as in tiktoken
    assert tok.decode(iter([256])) == "ab" and tok.decode(()) == ""


def test_paths_may_be_bytes_as_open_takes_them(tmp_path) -> None:
    # os.fsencode(path) or a name from os.listdir(b"."): Path() refused them with "argument should be a str object
    # or an os.PathLike object returning str, not <class 'bytes'>" in train_bpe, from_files and the loaders.
    import os

    from core.formats import load_tokenizer, save_tokenizer
    from core.train.run import train_bpe

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low low low lower lower newest " * 3, encoding="utf-8")
    vocab, merges = train_bpe(os.fsencode(corpus), 262, [SPECIAL])
    assert (vocab, merges) == train_bpe(corpus, 262, [SPECIAL])
    tok = Tokenizer(vocab, merges, [SPECIAL])
    files = save_tokenizer(tok.model, os.fsencode(tmp_path / "gpt2"), format="gpt2")
    assert load_tokenizer(os.fsencode(files[0]), merges_path=os.fsencode(files[1])).vocab == vocab
    again = Tokenizer.from_files(os.fsencode(files[0]), os.fsencode(files[1]), [SPECIAL])
    assert again.encode("lower newest") == tok.encode("lower newest")


def test_training_settings_may_be_numpy_integers(tmp_path) -> None:
    # A size from np.arange in a sweep: "vocab size np.int64(262) must be a whole number (an int), not int64".
    from core.formats import load_tokenizer, save_tokenizer
    from core.train.run import TrainingRun, train_bpe

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low low low lower lower newest " * 3, encoding="utf-8")
    sizes = np.arange(262, 263)
    assert train_bpe(corpus, sizes[0], [SPECIAL], min_count=np.int64(1), workers=np.int64(1)) == train_bpe(
        corpus, 262, [SPECIAL], workers=1)
    run = TrainingRun(corpus, np.uint16(300), [SPECIAL], max_merges=np.int32(2), min_frequency=np.int8(0), workers=1)
    for _ in run.events():
        pass
    assert len(run.merges) == 2 and type(run.vocab_size) is int
    saved = save_tokenizer(run.result(), tmp_path / "tok.json", format="bpe-tui")[0]  # JSON takes the ints
    assert load_tokenizer(saved).training.vocab_size == 300
