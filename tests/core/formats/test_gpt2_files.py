"""GPT-2 vocab.json + merges.txt: the real files load; every kind of bad file gets one line naming file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import TokenizerFileError
from core.formats.gpt2_files import read_gpt2_files, read_merges_txt, read_vocab_json
from core.encode.tokenizer import Tokenizer
from tests.data_paths import GPT2_MERGES, GPT2_VOCAB

BASIC_VOCAB = {"a": 0, "b": 1, "Ġ": 2, "ab": 3, "Ġab": 4}


def write(tmp_path: Path, vocab: str | dict, merges: str = "a b\nĠ ab\n") -> tuple[Path, Path]:
    vocab_path, merges_path = tmp_path / "vocab.json", tmp_path / "merges.txt"
    vocab_path.write_text(vocab if isinstance(vocab, str) else json.dumps(vocab, indent=2), encoding="utf-8")
    merges_path.write_text(merges, encoding="utf-8")
    return vocab_path, merges_path


def error_for(vocab_path: Path, merges_path: Path) -> str:
    with pytest.raises(TokenizerFileError) as error:
        read_gpt2_files(vocab_path, merges_path)
    message = str(error.value)
    assert "\n" not in message
    return message


def test_reads_a_small_pair(tmp_path) -> None:
    vocab, merges = read_gpt2_files(*write(tmp_path, BASIC_VOCAB, "#version: 0.2\na b\nĠ ab\n\n"))
    assert vocab == {0: b"a", 1: b"b", 2: b" ", 3: b"ab", 4: b" ab"}
    assert merges == [(b"a", b"b"), (b" ", b"ab")]


def test_reads_gpt2_release() -> None:
    vocab, merges = read_gpt2_files(GPT2_VOCAB, GPT2_MERGES)
    assert len(vocab) == 50257 and len(merges) == 50000
    assert vocab[50256] == b"<|endoftext|>" and vocab[220] == b" " and merges[0] == (b" ", b"t")


def test_added_tokens_outside_the_alphabet_are_utf8(tmp_path) -> None:
    vocab = read_vocab_json(write(tmp_path, {"<｜end｜>": 0, "Ġ": 1})[0])
    assert vocab == {0: "<｜end｜>".encode(), 1: b" "}


def test_missing_file(tmp_path) -> None:
    vocab_path, merges_path = write(tmp_path, BASIC_VOCAB)
    message = error_for(tmp_path / "nope.json", merges_path)
    assert "nope.json" in message and "not found" in message
    assert "nope.txt" in error_for(vocab_path, tmp_path / "nope.txt")


def test_directory_instead_of_file(tmp_path) -> None:
    assert "directory" in error_for(tmp_path, write(tmp_path, BASIC_VOCAB)[1])


def test_truncated_vocab(tmp_path) -> None:
    text = json.dumps(BASIC_VOCAB, indent=2)
    message = error_for(*write(tmp_path, text[: len(text) // 2]))
    assert "vocab.json: line 4" in message and "not valid JSON" in message


def test_empty_vocab(tmp_path) -> None:
    assert "line 1" in error_for(*write(tmp_path, ""))


def test_not_utf8(tmp_path) -> None:
    vocab_path, merges_path = write(tmp_path, BASIC_VOCAB)
    vocab_path.write_bytes(b'{"a": 0,\n "\xff": 1}')
    assert "vocab.json: line 2" in error_for(vocab_path, merges_path)


def test_vocab_of_the_wrong_type(tmp_path) -> None:
    assert "expected a JSON object" in error_for(*write(tmp_path, '["a", "b"]'))


def test_non_integer_id_names_its_line(tmp_path) -> None:
    message = error_for(*write(tmp_path, '{\n"a": 0,\n"b": "one"\n}'))
    assert "vocab.json: line 3" in message and "'b'" in message


def test_duplicate_ids_name_the_line(tmp_path) -> None:
    message = error_for(*write(tmp_path, '{\n"a": 0,\n"b": 1,\n"ab": 1\n}', "a b\n"))
    assert "vocab.json: line 4" in message and "id 1 is used twice" in message


def test_duplicate_tokens_name_the_line(tmp_path) -> None:
    message = error_for(*write(tmp_path, '{\n"a": 0,\n"b": 1,\n"a": 2\n}', ""))
    assert "vocab.json: line 4" in message and "'a' appears twice" in message


def test_merge_naming_a_token_not_in_vocab(tmp_path) -> None:
    message = error_for(*write(tmp_path, BASIC_VOCAB, "a b\nb Ġ\n"))
    assert "merges.txt: line 2" in message and "'bĠ'" in message and "vocab.json" in message


def test_malformed_merge_lines(tmp_path) -> None:
    for bad in ["a\n", "a b ab\n", "a  b\n", " a\n"]:
        message = error_for(*write(tmp_path, BASIC_VOCAB, "a b\n" + bad))
        assert "merges.txt: line 2" in message and "two tokens" in message


def test_merge_with_characters_outside_the_alphabet(tmp_path) -> None:
    message = error_for(*write(tmp_path, BASIC_VOCAB, "a b\na ｂ\n"))
    assert "merges.txt: line 2" in message and "'ｂ'" in message


def test_merges_checked_without_vocab(tmp_path) -> None:
    path = write(tmp_path, BASIC_VOCAB, "Ġ ab\n")[1]
    assert read_merges_txt(path) == [(b" ", b"ab")]


def test_from_files_raises_the_same_errors(tmp_path) -> None:
    vocab_path, merges_path = write(tmp_path, BASIC_VOCAB, "a b\nb Ġ\n")
    with pytest.raises(TokenizerFileError, match="merges.txt: line 2"):
        Tokenizer.from_files(vocab_path, merges_path)


@pytest.mark.parametrize(
    "variant", ["as saved", "byte order marks", "CRLF", "trailing blank lines", "leading blank line", "no #version"]
)
def test_pair_saved_by_hugging_face_loads_in_every_spelling(tmp_path, variant: str) -> None:
    """``vocab.json`` + ``merges.txt`` from ``tokenizers``' ``save_model``, as editors may leave them, encode as it does."""
    tokenizers = pytest.importorskip("tokenizers", reason="the pair is made by Hugging Face tokenizers")
    from tests.core.formats.format_cases import SPECIAL, TEXTS, TRAINING_TEXT

    from core.formats import load_tokenizer

    trained = tokenizers.ByteLevelBPETokenizer()
    trained.train_from_iterator([TRAINING_TEXT], vocab_size=400, special_tokens=[SPECIAL], show_progress=False)
    saved, edited = tmp_path / "saved", tmp_path / "edited"
    saved.mkdir()
    edited.mkdir()
    trained.save_model(str(saved))
    assert (saved / "merges.txt").read_bytes().startswith(b"#version")
    edit = {
        "as saved": lambda data: data,
        "byte order marks": lambda data: b"\xef\xbb\xbf" + data,
        "CRLF": lambda data: data.replace(b"\n", b"\r\n"),
        "trailing blank lines": lambda data: data + b"\n\n\n",
        "leading blank line": lambda data: b"\n" + data,
        "no #version": lambda data: data.split(b"\n", 1)[1] if data.startswith(b"#version") else data,
    }[variant]
    for name in ("vocab.json", "merges.txt"):
        (edited / name).write_bytes(edit((saved / name).read_bytes()))
    reference = tokenizers.Tokenizer(tokenizers.models.BPE.from_file(str(saved / "vocab.json"), str(saved / "merges.txt")))
    reference.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    reference.add_special_tokens([SPECIAL])
    for path in (edited / "vocab.json", edited / "merges.txt", edited):
        ours = Tokenizer.from_model(load_tokenizer(path))
        for text in TEXTS:
            assert ours.encode(text) == reference.encode(text).ids, (path.name, text)


