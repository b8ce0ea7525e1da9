"""The longest-match lens: replay is encode, greedy takes the longest entry each time, and both stay valid."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.lenses.longest_match import greedy_tokens, longest_match
from core.model import BPEModel
from tests.core.analysis.lenses.lens_cases import EOT, english_model, gpt2_model
from tests.core.encode.tokenizer_cases import tiktoken_gpt2


def test_toy_by_hand() -> None:
    # Merges b+c (rank 0) then a+b: BPE joins "bc" first and "ab" never forms; greedy grabs "ab" first.
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"bc", 257: b"ab"}
    result = longest_match(BPEModel(vocab, [(b"b", b"c"), (b"a", b"b")]), "abc abx")
    assert result.replay_tokens == (b"a", b"bc", b" ", b"ab", b"x")
    assert result.longest_tokens == (b"ab", b"c", b" ", b"ab", b"x")
    assert (result.replay, result.longest_match) == ((97, 256, 32, 257, 120), (257, 99, 32, 257, 120))
    assert not result.same and result.all_valid
    assert [d.fragment for d in result.differences] == ["abc"]
    assert result.to_json()["same"] is False and result.to_json()["replay"] == [97, 256, 32, 257, 120]


def test_a_special_token_is_one_id_in_both() -> None:
    model = english_model()
    result = longest_match(model, f"a{EOT}b")
    assert result.replay == result.longest_match == (97, 256, 98)  # the trainer gives <|endoftext|> id 256
    assert model.vocab[256] == EOT.encode()


def test_gpt2_strawberry_differs_silently() -> None:
    result = longest_match(gpt2_model(), "strawberry")
    assert list(result.replay) == tiktoken_gpt2().encode("strawberry")
    assert not result.same and result.all_valid
    assert tiktoken_gpt2().decode(list(result.longest_match)) == "strawberry"


TEXTS = st.lists(st.sampled_from(["straw", "berry", "pine", "apple", "s", " ", "un", "deni", "ably", "!", "の", "x"]),
                 min_size=1, max_size=8).map("".join)


@settings(max_examples=60, deadline=None)
@given(text=TEXTS)
def test_gpt2_replay_is_tiktoken_and_greedy_is_always_the_longest_prefix(text: str) -> None:
    model = gpt2_model()
    result = longest_match(model, text)
    assert list(result.replay) == tiktoken_gpt2().encode(text)
    assert result.all_valid
    assert result.same == (result.replay == result.longest_match)
    # Independently of the lens: no longer vocabulary entry starts where each greedy token does.
    tokens = set(model.vocab.values()) - {EOT.encode()}
    data = text.encode("utf-8")
    position = 0
    for token in result.longest_tokens:
        assert data.startswith(token, position)
        assert not any(data.startswith(data[position:end], position) and data[position:end] in tokens
                       for end in range(position + len(token) + 1, len(data) + 1)
                       if _same_fragment(model, text, position, end))
        position += len(token)


def _same_fragment(model: BPEModel, text: str, start: int, end: int) -> bool:
    """Whether bytes ``start``..``end`` of ``text`` lie in one pre-token (greedy never looks past one)."""
    import regex

    offset = 0
    for piece in regex.findall(model.pattern, text):
        size = len(piece.encode("utf-8"))
        if offset <= start and end <= offset + size:
            return True
        offset += size
    return False


def test_greedy_on_a_fragment() -> None:
    assert greedy_tokens(b"aaaa", {b"a", b"aa", b"aaa"}, 3) == [b"aaa", b"a"]
