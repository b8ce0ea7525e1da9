"""The bytes lens: each token's bytes and bare-byte marks against tiktoken's GPT-2; per-script counts by hand."""

from __future__ import annotations

import pytest

from core.analysis.lenses.bytes_view import DEFAULT_SENTENCE, byte_tokens
from core.errors import SettingsError
from tests.core.encode.tokenizer_cases import gpt2_tokenizer, tiktoken_gpt2, tokenizer_from_merges


def strictly_text(token: bytes) -> bool:
    try:
        token.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize("text", [DEFAULT_SENTENCE, "東京タワーは333メートル。", "café 日本"])
def test_tokens_and_bare_marks_match_tiktoken(text: str) -> None:
    reference = tiktoken_gpt2()
    ids = reference.encode_ordinary(text)
    tokens = reference.decode_tokens_bytes(ids)
    rows = byte_tokens(gpt2_tokenizer(), text).to_json()["tokens"]
    assert [row["id"] for row in rows] == ids
    assert [bytes.fromhex(row["bytes"]) for row in rows] == tokens
    # A token is a whole run of characters exactly when its bytes decode on their own.
    assert [row["bare"] for row in rows] == [not strictly_text(token) for token in tokens]


def test_default_sentence_has_bare_tokens_under_gpt2() -> None:
    result = byte_tokens(gpt2_tokenizer())
    assert result.bare_tokens > 0
    assert result.to_json()["count"] > len(DEFAULT_SENTENCE) // 2


def test_per_script_counts_by_hand() -> None:
    # "ab の日" with "の" merged whole and "日" bare: a, b Latin; space other; の kana; 日 kanji in 3 tokens.
    tok = tokenizer_from_merges([(b"a", b"b"), (b"\xe3\x81", b"\xae"), (b"\xe3", b"\x81")])
    result = byte_tokens(tok, "ab の日")
    scripts = {name: cost.to_json() for name, cost in result.scripts.items()}
    assert scripts == {
        "latin": {"chars": 2, "bytes": 2, "tokens": 1},
        "kana": {"chars": 1, "bytes": 3, "tokens": 1},
        "kanji": {"chars": 1, "bytes": 3, "tokens": 3},
        "other": {"chars": 1, "bytes": 1, "tokens": 1},
    }
    assert result.bare_tokens == 3
    data = result.to_json()
    assert (data["chars"], data["bytes"], data["count"]) == (5, 9, 6)


def test_empty_text_is_refused() -> None:
    with pytest.raises(SettingsError, match="non-empty"):
        byte_tokens(gpt2_tokenizer(), "")


def test_a_lone_surrogate_is_read_as_u_fffd_as_encode_reads_it() -> None:
    # Text pasted into the pane can hold one; the lens raised UnicodeEncodeError from its worker.
    tokenizer = gpt2_tokenizer()
    result = byte_tokens(tokenizer, "a\ud800b")
    assert [span.id for span in result.spans] == tokenizer.encode("a\ud800b") == tiktoken_gpt2().encode("a\ufffdb")
    assert result.to_json()["bytes"] == 5 and result.to_json()["chars"] == 3
