"""Merge trees, parent pairs and ranks on small hand-made models, plus the vocabulary summary facts."""

from __future__ import annotations

from core.analysis.merge_tree import MergeIndex, MergeNode
from core.model import BPEModel
from core.analysis.vocab_stats import VocabSplit, longest_tokens, vocab_split

BYTES = {i: bytes([i]) for i in range(256)}


def make_model(merges: list[tuple[bytes, bytes]], counts: list[int | None] | None = None, specials=()) -> BPEModel:
    vocab = dict(BYTES)
    for left, right in merges:
        vocab[len(vocab)] = left + right
    for special in specials:
        vocab[len(vocab)] = special.encode()
    return BPEModel(vocab=vocab, merges=merges, merge_counts=counts, special_tokens=list(specials))


# "low low low lower lower newest": the classic toy corpus's first merges.
TOY = make_model(
    [(b"l", b"o"), (b"lo", b"w"), (b" ", b"low"), (b"e", b"r"), (b" low", b"er")],
    counts=[5, 5, 4, 3, 2],
    specials=["<|endoftext|>"],
)


def test_rank_parents_and_count() -> None:
    index = MergeIndex(TOY)
    assert index.rank_of(b" lower") == 4
    assert index.parents(b" lower") == (b" low", b"er")
    assert index.count_of(b" lower") == 2
    assert index.id_of(b" lower") == 260


def test_bytes_and_specials_have_no_merge() -> None:
    index = MergeIndex(TOY)
    for token in (b"l", b"<|endoftext|>"):
        assert index.rank_of(token) is None
        assert index.parents(token) is None
        assert index.count_of(token) is None
    assert index.id_of(b"<|endoftext|>") == 261


def test_tree_goes_down_to_bytes() -> None:
    tree = MergeIndex(TOY).tree(b" lower")
    assert tree.rank == 4 and tree.count == 2 and tree.id == 260
    assert [child.token for child in tree.children] == [b" low", b"er"]
    assert tree.children[0].children[1].token == b"low"
    assert tree.leaves() == [b" ", b"l", b"o", b"w", b"e", b"r"]
    assert tree.children[1].children[0] == MergeNode(token=b"e", id=ord("e"), rank=None, count=None)


def test_tree_of_a_byte_is_a_leaf() -> None:
    node = MergeIndex(TOY).tree(b"x")
    assert node.is_leaf and node.leaves() == [b"x"] and node.id == ord("x")


def test_tree_of_unknown_counts_is_none() -> None:
    model = make_model([(b"a", b"b")])
    assert MergeIndex(model).tree(b"ab").count is None


def test_duplicate_merge_bytes_resolve_to_the_lower_rank() -> None:
    # Two merges spelling the same bytes: "abc" from ab+c first, then from a+bc.
    model = make_model([(b"a", b"b"), (b"b", b"c"), (b"ab", b"c"), (b"a", b"bc")])
    index = MergeIndex(model)
    assert index.rank_of(b"abc") == 2
    assert index.parents(b"abc") == (b"ab", b"c")
    assert index.id_of(b"abc") == 258


def test_vocab_split() -> None:
    assert vocab_split(TOY) == VocabSplit(byte_tokens=256, merges=5, specials=1, other=0)
    assert vocab_split(TOY).total == TOY.vocab_size


def test_longest_tokens_leave_out_specials_and_break_ties_by_id() -> None:
    assert longest_tokens(TOY, 3) == [(260, b" lower"), (258, b" low"), (257, b"low")]
    assert longest_tokens(TOY, 1, include_specials=True) == [(261, b"<|endoftext|>")]
