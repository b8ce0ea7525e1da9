"""Files we write are read by the real libraries and encode identically; files they write load in ours.

Hugging Face ``tokenizers`` loads our ``tokenizer.json`` with ``Tokenizer.from_file``; tiktoken gets our
rank file through ``tiktoken.load.load_tiktoken_bpe`` (a local read) and an ``Encoding`` built offline.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.core.formats.format_cases import SPECIAL, TEXTS, encoder, gpt2_model, small_model, tiktoken_encoding, train_small
from tests.data_paths import GPT2_MERGES, GPT2_VOCAB

from core.fingerprint import fingerprint
from core.formats import load_tokenizer, save_tokenizer
from core.model import BPEModel
from core.pretokenize.patterns import GPT2_PATTERN

tokenizers = pytest.importorskip("tokenizers")
tiktoken_load = pytest.importorskip("tiktoken.load")


def hf_ids(path: Path, text: str) -> list[int]:
    return tokenizers.Tokenizer.from_file(str(path)).encode(text, add_special_tokens=False).ids


def check_hf(model: BPEModel, folder: Path, texts: list[str]) -> None:
    path = save_tokenizer(model, folder / "tokenizer.json", format="hf")[0]
    reference = tokenizers.Tokenizer.from_file(str(path))
    ours = encoder(model)
    for text in texts:
        ids = ours.encode(text)
        assert reference.encode(text, add_special_tokens=False).ids == ids, text
        assert reference.decode(ids, skip_special_tokens=False) == ours.decode(ids)


def check_tiktoken(model: BPEModel, folder: Path, texts: list[str]) -> None:
    path = save_tokenizer(model, folder / "ranks.tiktoken", format="tiktoken")[0]
    ranks = tiktoken_load.load_tiktoken_bpe(str(path))
    specials = {s: encoder(model).special_token_ids[s] for s in model.special_tokens}
    reference = tiktoken_encoding(ranks, specials, model.pattern)
    ours = encoder(model)
    for text in texts:
        ids = ours.encode(text)
        assert reference.encode(text, allowed_special="all") == ids, text
        assert reference.encode_ordinary(text) == ours.encode_ordinary(text), text
        assert reference.decode_bytes(ids) == ours.decode_bytes(ids)


def sample_texts(samples_dir: Path) -> list[str]:
    texts = list(TEXTS)
    for name in ("english", "japanese", "mixed"):
        path = samples_dir / f"{name}.txt"
        if path.is_file():
            texts.append(path.read_text(encoding="utf-8"))
    return texts


def test_hf_reads_our_small_tokenizer(tmp_path: Path, samples_dir: Path) -> None:
    check_hf(small_model(), tmp_path, sample_texts(samples_dir))


def test_hf_reads_our_custom_pattern(tmp_path: Path) -> None:
    check_hf(train_small(pattern=r"\p{L}+|\p{N}+|[^\p{L}\p{N}]+", vocab_size=330), tmp_path, TEXTS)


def test_tiktoken_reads_our_small_tokenizer(tmp_path: Path, samples_dir: Path) -> None:
    check_tiktoken(small_model(), tmp_path, sample_texts(samples_dir))


def test_hf_reads_our_gpt2(tmp_path: Path, samples_dir: Path) -> None:
    check_hf(gpt2_model(), tmp_path, sample_texts(samples_dir))


def test_tiktoken_reads_our_gpt2(tmp_path: Path, samples_dir: Path) -> None:
    model = gpt2_model()
    check_tiktoken(model, tmp_path, sample_texts(samples_dir))
    ranks = tiktoken_load.load_tiktoken_bpe(str(tmp_path / "ranks.tiktoken"))
    enc = tiktoken_encoding(ranks, {SPECIAL: 50256})
    assert enc.encode("Hello world") == [15496, 995]


def test_rank_file_from_tiktoken_ranks_loads_with_the_same_merges(tmp_path: Path) -> None:
    """A rank file written outside bpe-tui (here from GPT-2's vocab, tiktoken's layout) rebuilds GPT-2's merges."""
    import base64

    model = gpt2_model()
    ordered = [(rank, token) for rank, token in sorted(model.vocab.items()) if rank != 50256]
    lines = [f"{base64.b64encode(token).decode()} {rank}" for rank, token in ordered]
    path = tmp_path / "gpt2.tiktoken"
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    loaded = load_tokenizer(path)
    assert loaded.merges == model.merges


