"""``tokenizer.json`` files that Hugging Face ``tokenizers`` itself trains and saves load exactly, or are refused.

Each test builds its file at test time with the real library, then either compares our ids with
``Tokenizer.from_file(...).encode(text, add_special_tokens=False).ids`` on :data:`TEXTS`, or checks that
loading fails with one line naming what bpe-tui does not reproduce.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from tests.core.formats.format_cases import SPECIAL, TEXTS, TRAINING_TEXT, encoder

from core.errors import TokenizerFileError
from core.formats import load_tokenizer
from core.formats.byte_alphabet import encode_bytes

tokenizers = pytest.importorskip("tokenizers", reason="the tests compare with Hugging Face tokenizers")


def hf_trained(tmp_path: Path, *, model_options: dict[str, Any] | None = None, vocab_size: int = 400):
    """A byte-level BPE trained by ``tokenizers`` on :data:`TRAINING_TEXT` with ``<|endoftext|>``, and its saved path."""
    from tokenizers import decoders, models, pre_tokenizers, trainers

    reference = tokenizers.Tokenizer(models.BPE(**(model_options or {})))
    reference.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    reference.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[SPECIAL],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    reference.train_from_iterator([TRAINING_TEXT], trainer=trainer)
    path = tmp_path / "tokenizer.json"
    reference.save(str(path))
    return reference, path


def assert_same_ids(reference, path: Path, texts: list[str] = TEXTS) -> None:
    ours = encoder(load_tokenizer(path))
    for text in texts:
        assert ours.encode(text) == reference.encode(text, add_special_tokens=False).ids, text


def load_error(path: Path) -> str:
    with pytest.raises(TokenizerFileError) as caught:
        load_tokenizer(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    return message


def test_ignore_merges_that_changes_nothing_loads_exactly(tmp_path: Path) -> None:
    """``ignore_merges=true`` (as Llama 3 sets it) emits a pre-token found in the vocab whole; when the merges
    rebuild every token from its bytes, that is what merging gives too, so the file loads."""
    reference, path = hf_trained(tmp_path, model_options={"ignore_merges": True})
    assert json.loads(path.read_text(encoding="utf-8"))["model"]["ignore_merges"] is True
    assert_same_ids(reference, path)


def test_ignore_merges_that_would_change_ids_is_refused(tmp_path: Path) -> None:
    """Merging ``abc`` by these ranks gives ``a`` + ``bc``; ``ignore_merges`` gives ``abc`` whole."""
    vocab = {encode_bytes(bytes([byte])): byte for byte in range(256)} | {"bc": 256, "ab": 257, "abc": 258}
    model = {"type": "BPE", "ignore_merges": True, "vocab": vocab, "merges": [["b", "c"], ["a", "b"], ["ab", "c"]]}
    data = {
        "version": "1.0",
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": model,
    }
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert tokenizers.Tokenizer.from_file(str(path)).encode("abc").ids == [258]
    assert "ignore_merges=true emits token 'abc' (id 258) whole" in load_error(path)


@pytest.mark.parametrize("option", ["lstrip", "rstrip", "single_word"])
def test_added_token_that_takes_in_whitespace_or_needs_a_word_boundary_is_refused(tmp_path: Path, option: str) -> None:
    """RoBERTa's ``<mask>`` has ``lstrip``: `` <mask>`` is one id there, a space and ``<mask>`` as a plain special."""
    from tokenizers import AddedToken

    reference, path = hf_trained(tmp_path)
    reference.add_special_tokens([AddedToken("<mask>", special=True, **{option: True})])
    reference.save(str(path))
    assert f"added_tokens[1] '<mask>' has {option}=true" in load_error(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["added_tokens"][1][option] = False
    path.write_text(json.dumps(data), encoding="utf-8")
    text = {"lstrip": "a <mask> b", "rstrip": "a <mask> b", "single_word": "a<mask>b"}[option]
    assert encoder(load_tokenizer(path)).encode(text) != reference.encode(text).ids  # what loading it would get wrong


def test_added_tokens_without_matching_options_load_exactly(tmp_path: Path) -> None:
    """Special and plain added tokens, ``normalized`` or not, are found where Hugging Face finds them."""
    from tokenizers import AddedToken

    reference, path = hf_trained(tmp_path)
    reference.add_special_tokens([AddedToken("<mask>", special=True, normalized=False)])
    reference.add_tokens([AddedToken("hello", normalized=True), AddedToken("wörld", normalized=False), "hell"])
    reference.save(str(path))
    assert_same_ids(reference, path, TEXTS + ["a <mask>b<mask> hello, hellohello hell wörld"])


def test_tokenizer_json_with_a_byte_order_mark_loads(tmp_path: Path) -> None:
    """An editor may save the file with a UTF-8 byte order mark; it is no part of the JSON."""
    reference, path = hf_trained(tmp_path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert_same_ids(reference, path)


def test_trained_special_tokens_spelled_with_latin_letters_load_exactly(tmp_path: Path) -> None:
    """``<é>`` and ``ĠX`` in model.vocab are special tokens' text, not GPT-2's byte alphabet (``é`` is byte 0xE9)."""
    from tokenizers import decoders, models, pre_tokenizers, trainers

    reference = tokenizers.Tokenizer(models.BPE())
    reference.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    reference.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=["<é>", "<|ŋ|>", "ĠX"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    reference.train_from_iterator([TRAINING_TEXT], trainer=trainer)
    path = tmp_path / "tokenizer.json"
    reference.save(str(path))
    assert json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]["<é>"] == 0
    assert_same_ids(reference, path, TEXTS + ["a<é>b <|ŋ|> ĠX X café"])


def test_added_token_that_is_also_a_merged_token_is_refused(tmp_path: Path) -> None:
    """``add_tokens(["Ġthe"])`` reuses the id of the merged token `` the``: one id for two texts."""
    reference, path = hf_trained(tmp_path)
    the = reference.token_to_id("Ġthe")
    reference.add_tokens(["Ġthe"])
    reference.save(str(path))
    assert json.loads(path.read_text(encoding="utf-8"))["added_tokens"][1]["id"] == the
    assert "added token 'Ġthe' is also the vocab token that merge" in load_error(path)


def hf_split(tmp_path: Path, pattern: str):
    """A BPE trained by ``tokenizers`` behind ``Split(pattern)`` + ``ByteLevel(use_regex=False)``, and its path.

    It trains on :data:`LINE_TEXTS` too, so that pieces split differently are also encoded differently."""
    from tokenizers import Regex, decoders, models, pre_tokenizers, trainers

    reference = tokenizers.Tokenizer(models.BPE())
    reference.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Split(Regex(pattern), "isolated"), pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    )
    reference.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=350, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    reference.train_from_iterator([TRAINING_TEXT, *LINE_TEXTS * 3], trainer=trainer)
    path = tmp_path / "tokenizer.json"
    reference.save(str(path))
    return reference, path


LINE_TEXTS = ["windows lines\nlines  \nlines\n", "ab\ncd\n", "the dog\n the cat  \n\n", "x  \ny  ", "cafe F00D 1a2b\n", "end\n\n"]
"""Texts whose split depends on how a pattern's anchors and ``\\h`` are read (trained on too, so it shows in ids)."""


@pytest.mark.parametrize(
    "pattern",
    [
        r"[a-z]+$|\s+|.",  # $ ends every line in Oniguruma
        r"^ ?[a-z]+|\s+|.",  # ^ starts every line
        r"[a-z]+\Z|\s+|.",  # \Z is also before a final newline
        r"\h+|\s+|.",  # \h is a hexadecimal digit
        r"[\h ]+|\s+|.",
        r"[\x{3040}-\x{309F}]+|\s+|.",  # a code point as Oniguruma spells it
        # cl100k's pattern: its \s++$ means the same in both engines, and stays as written
        r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s",
        # o200k's: \p{Lu} and \p{Ll} outside its (?i:...) group read alike
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}"
        r"| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    ],
)
def test_split_pattern_is_read_as_oniguruma_reads_it(tmp_path: Path, pattern: str) -> None:
    reference, path = hf_split(tmp_path, pattern)
    assert_same_ids(reference, path, TEXTS + LINE_TEXTS)


@pytest.mark.parametrize(
    "pattern, spelling",
    [
        (r"(?m).+|\n", "(?m)"),
        (r"\w+|\W", r"\w"),
        (r"\b\S+|\s+", r"\b"),
        (r"[[:alnum:]]+|.|\n", "[:alnum:]"),
        (r"\U00003042|\s+|.", r"\U"),  # a code point in regex, not in Oniguruma
        (r"\pL+|\PL+", r"\pL"),  # the letters pL in Oniguruma
        (r"\p{Word}+|.|\n", r"\p{Word}"),  # ² is a word character there
        (r"\p{XDigit}+|.|\n", r"\p{XDigit}"),  # Arabic-Indic digits are hex digits in regex
        (r"a\Kb|[^b]+|b", r"\K"),  # regex drops the a before \K, Oniguruma's split keeps it as a piece
        (r"(?i)ß|\s+|.", "(?i) on 'ß'"),  # Oniguruma folds case fully: ß also matches ss
        (r"(?i:fi)|\s+|.", "(?i) on 'fi'"),  # and fi matches ﬁ
        (r"(?i:[)]ß)|\s+|.", "(?i) on 'ß'"),  # a parenthesis in a class closes no group
        (r"(?i)\p{Lu}+|\s+|.", r"(?i) on \p{Lu}"),  # regex matches lower case there too, Oniguruma does not
    ],
)
def test_split_pattern_the_engines_read_differently_is_refused(tmp_path: Path, pattern: str, spelling: str) -> None:
    _, path = hf_split(tmp_path, pattern)
    assert f"uses {spelling}, which Hugging Face's regex engine (Oniguruma) reads otherwise" in load_error(path)


def test_normalized_added_token_overlapping_one_that_is_not_is_refused(tmp_path: Path) -> None:
    """Hugging Face finds ``<|endoftext|>`` (not normalized) before ``x<|end`` (normalized); bpe-tui would not."""
    reference, path = hf_trained(tmp_path)
    reference.add_tokens(["x<|end"])
    reference.save(str(path))
    assert reference.encode(f"x{SPECIAL}").tokens[-1] == SPECIAL
    assert "added token 'x<|end' (normalized) overlaps '<|endoftext|>' (not normalized)" in load_error(path)


@pytest.mark.parametrize("pattern", [r" ?[^(\s|[.,!?…。，、।۔،])]+", r"\p{L}+", r"\p{N}{1,3}", r"\D++|\S{2,}"])
def test_split_pattern_that_leaves_text_between_matches_keeps_it_as_pieces(tmp_path: Path, pattern: str) -> None:
    """``Isolated`` makes a piece of each run of text between matches (BLOOM's pattern leaves out spaces and
    punctuation, and has a class inside a class); nothing is dropped, so the file loads and splits alike. The last
    pattern leaves out a digit only after other characters (the ``1`` of ``aa1``), which no long probe text had."""
    reference, path = hf_split(tmp_path, pattern)
    assert_same_ids(reference, path, TEXTS + LINE_TEXTS + ["Hello, world (x|y)!! 。ok 12345", "aa1 x2"])


def test_empty_sequence_of_normalizers_loads(tmp_path: Path) -> None:
    """``normalizers.Sequence([])`` changes nothing; a normalizer other than a normal form alone is refused."""
    from tokenizers import normalizers

    reference, path = hf_trained(tmp_path)
    reference.normalizer = normalizers.Sequence([])
    reference.save(str(path))
    assert_same_ids(reference, path)
    reference.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Lowercase()])
    reference.save(str(path))
    assert "has a NFC + Lowercase normalizer" in load_error(path)


