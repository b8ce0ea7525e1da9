"""Bad tokenizer files in every format: one-line TokenizerFileErrors naming the file (and line), no partial saves."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.core.formats.format_cases import small_model

from core.errors import BPEError, SettingsError, TokenizerFileError
from core.formats import detect_format, load_tokenizer, save_tokenizer
from core.atomic import atomic_open, atomic_write_text
from core.output_errors import OutputError
from core.model import BPEModel

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"


def load_error(path: Path, **kwargs) -> str:
    with pytest.raises(TokenizerFileError) as caught:
        load_tokenizer(path, **kwargs)
    message = str(caught.value)
    assert "\n" not in message, message
    assert path.name in message or path.parent.name in message, message
    return message


def saved(tmp_path: Path, fmt: str) -> Path:
    target = {"bpe-tui": "tok.json", "gpt2": "gpt2", "hf": "tokenizer.json", "tiktoken": "tok.tiktoken"}[fmt]
    return save_tokenizer(small_model(), tmp_path / target, format=fmt)[0]


# ---------------------------------------------------------------------------------------- wrong type


@pytest.mark.parametrize(
    "content, expected",
    [
        (PNG, "PNG"),
        (b"\x00\x01\x02binary", "binary"),
        (b"", "empty"),
        (b"   \n\n", "empty"),
        (b"name,age\nalice,3\nbob,4\n", "line 1"),
        (b"[1, 2, 3]", "array"),
        (b'{"name": "not a tokenizer", "list": [1]}', "not a tokenizer"),
        (b'{"format": "something-else", "version": 1}', "unknown format"),
        (b"caf\xe9 latin-1 text\n", "not UTF-8"),
        (b"just a sentence of prose\n", "line 1"),
    ],
    ids=["png", "nul", "empty", "blank", "csv", "json-array", "json-object", "other-format", "latin1", "prose"],
)
def test_wrong_type_is_refused(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "tokenizer.json"
    path.write_bytes(content)
    assert expected in load_error(path)
    with pytest.raises(TokenizerFileError):
        detect_format(path)


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_a_pickled_vocab_or_merges_is_named_with_the_way_to_a_tokenizer(tmp_path: Path, protocol: int) -> None:
    # CS336 students pickle train_bpe's vocab and merges; they were 'binary data' or 'not UTF-8 text'.
    import pickle

    from core.encode.tokenizer import Tokenizer

    model = small_model()
    vocab, merges = tmp_path / "vocab.pkl", tmp_path / "merges.pkl"
    vocab.write_bytes(pickle.dumps(model.vocab, protocol=protocol))
    merges.write_bytes(pickle.dumps(model.merges, protocol=protocol))
    for path in (vocab, merges):
        message = load_error(path)
        assert "is a Python pickle" in message and "save_tokenizer(BPEModel(vocab, merges" in message
    with pytest.raises(TokenizerFileError, match=r"vocab.pkl: is a Python pickle.*Tokenizer\(vocab, merges"):
        Tokenizer.from_files(vocab, merges)
    gpt2_vocab = save_tokenizer(model, tmp_path / "gpt2", format="gpt2")[0]
    assert "merges.pkl: is a Python pickle" in load_error(gpt2_vocab, merges_path=merges)


@pytest.mark.parametrize("spelling", ["lists", "latin-1", "base64"])
def test_a_vocab_saved_as_id_to_token_json_says_which_way_round_it_is(tmp_path: Path, spelling: str) -> None:
    # json.dump of train_bpe's vocab (bytes made lists or text) maps ids to tokens; it was 'values not all token
    # ids' to load_tokenizer and "token '0' has id [0]; ids must be integers >= 0" to Tokenizer.from_files.
    import base64

    from core.encode.tokenizer import Tokenizer

    model = small_model()
    as_value = {"lists": list, "latin-1": lambda token: token.decode("latin-1"),
                "base64": lambda token: base64.b64encode(token).decode("ascii")}[spelling]
    vocab = tmp_path / "vocab.json"
    vocab.write_text(json.dumps({token_id: as_value(token) for token_id, token in model.vocab.items()}), "utf-8")
    message = load_error(vocab)
    assert "it maps ids to tokens" in message and "save_tokenizer(BPEModel(vocab, merges" in message
    merges = save_tokenizer(model, tmp_path / "gpt2", format="gpt2")[1]
    with pytest.raises(TokenizerFileError, match="vocab.json: not a GPT-2 vocab.json: it maps ids to tokens"):
        Tokenizer.from_files(vocab, merges)


def test_missing_file_and_empty_directory(tmp_path: Path) -> None:
    assert "no such file" in load_error(tmp_path / "absent.json")
    assert "no tokenizer.json" in load_error(tmp_path)


# ------------------------------------------------------------------------------- corrupt and truncated


@pytest.mark.parametrize("fmt", ["bpe-tui", "hf", "gpt2"])
def test_corrupt_json_names_line(tmp_path: Path, fmt: str) -> None:
    path = saved(tmp_path, fmt)
    lines = path.read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if i > 5 and '": ' in line)
    lines[at] = lines[at].replace('": ', '" ', 1)
    path.write_text("\n".join(lines), encoding="utf-8")
    message = load_error(path)
    assert f"line {at + 1}" in message and "invalid JSON" in message


@pytest.mark.parametrize("fmt", ["bpe-tui", "hf", "gpt2"])
def test_truncated_json(tmp_path: Path, fmt: str) -> None:
    path = saved(tmp_path, fmt)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    assert "truncated" in load_error(path)


def test_truncated_merges_line(tmp_path: Path) -> None:
    vocab = saved(tmp_path, "gpt2")
    merges = vocab.parent / "merges.txt"
    text = merges.read_text(encoding="utf-8")
    cut = text.index(" ", len(text) // 2)  # stop right after the first token of a line
    merges.write_text(text[:cut], encoding="utf-8")
    line = text[:cut].count("\n") + 1
    message = load_error(vocab)
    assert "merges.txt" in message and f"line {line}" in message


def test_truncated_rank_line(tmp_path: Path) -> None:
    path = saved(tmp_path, "tiktoken")
    text = path.read_text(encoding="ascii")
    cut = text.index(" ", len(text) // 2)  # a base64 token with no rank
    path.write_text(text[:cut], encoding="ascii")
    assert f"line {text[:cut].count(chr(10)) + 1}" in load_error(path)


def test_rank_file_with_bad_base64(tmp_path: Path) -> None:
    path = saved(tmp_path, "tiktoken")
    lines = path.read_text(encoding="ascii").splitlines()
    lines[300] = "@@notbase64@@ 300"
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    assert "line 301" in load_error(path)


# ---------------------------------------------------------------------------- inconsistent tokenizers


def test_gpt2_merge_naming_unknown_token(tmp_path: Path) -> None:
    vocab = saved(tmp_path, "gpt2")
    merges = vocab.parent / "merges.txt"
    lines = merges.read_text(encoding="utf-8").split("\n")
    lines[4] = "zzzq zz"
    merges.write_text("\n".join(lines), encoding="utf-8")
    message = load_error(vocab)
    assert "merges.txt" in message and "line 5" in message and "not in" in message


def test_hf_merge_naming_unknown_token(tmp_path: Path) -> None:
    path = saved(tmp_path, "hf")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["model"]["merges"][7] = ["zzzq", "zz"]
    path.write_text(json.dumps(data), encoding="utf-8")
    message = load_error(path)
    assert "model.merges[7]" in message and "not in the vocab" in message


def test_native_merge_naming_unknown_token(tmp_path: Path) -> None:
    path = saved(tmp_path, "bpe-tui")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["merges"][2] = ["zzzq", "zz", 5]
    del data["fingerprint"]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert "merges[2]" in load_error(path)


def test_gpt2_duplicate_ids(tmp_path: Path) -> None:
    vocab = saved(tmp_path, "gpt2")
    data = json.loads(vocab.read_text(encoding="utf-8"))
    first, second = list(data)[300:302]
    data[second] = data[first]
    vocab.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    message = load_error(vocab)
    assert f"id {data[first]}" in message and "twice" in message


def test_hf_duplicate_ids(tmp_path: Path) -> None:
    path = saved(tmp_path, "hf")
    data = json.loads(path.read_text(encoding="utf-8"))
    vocab = data["model"]["vocab"]
    first, second = list(vocab)[300:302]
    vocab[second] = vocab[first]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert "used by both" in load_error(path)


def test_native_duplicate_ids(tmp_path: Path) -> None:
    path = saved(tmp_path, "bpe-tui")
    text = path.read_text(encoding="utf-8").replace('"301":', '"0301":', 1).replace('"300":', '"301":', 1)
    path.write_text(text.replace('"0301":', '"301":'), encoding="utf-8")
    assert "appears twice" in load_error(path)


def test_rank_file_duplicate_ranks(tmp_path: Path) -> None:
    path = saved(tmp_path, "tiktoken")
    lines = path.read_text(encoding="ascii").splitlines()
    lines[301] = lines[301].split()[0] + " " + lines[300].split()[1]
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    message = load_error(path)
    assert "line 302" in message and "already used on line 301" in message


def test_rank_file_that_is_not_bpe(tmp_path: Path) -> None:
    path = tmp_path / "ranks.tiktoken"
    import base64

    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines.append(f"{base64.b64encode(b'abc').decode()} 256")  # no 'ab' or 'bc' below it
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    message = load_error(path)
    assert "line 257" in message and "cannot be built" in message


def test_vocab_missing_a_byte(tmp_path: Path) -> None:
    path = saved(tmp_path, "hf")
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["model"]["vocab"]["Ā"]  # byte 0x00
    path.write_text(json.dumps(data), encoding="utf-8")
    assert "byte 0x00" in load_error(path)


def test_fingerprint_mismatch(tmp_path: Path) -> None:
    path = saved(tmp_path, "bpe-tui")
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"pattern": "', '"pattern": "x|', 1), encoding="utf-8")
    message = load_error(path)
    assert "fingerprint mismatch" in message and str(path) in message


def test_native_newer_version(tmp_path: Path) -> None:
    path = saved(tmp_path, "bpe-tui")
    path.write_text(path.read_text(encoding="utf-8").replace('"version": 1', '"version": 9'), encoding="utf-8")
    assert "newer bpe-tui" in load_error(path)


@pytest.mark.parametrize(
    "edit, expected",
    [
        (lambda d: d["model"].update(type="WordPiece"), "WordPiece"),
        (lambda d: d.update(normalizer={"type": "Lowercase"}), "Lowercase normalizer"),
        (lambda d: d.update(pre_tokenizer={"type": "Whitespace"}), "Whitespace"),
        (lambda d: d.update(pre_tokenizer={"type": "ByteLevel", "add_prefix_space": True}), "add_prefix_space"),
        (lambda d: d["model"]["vocab"].update({"▁word": 9999}), "not in GPT-2's byte alphabet"),
        # Hugging Face then takes the spaces beside the token into it, or matches it only as a whole word:
        (lambda d: d["added_tokens"][0].update(lstrip=True), "added_tokens[0] '<|endoftext|>' has lstrip=true"),
        (lambda d: d["added_tokens"][0].update(rstrip=True), "has rstrip=true"),
        (lambda d: d["added_tokens"][0].update(single_word=True), "has single_word=true"),
    ],
    ids=["wordpiece", "normalizer", "whitespace", "prefix-space", "sentencepiece-vocab",
         "added-lstrip", "added-rstrip", "added-single-word"],
)
def test_hf_features_we_cannot_reproduce(tmp_path: Path, edit, expected: str) -> None:
    path = saved(tmp_path, "hf")
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    assert expected in load_error(path)


@pytest.mark.parametrize("fmt, kind", [("bpe-tui", "a bpe-tui JSON file"), ("hf", "a Hugging Face tokenizer.json"),
                                       ("tiktoken", "a tiktoken rank file")])
def test_a_merges_file_with_a_tokenizer_that_reads_none_is_refused(tmp_path: Path, fmt: str, kind: str) -> None:
    """``encode tok.json --merges other.txt`` encoded with tok.json's own merges without a word."""
    (tmp_path / "pair").mkdir()
    merges = saved(tmp_path / "pair", "gpt2").parent / "merges.txt"
    message = load_error(saved(tmp_path, fmt), merges_path=merges)
    assert f"is {kind}, not a GPT-2 vocab.json, so the merges file given with it would go unused" in message
    gpt2_merges = merges.parent / "merges.txt"
    assert "is a GPT-2 merges file itself" in load_error(gpt2_merges, merges_path=gpt2_merges)
    assert load_tokenizer(merges.parent / "vocab.json", merges_path=merges).merges == small_model().merges


