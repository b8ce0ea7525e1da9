"""The fingerprint: the same tokenizer always hashes the same, and any change to what encodes changes it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from tests.core.formats.format_cases import gpt2_model, small_model

from core.fingerprint import canonical_bytes, fingerprint, short_fingerprint
from core.formats import load_tokenizer, save_tokenizer
from core.model import BPEModel, TrainingInfo


def test_fingerprint_ignores_dict_order_counts_training_and_name() -> None:
    model = small_model()
    shuffled = dataclasses.replace(
        model,
        vocab=dict(reversed(list(model.vocab.items()))),
        special_tokens=list(reversed(model.special_tokens)),
        merge_counts=None,
        training=TrainingInfo(vocab_size=1),
        name="renamed",
    )
    assert fingerprint(shuffled) == fingerprint(model)
    assert canonical_bytes(shuffled) == canonical_bytes(model)


@pytest.mark.parametrize(
    "change",
    [
        "token_bytes",
        "token_id",
        "merge_order",
        "drop_merge",
        "special_token",
        "pattern",
    ],
)
def test_any_change_to_what_encodes_changes_fingerprint(change: str) -> None:
    model = small_model()
    vocab = dict(model.vocab)
    merges = list(model.merges)
    specials = list(model.special_tokens)
    pattern = model.pattern
    last = max(vocab)
    if change == "token_bytes":
        vocab[last] = vocab[last] + b"!"
    elif change == "token_id":
        vocab[last + 1] = vocab.pop(last)
    elif change == "merge_order":
        merges[3], merges[4] = merges[4], merges[3]
    elif change == "drop_merge":
        merges.pop()
    elif change == "special_token":
        vocab[last + 1] = b"<pad>"
        specials.append("<pad>")
    elif change == "pattern":
        pattern = r"\S+|\s+"
    changed = BPEModel(vocab, merges, specials, pattern=pattern)
    assert fingerprint(changed) != fingerprint(model)


def test_fingerprint_is_hex_sha256_and_short_form_is_its_prefix() -> None:
    value = fingerprint(small_model())
    assert len(value) == 64 and int(value, 16) >= 0
    assert short_fingerprint(small_model()) == value[:12]


@pytest.mark.parametrize("fmt", ["bpe-tui", "gpt2", "hf"])
def test_fingerprint_survives_every_lossless_format(tmp_path: Path, fmt: str) -> None:
    model = small_model()
    written = save_tokenizer(model, tmp_path / ("out" if fmt == "gpt2" else "out.json"), format=fmt)
    assert fingerprint(load_tokenizer(written[0])) == fingerprint(model)


def test_gpt2_fingerprint_is_stable() -> None:
    # Pinned: changing the canonical serialisation would silently break every stored fingerprint.
    assert fingerprint(gpt2_model()) == "9d62ff7ed1a3697b024b7c16a39e676c26f15fa59acb9b87170c4dff10ea269f"