def test_byte_fallback_on_a_byte_level_vocab_changes_nothing_and_loads(tmp_path: Path) -> None:
    """``byte_fallback`` only spells a character missing from the vocab; a byte-level vocab misses none."""
    reference, path = hf_trained(tmp_path, model_options={"byte_fallback": True})
    assert json.loads(path.read_text(encoding="utf-8"))["model"]["byte_fallback"] is True
    assert_same_ids(reference, path)


def test_added_token_with_the_text_of_a_vocab_token_is_refused_saying_so(tmp_path: Path) -> None:
    """``add_tokens(["  "])`` (CodeGen and Phi add runs of spaces) gets a new id beside the merged ``ĠĠ``."""
    reference, path = hf_trained(tmp_path)
    both = reference.token_to_id("ĠĠ")
    reference.add_tokens(["  "])
    reference.save(str(path))
    message = load_error(path)
    assert f"added_tokens[1] '  ' (id {reference.token_to_id('  ')}) has the text of model.vocab token 'ĠĠ' (id {both})" in message


@pytest.mark.parametrize("pattern", [r"( ?\p{L}+)|(\p{N}+)|\s+|.", r"(?<word> ?\p{L}+)|\s+|."])
def test_split_pattern_with_capturing_groups_loads(tmp_path: Path, pattern: str) -> None:
    """A ``Split`` keeps each whole match, groups or not; in bpe-tui a group would keep only itself."""
    reference, path = hf_split(tmp_path, pattern)
    assert_same_ids(reference, path)


