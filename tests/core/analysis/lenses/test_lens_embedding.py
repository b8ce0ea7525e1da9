"""The embedding lens: V·d against 12·L·d², checked by hand and against GPT-2's four published sizes."""

from __future__ import annotations

import pytest

from core.analysis.lenses.embedding import GPT2_SIZES, GPT2_VOCAB, embedding_share, embedding_shares
from core.errors import SettingsError


def test_gpt2_shares_are_the_published_percentages() -> None:
    shares = [round(100 * embedding_share(GPT2_VOCAB, d, layers).share, 1) for _, d, layers in GPT2_SIZES]
    assert shares == [31.2, 14.6, 8.3, 5.2]


def test_sizes_and_vocabulary_are_gpt2s() -> None:
    assert GPT2_VOCAB == 256 + 50_000 + 1
    assert [(d, layers) for _, d, layers in GPT2_SIZES] == [(768, 12), (1024, 24), (1280, 36), (1600, 48)]


def test_fields_by_hand() -> None:
    # V=1000, d=10, L=2: embedding 10,000; blocks 12·2·100 = 2,400; share 10,000 / 12,400.
    assert embedding_share(1000, 10, 2).to_json() == {
        "vocab": 1000,
        "d": 10,
        "layers": 2,
        "embedding": 10_000,
        "blocks": 2_400,
        "share": 10_000 / 12_400,
    }


def test_no_layers_means_all_embedding() -> None:
    assert embedding_share(5, 3, 0).share == 1.0


@pytest.mark.parametrize(("vocab", "d", "layers"), [(0, 768, 12), (50257, 0, 12), (50257, 768, -1), (50257, 7.5, 12)])
def test_bad_sizes_are_named(vocab, d, layers) -> None:
    with pytest.raises(SettingsError, match="must be a whole number"):
        embedding_share(vocab, d, layers)


def test_shares_beside_gpt2_sizes_use_the_chosen_vocabulary() -> None:
    data = embedding_shares(GPT2_VOCAB, 768, 12).to_json()
    assert (data["vocab"], data["d"], data["layers"], data["embedding"]) == (GPT2_VOCAB, 768, 12, 50257 * 768)
    assert [row["name"] for row in data["gpt2"]] == ["small", "medium", "large", "xl"]
    assert [round(100 * row["share"], 1) for row in data["gpt2"]] == [31.2, 14.6, 8.3, 5.2]
    # A vocabulary twice GPT-2's: each share grows, e.g. small 2V·768 / (2V·768 + 12·12·768²).
    doubled = embedding_shares(2 * GPT2_VOCAB, 768, 12).to_json()["gpt2"][0]
    assert doubled["share"] == (2 * 50257 * 768) / (2 * 50257 * 768 + 12 * 12 * 768 * 768)
