"""The vocab lens: bytes + merges + specials add up to the vocabulary, and unassigned ids come only from cached files."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest

from core.analysis.lenses.vocab import LADDER, ShippedVocab, cached_ranks, tiktoken_cache_dir, vocab_arithmetic
from tests.core.analysis.lenses.lens_cases import english_model, gpt2_model


def test_gpt2_is_256_plus_50000_plus_1_and_matches_its_rung() -> None:
    result = vocab_arithmetic(gpt2_model(), rank_sets={})
    assert (result.bytes, result.merges, result.specials, result.other, result.total) == (256, 50_000, 1, 0, 50_257)
    assert result.ladder[0].name == "GPT-2" and result.ladder[0].vocab == result.total
    assert result.to_json()["ladder"][0] == {"name": "GPT-2", "vocab": 50_257}


def test_a_trained_tokenizer_adds_up() -> None:
    model = english_model()
    result = vocab_arithmetic(model, rank_sets={})
    assert result.bytes + result.merges + result.specials == result.total == len(model.vocab)
    assert result.specials == 1 and result.merges == len(model.merges)


def test_cl100k_and_o200k_unassigned_ids_from_their_ranks() -> None:
    # cl100k's file ranks 100,256 strings (0..100255), o200k's 199,998 (0..199997).
    result = vocab_arithmetic(gpt2_model(), rank_sets={"cl100k_base": set(range(100_256)),
                                                        "o200k_base": set(range(199_998))})
    rungs = {rung.name: rung for rung in result.ladder}
    assert rungs["cl100k_base"].unassigned == (100_256, *range(100_261, 100_276))
    assert rungs["o200k_base"].unassigned == (199_998, *range(200_000, 200_018))
    assert rungs["GPT-2"].unassigned is None and "unassigned" not in rungs["Gemma"].to_json()


def rank_file(folder: Path, url: str, lines: list[tuple[bytes, int]]) -> bytes:
    data = b"".join(base64.b64encode(token) + b" " + str(rank).encode() + b"\n" for token, rank in lines)
    (folder / hashlib.sha1(url.encode()).hexdigest()).write_bytes(data)
    return data


def test_a_cached_rank_file_is_read_only_when_its_hash_matches(tmp_path: Path) -> None:
    url = "https://example.invalid/tiny.tiktoken"
    data = rank_file(tmp_path, url, [(b"a", 0), (b"b", 1), (b"ab", 3)])
    good = ShippedVocab("tiny", 6, (5,), url, hashlib.sha256(data).hexdigest())
    assert cached_ranks(good, tmp_path) == {0, 1, 3}
    bad = ShippedVocab("tiny", 6, (5,), url, "0" * 64)
    assert cached_ranks(bad, tmp_path) is None
    assert cached_ranks(good, tmp_path / "elsewhere") is None


def test_the_cache_folder_follows_tiktokens_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    assert tiktoken_cache_dir() == tmp_path
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    assert tiktoken_cache_dir() is None
    # An empty cache folder: the ladder is listed, without unassigned ids.
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    result = vocab_arithmetic(gpt2_model(), tiktoken_cache_dir())
    assert [rung.vocab for rung in result.ladder] == [shipped.vocab for shipped in LADDER]
    assert all(rung.unassigned is None for rung in result.ladder)


def test_the_count_curve_samples_recorded_counts_and_is_empty_without_them() -> None:
    model = english_model()
    curve = vocab_arithmetic(model, rank_sets={}).count_curve
    assert curve[0] == (0, model.merge_counts[0]) and curve[-1] == (len(model.merges) - 1, model.merge_counts[-1])
    assert all(count == model.merge_counts[rank] for rank, count in curve)
    assert vocab_arithmetic(gpt2_model(), rank_sets={}).count_curve == ()