def test_our_tokenizer_json_spells_anchors_for_oniguruma(tmp_path: Path) -> None:
    """bpe-tui's ``$`` is the end of the text (or before a final newline); written as is, Hugging Face would end
    every line there."""
    from core.formats import save_tokenizer
    from core.model import BPEModel

    model = BPEModel({i: bytes([i]) for i in range(256)} | {256: b"ab"}, [(b"a", b"b")], pattern=r"[a-z]+$|.|\n")
    path = save_tokenizer(model, tmp_path / "tokenizer.json", format="hf")[0]
    reference = tokenizers.Tokenizer.from_file(str(path))
    ours = encoder(model)
    for text in ["ab\nab", "ab\nab\n", "ab\n\nab", "xab"]:
        assert ours.encode(text) == reference.encode(text).ids, text
    assert encoder(load_tokenizer(path)).encode("ab\nab\n") == ours.encode("ab\nab\n")


def digits_model(pattern: str):
    """Merges ``3`` + ``4`` first, then ``1`` + ``2`` and ``12`` + ``3``: ``12345`` is ``123 4 5`` in pieces of three
    digits, ``12 34 5`` in one piece."""
    from core.model import BPEModel

    digits = {256: b"34", 257: b"12", 258: b"123"}
    return BPEModel({i: bytes([i]) for i in range(256)} | digits, [(b"3", b"4"), (b"1", b"2"), (b"12", b"3")], pattern=pattern)