def test_we_read_what_hf_writes(tmp_path: Path) -> None:
    """A tokenizer.json written by the library itself (``[a, b]`` merges, plain ByteLevel) loads exactly."""
    from tokenizers import decoders, models, pre_tokenizers

    bpe = models.BPE.from_file(str(GPT2_VOCAB), str(GPT2_MERGES))
    reference = tokenizers.Tokenizer(bpe)
    reference.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    reference.decoder = decoders.ByteLevel()
    reference.add_special_tokens([SPECIAL])
    path = tmp_path / "tokenizer.json"
    reference.save(str(path))
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data["model"]["merges"][0], list)
    loaded = load_tokenizer(path)
    assert loaded.pattern == GPT2_PATTERN and loaded.special_tokens == [SPECIAL]
    assert fingerprint(loaded) == fingerprint(gpt2_model())
    ours = encoder(loaded)
    for text in TEXTS:
        assert ours.encode(text) == reference.encode(text, add_special_tokens=False).ids, text


def test_we_read_what_hf_trains(tmp_path: Path) -> None:
    """A byte-level BPE trained by ``tokenizers`` (its own ids and merge order) encodes as it does."""
    from tokenizers import decoders, models, pre_tokenizers, trainers

    from tests.core.formats.format_cases import TRAINING_TEXT

    reference = tokenizers.Tokenizer(models.BPE())
    reference.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    reference.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=[SPECIAL],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    reference.train_from_iterator([TRAINING_TEXT], trainer=trainer)
    path = tmp_path / "trained.json"
    reference.save(str(path))
    ours = encoder(load_tokenizer(path))
    for text in TEXTS:
        assert ours.encode(text) == reference.encode(text, add_special_tokens=False).ids, text


@pytest.mark.parametrize("specials", [("<|終|>",), ("<|é|>", "<|Ġ|>")], ids=["kanji", "in the byte alphabet"])
def test_hf_reads_special_tokens_that_are_not_ascii(tmp_path: Path, specials: tuple[str, ...]) -> None:
    """Spelled in GPT-2's byte alphabet in model.vocab (``<|Ã©|>``), tokenizers gave them new ids (268 for 257)."""
    model = train_small(special_tokens=specials)
    path = save_tokenizer(model, tmp_path / "tokenizer.json", format="hf")[0]
    ours = encoder(model)
    for text in [f"hello{specials[0]} world {specials[-1]}x", *TEXTS]:
        assert hf_ids(path, text) == ours.encode(text), text
    assert load_tokenizer(path).vocab == model.vocab


def test_we_read_special_tokens_hf_trains_in_the_byte_alphabet(tmp_path: Path) -> None:
    """tokenizers' trainer puts ``<|é|>`` in model.vocab as its text; read as GPT-2 spelling it was the bytes
    ``<|\\xe9|>``, and the file was refused ('has id 0, which the vocab gives to ...')."""
    from tokenizers import models, pre_tokenizers, trainers

    from tests.core.formats.format_cases import TRAINING_TEXT

    reference = tokenizers.Tokenizer(models.BPE())
    reference.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=["<|é|>", "<|終|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    reference.train_from_iterator([TRAINING_TEXT], trainer=trainer)
    path = tmp_path / "trained.json"
    reference.save(str(path))
    ours = encoder(load_tokenizer(path))
    for text in ["a<|é|>b <|終|> c", *TEXTS]:
        assert ours.encode(text) == reference.encode(text, add_special_tokens=False).ids, text