def test_an_added_token_spelled_as_another_vocab_token_is_refused(tmp_path: Path) -> None:
    """``tokenizers`` gives an added token the id its text has in ``model.vocab``: ``Ġ`` (the space) would be
    token 32, not the special token's own id."""
    path = saved(tmp_path, "hf")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["added_tokens"].append(dict(data["added_tokens"][0], id=999, content="Ġ"))
    path.write_text(json.dumps(data), encoding="utf-8")
    assert "added_tokens[1] 'Ġ' has id 999, but 'Ġ' is model.vocab's spelling of token 32" in load_error(path)


@pytest.mark.parametrize("special", ["Ġ", "Ā", "Ġthe"])
def test_hf_save_refuses_a_special_token_spelled_as_another_token(tmp_path: Path, special: str) -> None:
    """Saved, ``tokenizers`` encoded the special token ``Ġ`` as 32 (a space), ``Ā`` as 0 (byte 0x00)."""
    base = small_model()
    vocab = dict(base.vocab)
    vocab[max(vocab) + 1] = special.encode("utf-8")
    model = BPEModel(vocab, base.merges, special_tokens=[*base.special_tokens, special], pattern=base.pattern)
    assert b" the" in vocab.values() or special != "Ġthe"
    with pytest.raises(SettingsError, match=f"special token '{special}' is how its vocab spells token "):
        save_tokenizer(model, tmp_path / "tokenizer.json", format="hf")
    assert not (tmp_path / "tokenizer.json").exists()