def test_pair_with_roberta_style_special_tokens_says_so(tmp_path) -> None:
    """``<s>``, ``<pad>``... in a saved pair are special tokens the files cannot mark, not a merges.txt cut short."""
    tokenizers = pytest.importorskip("tokenizers", reason="the pair is made by Hugging Face tokenizers")
    from tests.core.formats.format_cases import TEXTS, TRAINING_TEXT

    from core.formats import load_tokenizer

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    trained = tokenizers.ByteLevelBPETokenizer()
    trained.train_from_iterator([TRAINING_TEXT], vocab_size=400, special_tokens=specials, show_progress=False)
    trained.save_model(str(tmp_path))
    with pytest.raises(TokenizerFileError) as caught:
        load_tokenizer(tmp_path / "vocab.json")
    assert "5 tokens that no merge makes and that are named like special tokens but not marked as such" in str(caught.value)
    assert "is merges.txt complete" not in str(caught.value)
    ours = Tokenizer.from_files(tmp_path / "vocab.json", tmp_path / "merges.txt", specials)
    for text in [*TEXTS, "<s>a <mask> b</s>"]:
        assert ours.encode(text) == trained.encode(text).ids, text


def test_pair_beside_added_tokens_it_lacks_is_refused(tmp_path) -> None:
    """transformers keeps tokens added after training in added_tokens.json beside the pair; Hugging Face finds
    ``<pad>`` in text as one token, the pair alone would split it. One that repeats a vocab token is harmless."""
    from core.formats import load_tokenizer
    from core.formats.byte_alphabet import encode_bytes

    full = {encode_bytes(bytes([byte])): byte for byte in range(256)} | {"ab": 256, "<|endoftext|>": 257}
    vocab_path, _ = write(tmp_path, full, "a b\n")
    (tmp_path / "added_tokens.json").write_text('{"<|endoftext|>": 257}', encoding="utf-8")
    assert load_tokenizer(tmp_path).special_tokens == ["<|endoftext|>"]
    (tmp_path / "added_tokens.json").write_text('{"<|endoftext|>": 257, "<pad>": 258}', encoding="utf-8")
    with pytest.raises(TokenizerFileError) as error:
        load_tokenizer(tmp_path)
    assert str(error.value) == (
        f"{vocab_path}: added_tokens.json beside it adds 1 token(s) that vocab.json lacks (the first: '<pad>', id 258), "
        "which Hugging Face finds in text as one token each and this pair cannot: load the model's tokenizer.json, "
        "or pass them as special tokens to Tokenizer.from_files"
    )
    (tmp_path / "added_tokens.json").write_text('["<pad>"]', encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="added_tokens.json: expected a JSON object of token -> integer id"):
        load_tokenizer(tmp_path)