@pytest.mark.parametrize("pattern", [r"\p{N}{1,3}+|\D", r"x{1}?34|\p{N}|\D"])
def test_split_pattern_with_an_interval_then_a_quantifier_is_read_as_oniguruma_reads_it(tmp_path: Path, pattern: str) -> None:
    """Oniguruma repeats ``{1,3}+`` (any run of digits; possessive in regex) and makes ``{1}?`` optional (lazy in
    regex): read as regex reads them, ``12345`` was cut after three digits, and ``34`` cut in two."""
    from core.formats import save_tokenizer

    path = save_tokenizer(digits_model(r"\p{N}|\D"), tmp_path / "tokenizer.json", format="hf")[0]
    data = json.loads(path.read_text(encoding="utf-8"))
    data["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = pattern
    path.write_text(json.dumps(data), encoding="utf-8")
    reference = tokenizers.Tokenizer.from_file(str(path))
    ours = encoder(load_tokenizer(path))
    for text in ["12345", "1234 12 34", "a123412", "x34 34"]:
        assert ours.encode(text) == reference.encode(text).ids, text


def test_our_tokenizer_json_spells_possessive_intervals_for_oniguruma(tmp_path: Path) -> None:
    """cl100k's ``\\p{N}{1,3}+`` is possessive in regex (three digits at most); Oniguruma repeats the interval,
    so written as is Hugging Face took ``12345`` as one piece, and merged ``3`` + ``4`` across the cut."""
    from core.formats import save_tokenizer

    model = digits_model(r"\p{N}{1,3}+|\D")
    path = save_tokenizer(model, tmp_path / "tokenizer.json", format="hf")[0]
    reference = tokenizers.Tokenizer.from_file(str(path))
    ours = encoder(model)
    for text in ["12345", "1234 12 34", "a123412"]:
        assert ours.encode(text) == reference.encode(text).ids, text
    assert encoder(load_tokenizer(path)).encode("12345") == ours.encode("12345") == [258, 52, 53]


@pytest.mark.parametrize(
    "pattern, spelling",
    [
        (r"\w+|\W", r"\w"),
        (r"\p{Word}+|.|\n", r"\p{Word}"),
        (r"a\Kb|.|\n", r"\K"),
        (r"(?i)ss|.|\n", "(?i) on 'ss'"),
        (r"(?i:\p{Ll}+)|.|\n", r"(?i) on \p{Ll}"),
        (r"\p{N}*|\s+|.|\n", ""),  # matches empty text: Hugging Face would cut two spaces in two
    ],
)
def test_our_tokenizer_json_refuses_a_pattern_oniguruma_reads_otherwise(tmp_path: Path, pattern: str, spelling: str) -> None:
    from core.errors import SettingsError
    from core.formats import save_tokenizer
    from core.model import BPEModel

    model = BPEModel({i: bytes([i]) for i in range(256)}, [], pattern=pattern, name="words")
    said = f"uses {spelling}" if spelling else "matches empty text"
    with pytest.raises(SettingsError, match=r"cannot save words as tokenizer.json: its split pattern " + re.escape(said)):
        save_tokenizer(model, tmp_path / "tokenizer.json", format="hf")
    assert not (tmp_path / "tokenizer.json").exists()


def test_our_tokenizer_json_spells_one_letter_properties_with_braces(tmp_path: Path) -> None:
    """regex reads ``\\pL`` as the property L; Oniguruma reads the letters ``pL``, so ``ab ab`` was one piece and
    its ``b `` merged."""
    from core.formats import save_tokenizer
    from core.model import BPEModel

    model = BPEModel({i: bytes([i]) for i in range(256)} | {256: b"b "}, [(b"b", b" ")], pattern=r"\pL+|\PL")
    path = save_tokenizer(model, tmp_path / "tokenizer.json", format="hf")[0]
    reference = tokenizers.Tokenizer.from_file(str(path))
    for text in ["ab ab", "xab,ab", "pL"]:
        assert encoder(model).encode(text) == reference.encode(text).ids, text


def test_our_tokenizer_json_spells_code_points_for_oniguruma(tmp_path: Path) -> None:
    """regex's ``\\U00003040`` means nothing to Oniguruma, which spells a code point ``\\x{3040}``."""
    from core.formats import save_tokenizer
    from core.model import BPEModel

    hiragana = "[\\U00003040-\\U0000309F]+|[^\\U00003040-\\U0000309F]"
    model = BPEModel(
        {i: bytes([i]) for i in range(256)} | {256: b"\xe3\x81", 257: "の".encode(), 258: "のの".encode()},
        [(b"\xe3", b"\x81"), (b"\xe3\x81", b"\xae"), ("の".encode(), "の".encode())],
        pattern=hiragana,
    )
    path = save_tokenizer(model, tmp_path / "tokenizer.json", format="hf")[0]
    reference = tokenizers.Tokenizer.from_file(str(path))
    ours = encoder(model)
    for text in ["ののa", "猫のの。", "abc"]:
        assert ours.encode(text) == reference.encode(text).ids, text


def test_character_level_bpe_with_byte_tokens_among_the_added_tokens_is_refused_saying_so(tmp_path: Path) -> None:
    """``tokenizers`` trains ``<0xXX>`` byte tokens only as special tokens, which it then matches in the text."""
    from tokenizers import Regex, decoders, models, pre_tokenizers, trainers

    reference = tokenizers.Tokenizer(models.BPE(byte_fallback=True))
    reference.pre_tokenizer = pre_tokenizers.Split(Regex(r" ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+"), "isolated")
    reference.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Fuse()])
    byte_tokens = [f"<0x{byte:02X}>" for byte in range(256)]
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=byte_tokens, show_progress=False)
    reference.train_from_iterator([TRAINING_TEXT], trainer=trainer)
    path = tmp_path / "tokenizer.json"
    reference.save(str(path))
    assert reference.encode("<0x41>").ids == [0x41]
    assert "added_tokens[0] '<0x00>' is a byte-fallback token and an added token" in load_error(path)


