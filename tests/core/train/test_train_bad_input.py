"""Bad input to the trainer: each case raises a one-line ``BPEError`` that names the problem (path, byte offset).

The CLI turns these into an exit code and one line on stderr; here we check what the core promises: the
exception type, that the message is a single line, and that it carries the detail the user needs to act.
"""

from __future__ import annotations

import gzip
import os
from fractions import Fraction
from pathlib import Path

import pytest

from core import reference
from core.errors import BPEError, CorpusError, SettingsError
from core.train.reading import read_text_file
from core.train.reading_stage import PARALLEL_MIN_BYTES
from core.train.run import TrainingRun, train_bpe

SPECIAL = "<|endoftext|>"


def error_of(exc_info: pytest.ExceptionInfo[BaseException]) -> str:
    message = str(exc_info.value)
    assert isinstance(exc_info.value, BPEError)
    assert message and "\n" not in message, f"not one line: {message!r}"
    return message


# -- the corpus path ---------------------------------------------------------------------------------------


def test_missing_path_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "no-such-corpus.txt"
    with pytest.raises(CorpusError) as caught:
        train_bpe(path, 300, [])
    assert str(path) in error_of(caught)


def test_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CorpusError) as caught:
        train_bpe(tmp_path, 300, [])
    message = error_of(caught)
    assert str(tmp_path) in message and "directory" in message


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="running as root: chmod 000 does not stop root from reading the file")
def test_unreadable_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "locked.txt"
    path.write_text("some text", encoding="utf-8")
    path.chmod(0)
    try:
        with pytest.raises(CorpusError) as caught:
            train_bpe(path, 300, [])
        message = error_of(caught)
        assert str(path) in message and "permission" in message.lower()
    finally:
        path.chmod(0o644)