def test_the_reading_at_once_equals_the_line_by_line_reading(monkeypatch) -> None:
    """A usual file is read with no Python step per line; the careful reader (which names what is wrong) must
    give the same vocab and merges for the bundled GPT-2 files."""
    import core.formats.gpt2_files as gpt2

    quick = read_gpt2_files(GPT2_VOCAB, GPT2_MERGES)
    monkeypatch.setattr(gpt2, "_vocab_at_once", lambda pairs: None)
    monkeypatch.setattr(gpt2, "_merges_at_once", lambda text, known: None)
    assert read_gpt2_files(GPT2_VOCAB, GPT2_MERGES) == quick


@pytest.mark.parametrize(
    ("vocab", "merges", "expected"),
    [
        (BASIC_VOCAB, "a b\n\nĠ ab\n", "no problem"),  # a blank line: read line by line, which skips it
        (BASIC_VOCAB | {"#version:": 5, "0.2": 6, "#version:0.2": 7}, "#version: 0.2\n#version: 0.2\na b\n", "no problem"),
        (BASIC_VOCAB, "a  b\nĠ ab\n", "line 1: expected two tokens"),
        (BASIC_VOCAB, "a b\nĠ ab c\n", "line 2: expected two tokens"),
        (BASIC_VOCAB, "a b\nĠ a\u3000b\n", "line 2: character '\\u3000' is not in the GPT-2 byte alphabet"),
        (BASIC_VOCAB, "a b\n a\n", "line 2: expected two tokens"),
        (BASIC_VOCAB, "a b\nb a\n", "line 2: token 'ba' is not in vocab.json"),
        ({"a": 0, "b": 1, "Ġ": 2, "ab": 3, "Ġab": True}, "a b\n", "token 'Ġab' has id True"),
        ({"a": 0, "b": 1, "Ġ": 2, "ab": 3, "Ġ ab": 4}, "a b\n", "no problem"),  # not the alphabet: as UTF-8
    ],
)
def test_an_unusual_file_goes_to_the_careful_reader(tmp_path, vocab, merges, expected) -> None:
    paths = write(tmp_path, vocab, merges)
    if expected == "no problem":
        _, read_merges = read_gpt2_files(*paths)
        assert read_merges[0] == (b"a", b"b")
    else:
        assert expected in error_for(*paths)