def test_decoder_that_changes_the_text_is_refused_and_none_loads(tmp_path: Path) -> None:
    """A ``Strip`` after ``ByteLevel`` takes the leading space off what Hugging Face decodes; bpe-tui decodes the
    tokens' bytes, so ``decode`` would differ though the ids agree. Without a decoder the ids load as they are."""
    from tokenizers import decoders

    reference, path = hf_trained(tmp_path)
    reference.decoder = decoders.Sequence([decoders.ByteLevel(), decoders.Strip(" ", 1, 0)])
    reference.save(str(path))
    assert reference.decode(reference.encode(" hi").ids) == "hi"
    assert "decoder ByteLevel + Strip makes Hugging Face decode to other text" in load_error(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["decoder"] = None
    path.write_text(json.dumps(data), encoding="utf-8")
    assert_same_ids(reference, path)


def test_split_pattern_that_matches_empty_text_is_refused(tmp_path: Path) -> None:
    """After an empty match Hugging Face goes on a character later, so ``\\p{N}*`` (empty before a space) makes
    two pieces of two spaces, where bpe-tui's findall takes ``\\s+``: the pieces, and so the ids, differ."""
    reference, path = hf_split(tmp_path, r"\p{N}*|\s+|.")
    assert [piece for piece, _ in reference.pre_tokenizer.pre_tokenize_str("a  b")] == ["a", "Ġ", "Ġ", "b"]
    assert r"Split pattern '\\p{N}*|\\s+|.' matches empty text" in load_error(path)


def test_tens_of_thousands_of_added_tokens_load_in_file_order(tmp_path: Path) -> None:
    """Vocabularies extended with ``add_tokens`` may list tens of thousands (each was looked up in a list:
    20,000 took 3 s to load, now 0.2 s); they stay special tokens in the file's order."""
    reference, path = hf_trained(tmp_path)
    reference.add_tokens([f"<tok{i}>" for i in range(10_000)])
    reference.save(str(path))
    model = load_tokenizer(path)
    assert model.special_tokens[:3] == [SPECIAL, "<tok0>", "<tok1>"] and len(model.special_tokens) == 10_001
    assert_same_ids(reference, path, ["a<tok9999>b <tok7>"])
