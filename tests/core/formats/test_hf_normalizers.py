"""Qwen2-style ``tokenizer.json`` files (an ``NFC`` normalizer, a Split regex, ByteLevel BPE) load and encode,
decode, stream and convert exactly as Hugging Face ``tokenizers`` does, or are refused in one line.

Each file is trained and saved at test time by the real library; the other normal forms go through the same
code and are checked on the same texts.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from core.encode.tokenizer import Tokenizer
from core.errors import SettingsError, TokenizerFileError
from core.fingerprint import fingerprint
from core.formats import load_tokenizer, save_tokenizer

tokenizers = pytest.importorskip("tokenizers", reason="the tests compare with Hugging Face tokenizers")

QWEN2_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
"""Qwen2's split pattern: one digit a piece, so NFKC's ``⑫`` (made ``12``) becomes two pieces."""

TRAINING = [
    "café naïve résumé Ångström ﬁne ＡＢＣ 가나다 한국어 こんにちは がぎぐ カタカナ 日本語のテキスト 🙂👍🏽 "
    "hello world the quick brown fox 12 ⑫"
] * 30

TEXTS = [
    "cafe\u0301 nai\u0308ve",  # decomposed accents
    "か\u3099き\u3099く\u3099 ｶﾞｷﾞ",  # combining and half-width dakuten
    "\u1100\u1161\u11a8 가각",  # Hangul jamo and syllables
    "ＡＢＣ ﬁne ㍻ ⑫ ¼ Ω K",  # compatibility characters NFC keeps, and singletons it does not
    "🙂👍🏽 e\u0301\u0323 a\u0323\u0301",  # emoji, marks out of canonical order
    "<|im_start|>e\u0301<|im_end|>\u0301 <tool_call>\u0301x",  # added tokens beside marks
    "\u0898a\u0301 \U00011935\U00011930",  # characters newer than tokenizers' Unicode 9.0 tables
    "",
    "plain English text, with nothing to normalize.\n",
]
ALPHABET = list("ae ká\u0301\u0300\u0323<>K\u212a\u3099\u309aかカｶﾞ\u1100\u1161\u11a8가ﬁ㍻⑫¼\n\t🙂") + [
    "<|im_end|>",
    "<tool_call>",
]


def qwen2_like(path: Path, form: str = "NFC", pattern: str = QWEN2_PATTERN) -> Path:
    """A Qwen2-like tokenizer.json: ``form`` normalizer, Split + ByteLevel, three specials, one plain added token."""
    from tokenizers import AddedToken, Regex, decoders, models, normalizers, pre_tokenizers, trainers

    reference = tokenizers.Tokenizer(models.BPE())
    reference.normalizer = getattr(normalizers, form)()
    reference.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    reference.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=500,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    reference.train_from_iterator(TRAINING, trainer)
    reference.add_tokens([AddedToken("<tool_call>", special=False, normalized=False)])
    reference.save(str(path))
    return path


def random_texts(count: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 24))) for _ in range(count)]


@pytest.mark.parametrize("form", ["NFC", "NFKC", "NFD", "NFKD"])
def test_encode_stream_and_decode_match_hugging_face(tmp_path: Path, form: str) -> None:
    path = qwen2_like(tmp_path / "tokenizer.json", form)
    reference = tokenizers.Tokenizer.from_file(str(path))
    model = load_tokenizer(path)
    assert model.normalizer == form
    ours = Tokenizer.from_model(model)
    ours.stream_block_chars = 3  # so a stream is settled many times, across runs that normalize together
    for text in TEXTS + random_texts(300):
        expected = reference.encode(text, add_special_tokens=False).ids
        assert ours.encode(text) == expected, text
        assert list(ours.encode_iterable(iter(text))) == expected, text
        assert ours.decode(expected) == reference.decode(expected, skip_special_tokens=False), text


def test_spans_point_at_the_text_as_typed(tmp_path: Path) -> None:
    """NFC makes ``e`` + U+0301 one character: the token holding ``é`` spans both characters the user typed."""
    ours = Tokenizer.from_model(load_tokenizer(qwen2_like(tmp_path / "tokenizer.json")))
    text = "cafe\u0301 か\u3099<|im_end|>x"
    spans = ours.encode_with_spans(text)
    assert [span.id for span in spans] == ours.encode(text)
    assert spans[0].char_start == 0 and spans[-1].char_end == len(text)
    assert spans[-1].byte_end == len(text.encode("utf-8"))
    accented = next(span for span in spans if "é".encode() in span.token)
    assert text[accented.char_start : accented.char_end].endswith("e\u0301")
    special = next(span for span in spans if span.is_special)
    assert text[special.char_start : special.char_end] == "<|im_end|>"
    for before, after in zip(spans, spans[1:]):
        assert before.char_start <= after.char_start and before.char_end <= after.char_end
    plain = "plain text, 日本語"  # nothing to normalize: the spans of a tokenizer without a normalizer
    assert [(s.char_start, s.char_end, s.byte_start, s.byte_end) for s in ours.encode_with_spans(plain)] == [
        (s.char_start, s.char_end, s.byte_start, s.byte_end) for s in _without_normalizer(ours).encode_with_spans(plain)
    ]


def _without_normalizer(tokenizer: Tokenizer) -> Tokenizer:
    
    return Tokenizer.from_model(replace(tokenizer.model, normalizer=None))


def test_converted_to_tokenizer_json_and_bpe_tui_it_keeps_its_normalizer(tmp_path: Path) -> None:
    path = qwen2_like(tmp_path / "tokenizer.json")
    model = load_tokenizer(path)
    assert fingerprint(model) != fingerprint(_without_normalizer(Tokenizer.from_model(model)).model)
    save_tokenizer(model, tmp_path / "again.json", format="hf")
    assert json.loads((tmp_path / "again.json").read_text(encoding="utf-8"))["normalizer"] == {"type": "NFC"}
    reference = tokenizers.Tokenizer.from_file(str(tmp_path / "again.json"))
    save_tokenizer(model, tmp_path / "native.json", format="bpe-tui")
    native = load_tokenizer(tmp_path / "native.json")
    assert native.normalizer == "NFC" and native.fingerprint_verified is True
    for text in TEXTS:
        assert Tokenizer.from_model(native).encode(text) == reference.encode(text, add_special_tokens=False).ids


@pytest.mark.parametrize("fmt, name", [("gpt2", "GPT-2 files"), ("tiktoken", "a tiktoken rank file")])
def test_formats_that_cannot_say_it_refuse_in_one_line(tmp_path: Path, fmt: str, name: str) -> None:
    model = load_tokenizer(qwen2_like(tmp_path / "qwen.json"))
    with pytest.raises(SettingsError) as caught:
        save_tokenizer(model, tmp_path / "out", format=fmt)
    assert f"cannot save qwen as {name}" in str(caught.value)
    assert "NFC" in str(caught.value) and "\n" not in str(caught.value)
    assert not (tmp_path / "out").exists()


def test_a_normalized_added_token_is_refused(tmp_path: Path) -> None:
    """Hugging Face looks for it in the normalized text: ``OK`` is found in ``O`` + KELVIN SIGN there."""
    path = qwen2_like(tmp_path / "tokenizer.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["added_tokens"][-1]["normalized"] = True
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TokenizerFileError) as caught:
        load_tokenizer(path)
    assert "added_tokens[3] '<tool_call>' is normalized" in str(caught.value)
    assert '"normalized": false' in str(caught.value)


@pytest.mark.parametrize(
    "normalizer, loads",
    [
        ({"type": "Sequence", "normalizers": [{"type": "NFC"}]}, "NFC"),
        ({"type": "NFKC", "comment": "tokenizers ignores other keys"}, "NFKC"),
        ({"type": "Lowercase"}, None),
        ({"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}]}, None),
        ({"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "NFC"}]}, None),
    ],
)
def test_normalizers_other_than_one_normal_form_are_refused(tmp_path: Path, normalizer, loads) -> None:
    path = qwen2_like(tmp_path / "tokenizer.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["normalizer"] = normalizer
    path.write_text(json.dumps(data), encoding="utf-8")
    if loads:
        assert load_tokenizer(path).normalizer == loads
        return
    with pytest.raises(TokenizerFileError) as caught:
        load_tokenizer(path)
    assert "normalizer, which bpe-tui cannot reproduce" in str(caught.value) and "\n" not in str(caught.value)


def test_added_tokens_keep_whether_they_are_special_through_bpe_tui(tmp_path: Path) -> None:
    """Qwen2.5 marks ``<tool_call>`` ``special: false``: Hugging Face's ``skip_special_tokens`` keeps it. A round
    trip through bpe-tui (as tokenizer.json, and by way of a bpe-tui file) marked every added token special."""
    path = qwen2_like(tmp_path / "tokenizer.json")
    original = tokenizers.Tokenizer.from_file(str(path))
    model = load_tokenizer(path)
    assert model.plain_added_tokens == ("<tool_call>",)
    save_tokenizer(model, tmp_path / "native.json", format="bpe-tui")
    save_tokenizer(load_tokenizer(tmp_path / "native.json"), tmp_path / "again.json", format="hf")
    flags = {added["content"]: added["special"] for added in json.loads(path.read_text(encoding="utf-8"))["added_tokens"]}
    again = json.loads((tmp_path / "again.json").read_text(encoding="utf-8"))["added_tokens"]
    assert {added["content"]: added["special"] for added in again} == flags
    ids = original.encode("<|im_start|>hi<tool_call>x<|im_end|>", add_special_tokens=False).ids
    round_tripped = tokenizers.Tokenizer.from_file(str(tmp_path / "again.json"))
    assert round_tripped.decode(ids, skip_special_tokens=True) == original.decode(ids, skip_special_tokens=True)
    assert "<tool_call>" in original.decode(ids, skip_special_tokens=True)


@pytest.mark.parametrize("form, pattern", [("NFC", QWEN2_PATTERN), ("NFKC", QWEN2_PATTERN), ("NFC", r"[\s\S]")])
def test_long_streams_in_random_chunks_match_hugging_face(tmp_path: Path, form: str, pattern: str) -> None:
    """Texts of a few hundred characters, cut anywhere (between e and U+0301, inside an added token), each
    streamed in blocks of several sizes: the settled part never ends where normalization could still join. With
    every character a piece, a run of marks that nothing changed yet outlasts the pieces a stream holds back,
    and a mark still to come (U+0323) is ordered before the U+0301s already read."""
    path = qwen2_like(tmp_path / "tokenizer.json", form, pattern)
    reference = tokenizers.Tokenizer.from_file(str(path))
    ours = Tokenizer.from_model(load_tokenizer(path))
    rng = random.Random(5)
    words = [*ALPHABET, "hello ", "world. ", "a" + "\u0301" * 6, "\u0323"]
    for block in (7, 64):
        ours.stream_block_chars = block
        marks = ["x " * 40 + "q" + "\u0301" * 30, "\u0323 and on"]  # U+0323 goes before U+0301s read
        assert list(ours.encode_iterable(marks)) == reference.encode("".join(marks), add_special_tokens=False).ids
        for _ in range(15):
            text = "".join(rng.choice(words) for _ in range(rng.randint(100, 600)))
            cuts = sorted(rng.sample(range(len(text)), 12))
            chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
            assert list(ours.encode_iterable(chunks)) == reference.encode(text, add_special_tokens=False).ids
