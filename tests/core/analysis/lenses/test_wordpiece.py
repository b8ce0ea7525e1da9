"""The wordpiece lens: scores checked by hand on a toy, ties to the greater pair in both, BPE's side is the pairs lens's."""

from __future__ import annotations

from fractions import Fraction

from core.analysis.lenses.pairs import corpus_words, pair_passes
from core.analysis.lenses.wordpiece import compare_scores
from tests.data_paths import SAMPLES

TOY = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


def test_toy_scores_by_hand() -> None:
    # Symbols: h 15, u 36, g 20, p 17, n 16, b 4, s 5. Pairs: hu 15, ug 20, pu 17, un 16, bu 4, gs 5.
    result = compare_scores(TOY, 2)
    first = result.bpe[0]
    assert (first.pair, first.pair_count, first.score) == ((b"u", b"g"), 20, Fraction(20))
    # WordPiece: each pair with "u" scores 1/36 (ug: 20/(36·20)); gs scores 5/(20·5) = 1/20 and wins.
    piece = result.wordpiece[0]
    assert (piece.pair, piece.pair_count, piece.left_count, piece.right_count) == ((b"g", b"s"), 5, 20, 5)
    assert piece.score == Fraction(1, 20)
    # After "gs": g 15, s 0, gs 5. Every pair with "u" still scores 1/36 (ug: 15/(36·15), hu 15/(15·36),
    # pu 17/(17·36), un 16/(36·16), bu 4/(4·36)), and so does "u"+"gs" (5/(36·5)): a six-way tie. The
    # greatest pair is ("u", "n") (b"u" = b"u", then b"n" > b"gs" > b"g").
    second = result.wordpiece[1]
    assert (second.pair, second.score) == ((b"u", b"n"), Fraction(1, 36))
    # BPE's second: "ug" took the u of hug and pug, leaving pu 12 (pun), un 16 (pun, bun), hu gone.
    assert result.bpe[1].pair == (b"u", b"n") and result.bpe[1].score == 16
    assert result.shared == 1  # "un", second in both
    assert result.to_json()["bpe"] == [["u", "g"], ["u", "n"]]
    assert result.to_json()["wordpiece"] == [["g", "s"], ["u", "n"]] and result.to_json()["shared"] == 1


def test_a_tie_goes_to_the_greater_pair_in_both() -> None:
    result = compare_scores({"ab": 1, "cd": 1}, 1)
    assert result.bpe[0].pair == result.wordpiece[0].pair == (b"c", b"d")
    assert result.shared == 1


def test_bpes_side_is_the_pairs_lenss_passes_on_the_bundled_corpus() -> None:
    counts = corpus_words((SAMPLES / "word_counts.txt").read_text(encoding="utf-8"), r"\S+")
    result = compare_scores(counts, 12)
    assert [m.pair for m in result.bpe] == [p.pair for p in pair_passes(counts, 12).passes]
    assert [m.pair_count for m in result.bpe] == [p.count for p in pair_passes(counts, 12).passes]
    assert result.shared == len({m.pair for m in result.bpe} & {m.pair for m in result.wordpiece})
    # Every WordPiece merge had the best score of its step: later merges cannot raise an earlier best.
    assert all(m.score == Fraction(m.pair_count, m.left_count * m.right_count) for m in result.wordpiece)