def test_vocab_json_without_merges(tmp_path: Path) -> None:
    vocab = saved(tmp_path, "gpt2")
    (vocab.parent / "merges.txt").unlink()
    assert "needs its merges file" in load_error(vocab)


# --------------------------------------------------------------------------------------------- saving


def test_save_refuses_unknown_format_and_unrepresentable_models(tmp_path: Path) -> None:
    model = small_model()
    with pytest.raises(SettingsError, match="unknown tokenizer format"):
        save_tokenizer(model, tmp_path / "x", format="sentencepiece")
    custom = BPEModel(model.vocab, model.merges, model.special_tokens, pattern=r"\S+|\s+")
    for fmt in ("gpt2", "tiktoken"):
        with pytest.raises(SettingsError, match="pattern"):
            save_tokenizer(custom, tmp_path / f"custom-{fmt}.json", format=fmt)
    # Ids out of merge order: tiktoken would merge in id order, so the save must refuse.
    swapped = dict(model.vocab)
    a, b = max(swapped) - 1, max(swapped)
    swapped[a], swapped[b] = swapped[b], swapped[a]
    with pytest.raises(SettingsError, match="merge"):
        save_tokenizer(BPEModel(swapped, model.merges, model.special_tokens), tmp_path / "r.tt", format="tiktoken")
    assert list(tmp_path.iterdir()) == []


def test_save_into_missing_directory_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(OutputError) as caught:
        save_tokenizer(small_model(), tmp_path / "no" / "such" / "tok.json", format="bpe-tui")
    assert "does not exist" in str(caught.value) and isinstance(caught.value, BPEError)
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_keeps_old_file_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "keep.txt"
    atomic_write_text(target, "old")
    with pytest.raises(RuntimeError):
        with atomic_open(target) as handle:
            handle.write(b"half of the new cont")
            raise RuntimeError("interrupted")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


@pytest.mark.parametrize("fmt", ["bpe-tui", "hf", "gpt2"])
def test_a_replaced_file_keeps_its_permissions(tmp_path: Path, fmt: str) -> None:
    """Saving over a file made private (0600) left it readable by everyone (0644): a rename puts the
    temporary's mode in place. A new file still gets the usual mode."""
    first = saved(tmp_path, fmt)
    first.chmod(0o600)
    again = save_tokenizer(small_model(), first if fmt != "gpt2" else first.parent, format=fmt)
    assert first in again and first.stat().st_mode & 0o777 == 0o600
    fresh = save_tokenizer(small_model(), tmp_path / "fresh.json", format="bpe-tui")[0]
    umask = os.umask(0o022)
    os.umask(umask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~umask