def test_binary_file_names_the_nul_byte_offset(tmp_path: Path) -> None:
    path = tmp_path / "image.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(CorpusError) as caught:
        train_bpe(path, 300, [])
    message = error_of(caught)
    assert str(path) in message
    assert "NUL" in message and "offset 8" in message and "binary file" in message


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
@pytest.mark.parametrize("size", ["small", "beyond one reading chunk"])
def test_utf16_text_is_named_not_called_binary(tmp_path: Path, encoding: str, size: str) -> None:
    """It was 'this looks like a binary file, give a text corpus': the wrong fix for text saved as UTF-16."""
    path = tmp_path / "notes.txt"
    text = "hello world " * (1 if size == "small" else PARALLEL_MIN_BYTES // 10)
    bom = "\ufeff" if encoding == "utf-16-be" else ""  # Python's utf-16 writes its own mark; -be none
    path.write_bytes((bom + text).encode(encoding))
    packed = tmp_path / "notes.txt.gz"  # a text shard: read as a stream, not in chunks
    packed.write_bytes(gzip.compress(path.read_bytes()))
    for corpus in (path, packed):
        with pytest.raises(CorpusError) as caught:
            train_bpe(corpus, 300, [], workers=2)
        message = error_of(caught)
        assert "starts with a UTF-16 byte-order mark: convert it to UTF-8 first" in message


def refusals_plain_and_packed(path: Path) -> list[str]:
    """The errors training ``path`` gives, as it is and as a .gz shard (read as a stream, not in chunks), with
    one worker and two."""
    packed = path.with_name(path.name + ".gz")
    packed.write_bytes(gzip.compress(path.read_bytes()))
    messages = []
    for corpus in (path, packed):
        for workers in (1, 2):
            with pytest.raises(CorpusError) as caught:
                train_bpe(corpus, 300, [], workers=workers)
            messages.append(error_of(caught))
    return messages


@pytest.mark.parametrize("size", ["small", "beyond one reading chunk"])
def test_utf16_japanese_without_a_nul_is_named_too(tmp_path: Path, size: str) -> None:
    """Japanese text in UTF-16 holds no NUL byte (こ is 53 30), so it failed as invalid UTF-8, with 'fix the
    file, or train with errors 'replace'': the wrong fix, which trains on noise. It is named as UTF-16."""
    path = tmp_path / "notes.txt"
    text = "吾輩は猫である。名前はまだ無い。" * (1 if size == "small" else PARALLEL_MIN_BYTES // 20)
    path.write_bytes(text.encode("utf-16"))
    assert b"\x00" not in path.read_bytes()
    for message in refusals_plain_and_packed(path):
        assert "invalid UTF-8" in message and "starts with a UTF-16 byte-order mark: convert it to UTF-8" in message
        assert "replace" not in message


@pytest.mark.parametrize("encoding, name", [("shift_jis", "Shift_JIS"), ("euc_jp", "EUC-JP")])
@pytest.mark.parametrize("size", ["small", "beyond one reading chunk"])
def test_japanese_in_a_legacy_encoding_is_named(tmp_path: Path, encoding: str, name: str, size: str) -> None:
    """Aozora Bunko's files are Shift_JIS: training one said 'fix the file, or train with errors 'replace''."""
    path = tmp_path / "wagahai.txt"
    text = "Title\n" + "吾輩は猫である。名前はまだ無い。\n" * (1 if size == "small" else PARALLEL_MIN_BYTES // 20)
    path.write_bytes(text.encode(encoding))
    for message in refusals_plain_and_packed(path):
        assert f"it looks like {name}, not UTF-8: convert it to UTF-8 first" in message and "replace" not in message


def test_latin1_is_not_taken_for_japanese(tmp_path: Path) -> None:
    path = tmp_path / "cafe.txt"
    path.write_bytes("un café, s'il vous plaît\n".encode("latin-1"))
    with pytest.raises(CorpusError) as caught:
        train_bpe(path, 300, [])
    assert "looks like" not in error_of(caught) and "replace" in error_of(caught)


@pytest.mark.parametrize("workers", [1, 2])
def test_nul_deep_in_a_big_file_names_its_absolute_offset(tmp_path: Path, workers: int) -> None:
    # With two workers the file is cut into chunks; the offset must be the file's, not the chunk's.
    line = "a perfectly ordinary line of text\n"
    head = line * (PARALLEL_MIN_BYTES // len(line) + 2000)
    path = tmp_path / "big.txt"
    path.write_bytes(head.encode() + b"tail\x00end\n" + line.encode() * 10)
    offset = len(head) + 4
    with pytest.raises(CorpusError) as caught:
        train_bpe(path, 300, [], workers=workers)
    assert f"offset {offset}" in error_of(caught)


def test_invalid_utf8_names_the_byte_offset(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("café au lait".encode("utf-8") + b" and cr\xe8me br\xfbl\xe9e")
    offset = len("café au lait and cr".encode("utf-8"))
    with pytest.raises(CorpusError) as caught:
        train_bpe(path, 300, [])
    message = error_of(caught)
    assert str(path) in message and f"offset {offset}" in message and "errors 'replace'" in message


def test_a_text_read_whole_does_not_suggest_an_errors_setting(tmp_path: Path) -> None:
    """``diff --corpus`` and ``study --eval`` said 'train with errors 'replace'', which neither has."""
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"cr\xe8me")
    with pytest.raises(CorpusError) as caught:
        read_text_file(path)
    assert error_of(caught).endswith("offset 2 (byte 0xe8); fix the file: it must be UTF-8 text")


def test_truncated_utf8_at_the_end_names_its_offset(tmp_path: Path) -> None:
    path = tmp_path / "cut.txt"
    data = "日本語".encode("utf-8")[:-1]  # the last character lost its final byte
    path.write_bytes(data)
    with pytest.raises(CorpusError) as caught:
        train_bpe(path, 300, [])
    assert f"offset {len('日本'.encode())}" in error_of(caught)


def test_invalid_utf8_with_errors_replace_trains(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    raw = b"cr\xe8me br\xfbl\xe9e cr\xe8me"
    path.write_bytes(raw)
    vocab, merges = train_bpe(path, 256 + 20, [], errors="replace")
    assert (vocab, merges) == reference.train(raw.decode("utf-8", errors="replace"), 256 + 20)
    # The replacement character's bytes (EF BF BD) are in the text the merges were learnt from.
    assert any(b"\xef\xbf" in left + right for left, right in merges)


@pytest.mark.parametrize("route", ["file in chunks", "text shard in parts", "compressed text shard"])
def test_a_special_token_made_of_replaced_bytes_is_never_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, route: str
) -> None:
    # With errors="replace" the byte 0xFF reads as U+FFFD, so "\xff \xff" holds the special token
    # "\ufffd \ufffd" though its bytes are nowhere in the file. The cut search reads bytes: it cut at the
    # space inside, and two workers learnt other merges than one (and than the reference).
    from core.corpus import text_stream
    from core.train import reading_stage, shard_reading, word_store

    raw = b"abc \xff \xff def ghi jkl \xff \xff mno " * 20
    specials = ["\ufffd \ufffd"]
    expected = reference.train(raw.decode("utf-8", errors="replace"), 300, specials)
    monkeypatch.setattr(reading_stage, "SHARED_READING_MIN_BYTES", 0)
    monkeypatch.setattr(reading_stage, "SHARED_CHUNK_BYTES", 16)
    monkeypatch.setattr(word_store, "PARALLEL_COUNT_MIN_CHARS", 0)
    monkeypatch.setattr(shard_reading, "SPLIT_TEXT_BYTES", 16)
    monkeypatch.setattr(text_stream.text_pieces, "__defaults__", (16,))  # blocks of 16 bytes
    if route == "file in chunks":
        corpus = tmp_path / "corpus.txt"
        corpus.write_bytes(raw)
    else:
        corpus = tmp_path / "shards"
        corpus.mkdir()
        if route == "text shard in parts":
            (corpus / "a.txt").write_bytes(raw)
        else:
            (corpus / "a.txt.gz").write_bytes(gzip.compress(raw))
    assert train_bpe(corpus, 300, specials, workers=2, errors="replace") == expected


# -- settings --------------------------------------------------------------------------------------------------


def test_vocab_size_below_bytes_plus_specials_is_refused(tmp_path: Path, samples_dir: Path) -> None:
    with pytest.raises(SettingsError) as caught:
        train_bpe(samples_dir / "toy.txt", 257, [SPECIAL, "<|pad|>"])
    message = error_of(caught)
    assert "257" in message and "258" in message  # what was asked and the minimum


def test_vocab_size_below_bytes_plus_one_special_token_counts_it_in_the_singular(samples_dir: Path) -> None:
    """'bpe-tui train --vocab-size 256 --special-token <|endoftext|>', a newcomer's first try, said '1 special tokens'."""
    with pytest.raises(SettingsError) as caught:
        train_bpe(samples_dir / "toy.txt", 256, [SPECIAL])
    assert error_of(caught).endswith("it must be at least 257 (256 bytes + 1 special token)")


def test_vocab_size_exactly_bytes_plus_specials_trains_no_merges(samples_dir: Path) -> None:
    vocab, merges = train_bpe(samples_dir / "toy.txt", 258, [SPECIAL, "<|pad|>"])
    assert merges == [] and len(vocab) == 258


def test_vocab_size_below_256_is_refused(samples_dir: Path) -> None:
    with pytest.raises(SettingsError) as caught:
        train_bpe(samples_dir / "toy.txt", 100, [])
    assert "100" in error_of(caught)


@pytest.mark.parametrize("size", [300.0, "300", Fraction(300)])
def test_a_vocab_size_that_is_not_an_int_is_named_as_such_not_too_small(samples_dir: Path, size: object) -> None:
    """300.0 was refused as "too small: it must be at least 257", which sent the user looking at the number."""
    with pytest.raises(SettingsError) as caught:
        train_bpe(samples_dir / "toy.txt", size, [SPECIAL])  # type: ignore[arg-type]
    message = error_of(caught)
    assert "too small" not in message and "whole number" in message and type(size).__name__ in message


@pytest.mark.parametrize("tokens", [None, {SPECIAL}, (token for token in [SPECIAL])])
def test_special_tokens_that_are_not_a_list_are_refused_by_name(samples_dir: Path, tokens: object) -> None:
    """None raised "'NoneType' object is not iterable" and a generator "has no len()", from deep inside; a set
    would number its tokens in an order that changes from run to run."""
    with pytest.raises(SettingsError) as caught:
        train_bpe(samples_dir / "toy.txt", 300, tokens)  # type: ignore[arg-type]
    message = error_of(caught)
    assert "special_tokens must be a list" in message and type(tokens).__name__ in message


def test_empty_special_token_is_refused(samples_dir: Path) -> None:
    with pytest.raises(SettingsError) as caught:
        train_bpe(samples_dir / "toy.txt", 300, [SPECIAL, ""])
    assert "empty" in error_of(caught)


def test_duplicate_special_tokens_are_refused(samples_dir: Path) -> None:
    with pytest.raises(SettingsError) as caught:
        train_bpe(samples_dir / "toy.txt", 300, ["<|pad|>", SPECIAL, "<|pad|>"])
    message = error_of(caught)
    assert "<|pad|>" in message and "twice" in message


@pytest.mark.parametrize("token", ["a", " ", "\n", "\x00"])
def test_a_one_byte_special_token_is_refused(samples_dir: Path, token: str) -> None:
    """It would be its byte's token a second time: the saved file failed to load ("token 'a' has two ids")."""
    with pytest.raises(SettingsError) as caught:
        train_bpe(samples_dir / "toy.txt", 300, [SPECIAL, token])
    message = error_of(caught)
    assert repr(token) in message and f"token {ord(token)} already" in message


def test_a_one_character_special_token_of_several_bytes_still_trains(samples_dir: Path) -> None:
    vocab, _ = train_bpe(samples_dir / "toy.txt", 300, ["é"])
    assert list(vocab.values()).count("é".encode()) == 1


@pytest.mark.parametrize("workers", [0, -2])
def test_workers_below_one_is_refused(samples_dir, workers) -> None:
    with pytest.raises(SettingsError, match="at least 1"):
        TrainingRun(samples_dir / "toy.txt", 300, [], workers=workers)


@pytest.mark.parametrize("max_merges", [100.0, "10", -5, True])
def test_a_max_merges_that_is_not_a_whole_number_is_refused_before_reading(
    samples_dir: Path, max_merges: object
) -> None:
    """1e3 raised "'float' object cannot be interpreted as an integer" from the merge loop, once the whole corpus
    was read and counted; -5 stopped at 0 merges, calling it the merge limit."""
    with pytest.raises(SettingsError) as caught:
        TrainingRun(samples_dir / "toy.txt", 300, [], max_merges=max_merges)  # type: ignore[arg-type]
    assert f"max merges {max_merges!r} must be a whole number >= 0" in error_of(caught)


@pytest.mark.parametrize(("text", "expected"), [
    (b"low lower", "text must be a str, not bytes; decode it first"),
    ("low \udce9 lower", "text holds a lone surrogate (U+DCE9) at index 4, which UTF-8 cannot encode"),
])
def test_text_to_train_on_that_utf8_cannot_hold_is_refused_at_once(text: object, expected: str) -> None:
    """from_text(bytes) failed inside the run with "'bytes' object has no attribute 'encode'", and a lone surrogate
    (text decoded with errors='surrogateescape') with a UnicodeEncodeError."""
    with pytest.raises(SettingsError) as caught:
        TrainingRun.from_text(text, 300)  # type: ignore[arg-type]
    assert expected in error_of(caught)
