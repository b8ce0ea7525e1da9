"""Reference encodings from tiktoken's cache: where the cache is, a fake cached file, hash and absence errors.

Nothing is downloaded. The fake cache holds a small rank file under the name tiktoken would give
cl100k_base's, with the published hash swapped for the fake file's; it must load and encode exactly as
tiktoken does with the same ranks, pattern and special tokens. The real files are used only if tiktoken
already cached them on this machine, and that test skips otherwise.
"""

from __future__ import annotations

import base64
import hashlib
import os
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
import tiktoken

from core.errors import TokenizerFileError
from core.encode.tokenizer import Tokenizer
from core.formats import load_tokenizer, tiktoken_cache
from core.formats.tiktoken_cache import (
    REFERENCE_ENCODINGS,
    cached_path,
    cached_reference_names,
    load_reference,
    tiktoken_cache_dir,
)
from core.pretokenize.patterns import GPT2_PATTERN

TEXTS = ["Hello world, it's 2026!", "  indented\n\tcode()  \n", "日本語のテキスト", "<|endoftext|>x<|fim_prefix|>"]


def test_cache_dir_is_found_as_tiktoken_finds_it() -> None:
    assert tiktoken_cache_dir({"TIKTOKEN_CACHE_DIR": "/a", "DATA_GYM_CACHE_DIR": "/b"}) == Path("/a")
    assert tiktoken_cache_dir({"DATA_GYM_CACHE_DIR": "/b"}) == Path("/b")
    assert tiktoken_cache_dir({}) == Path(tempfile.gettempdir()) / "data-gym-cache"
    assert tiktoken_cache_dir({"TIKTOKEN_CACHE_DIR": ""}) is None
    assert tiktoken_cache_dir({"TIKTOKEN_CACHE_DIR": "", "DATA_GYM_CACHE_DIR": "/b"}) is None


def small_ranks() -> dict[bytes, int]:
    """All bytes, then merges that make a few English and Japanese tokens (each token's halves come first)."""
    ranks = {bytes([b]): b for b in range(256)}
    for token in [b"he", b"ll", b"hell", b"hello", b" w", b"or", b" wor", b"ld", b" world", b"de", b"co",
                  "日".encode()[:2], "日".encode(), b"\n\t"]:
        ranks[token] = len(ranks)
    return ranks


def fake_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, str], dict[bytes, int]]:
    """A cache folder holding a small rank file named as tiktoken names cl100k_base's, with its hash declared."""
    ranks = small_ranks()
    data = "".join(f"{base64.b64encode(token).decode()} {rank}\n" for token, rank in ranks.items()).encode()
    url = REFERENCE_ENCODINGS["cl100k_base"].url
    (tmp_path / hashlib.sha1(url.encode()).hexdigest()).write_bytes(data)
    specials = {"<|endoftext|>": 300, "<|fim_prefix|>": 301}
    fake = replace(REFERENCE_ENCODINGS["cl100k_base"], sha256=hashlib.sha256(data).hexdigest(), special_tokens=specials)
    monkeypatch.setitem(tiktoken_cache.REFERENCE_ENCODINGS, "cl100k_base", fake)
    return {"TIKTOKEN_CACHE_DIR": str(tmp_path)}, ranks


def test_a_cached_file_is_offered_and_encodes_as_tiktoken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    environ, ranks = fake_cache(tmp_path, monkeypatch)
    assert cached_reference_names(environ) == ["cl100k_base"]
    model = load_reference("cl100k_base", environ)
    assert model.name == "cl100k_base" and model.pattern == REFERENCE_ENCODINGS["cl100k_base"].pattern
    reference = REFERENCE_ENCODINGS["cl100k_base"]
    encoding = tiktoken.Encoding(
        name="fake-cl100k", pat_str=reference.pattern, mergeable_ranks=ranks, special_tokens=reference.special_tokens
    )
    ours = Tokenizer.from_model(model)
    for text in TEXTS:
        assert ours.encode(text) == encoding.encode(text, allowed_special="all"), text


def test_the_published_rank_file_given_by_path_gets_its_pattern_and_specials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``bpe-tui encode cl100k_base.tiktoken`` loaded it with GPT-2's pattern and no special tokens, and
    encoded other ids than tiktoken's cl100k_base without a word."""
    environ, ranks = fake_cache(tmp_path, monkeypatch)
    copy = tmp_path / "copy" / "cl100k_base.tiktoken"
    copy.parent.mkdir()
    copy.write_bytes(cached_path("cl100k_base", environ).read_bytes())
    model = load_tokenizer(copy)
    reference = REFERENCE_ENCODINGS["cl100k_base"]
    assert (model.name, model.pattern, model.special_tokens) == ("cl100k_base", reference.pattern, list(reference.special_tokens))
    assert model == load_reference("cl100k_base", environ)
    copy.write_bytes(copy.read_bytes() + b"\n")  # any other rank file: GPT-2's pattern, as before
    assert load_tokenizer(copy).pattern == GPT2_PATTERN and load_tokenizer(copy).special_tokens == []


def test_nothing_offered_without_the_file_or_with_caching_off(tmp_path: Path) -> None:
    assert cached_reference_names({"TIKTOKEN_CACHE_DIR": str(tmp_path)}) == []
    assert cached_reference_names({"TIKTOKEN_CACHE_DIR": ""}) == []
    with pytest.raises(TokenizerFileError, match="o200k_base is not in tiktoken's cache .*never downloads it"):
        load_reference("o200k_base", {"TIKTOKEN_CACHE_DIR": str(tmp_path)})


def test_a_cached_file_with_another_hash_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    environ, _ = fake_cache(tmp_path, monkeypatch)
    path = cached_path("cl100k_base", environ)
    assert path is not None
    path.write_bytes(path.read_bytes() + b"aGk= 999\n")
    with pytest.raises(TokenizerFileError, match="does not have the published SHA-256; delete it") as caught:
        load_reference("cl100k_base", environ)
    assert "\n" not in str(caught.value)


def test_an_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(TokenizerFileError, match="no reference tokenizer named 'p50k': choose one of cl100k_base, o200k_base"):
        load_reference("p50k")


@pytest.mark.parametrize("name", list(REFERENCE_ENCODINGS))
def test_the_real_cached_encoding_matches_tiktoken(name: str) -> None:
    path = cached_path(name)
    if path is None:
        pytest.skip(f"{name} is not in tiktoken's cache ({tiktoken_cache_dir()}); the tests never download it")
    from tiktoken.load import load_tiktoken_bpe

    reference = REFERENCE_ENCODINGS[name]
    encoding = tiktoken.Encoding(
        name=name, pat_str=reference.pattern, mergeable_ranks=load_tiktoken_bpe(os.fspath(path)),
        special_tokens=reference.special_tokens,
    )
    ours = Tokenizer.from_model(load_reference(name))
    for text in TEXTS:
        assert ours.encode(text) == encoding.encode(text, allowed_special="all"), text
