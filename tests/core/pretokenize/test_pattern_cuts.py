"""Each split pattern's safe cuts: every cut the rule allows leaves the pre-tokens exactly as they were.

The pre-tokens are computed here independently (``regex.findall`` on the documents that
``core.reference.split_on_special_tokens`` gives), for the pieces on both sides of a cut and for the whole text.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.core.pretokenize.cut_cases import (
    BOUNDARY_TEXT,
    LETTERS_DIGITS_OTHER,
    LOOKING_FAR_AHEAD,
    PATTERN_IDS,
    PATTERNS,
    PIECES,
    RUNS,
    SPECIAL,
    WORDS_WITH_SPACE,
)
from core.reference import count_pretokens as pretoken_counts
from core.reference import split_on_special_tokens

import core.pretokenize.cuts
from core.pretokenize.cuts import (
    AFTER_WHITESPACE,
    BEFORE_WHITESPACE,
    PATTERN_RULES,
    PatternRule,
    chunk_boundaries,
    chunk_ranges,
    first_safe_cut,
    pattern_rule,
)
from core.pretokenize.patterns import GPT2_PATTERN
from core.train.reading import count_chunk

SAFE_RULES: dict[str, set[PatternRule]] = {
    GPT2_PATTERN: {BEFORE_WHITESPACE},
    WORDS_WITH_SPACE: {AFTER_WHITESPACE},
    RUNS: {BEFORE_WHITESPACE, AFTER_WHITESPACE},
    LETTERS_DIGITS_OTHER: set(),
    LOOKING_FAR_AHEAD: set(),
}
"""Which whitespace rules really are safe for each test pattern (the boundary text shows the others fail)."""


def pretokens(text: str, specials: list[str], pattern: str) -> list[str]:
    # Empty matches hold no bytes: they change neither pair counts nor ids (see core.pretokenize.cuts).
    return [piece for document in split_on_special_tokens(text, specials)[::2] for piece in regex.findall(pattern, document)
            if piece]


def allowed_cuts(data: bytes, specials: list[str], rule: PatternRule | None) -> list[int]:
    encoded = [token.encode("utf-8") for token in specials]
    return [p for p in range(1, len(data)) if first_safe_cut(data, p, p + 1, encoded, rule) == p]


def unsafe_cuts(text: str, specials: list[str], pattern: str, rule: PatternRule | None) -> list[int]:
    """The cuts ``rule`` allows in ``text`` that change its pre-tokens under ``pattern``."""
    data = text.encode("utf-8")
    whole = pretokens(text, specials, pattern)
    bad = []
    for p in allowed_cuts(data, specials, rule):
        left, right = data[:p].decode("utf-8"), data[p:].decode("utf-8")  # a cut never splits a character
        if pretokens(left, specials, pattern) + pretokens(right, specials, pattern) != whole:
            bad.append(p)
    return bad


def test_the_rules_are_looked_up_by_pattern() -> None:
    assert pattern_rule(GPT2_PATTERN) == BEFORE_WHITESPACE
    assert pattern_rule(WORDS_WITH_SPACE) == AFTER_WHITESPACE
    assert pattern_rule(LETTERS_DIGITS_OTHER) is None
    assert pattern_rule(LOOKING_FAR_AHEAD) is None
    assert set(PATTERN_RULES) <= set(SAFE_RULES), "a pattern with a rule has no test here"
    for pattern, rule in PATTERN_RULES.items():
        assert rule in SAFE_RULES[pattern]


@pytest.mark.parametrize("pattern", PATTERNS, ids=PATTERN_IDS)
@pytest.mark.parametrize("rule", [BEFORE_WHITESPACE, AFTER_WHITESPACE])
def test_a_whitespace_rule_is_safe_only_for_its_patterns(pattern: str, rule: PatternRule) -> None:
    # The same check that passes a pattern's own rule catches the others: GPT-2's rule splits "word " in
    # two for WORDS_WITH_SPACE, whose rule takes the last space of a run from GPT-2's next word, and
    # neither is safe where "! " or " !" is one pre-token, or where a word looks ahead for a "!".
    text = BOUNDARY_TEXT * 2
    assert allowed_cuts(text.encode(), [SPECIAL], rule)
    bad = unsafe_cuts(text, [SPECIAL], pattern, rule)
    assert (not bad) == (rule in SAFE_RULES[pattern]), bad[:5]


@pytest.mark.parametrize("pattern", PATTERNS, ids=PATTERN_IDS)
def test_special_token_edges_are_safe_for_any_pattern(pattern: str) -> None:
    text = BOUNDARY_TEXT * 2
    cuts = allowed_cuts(text.encode(), [SPECIAL, "\n\n"], None)
    assert len(cuts) > 10
    assert unsafe_cuts(text, [SPECIAL, "\n\n"], pattern, None) == []


@settings(max_examples=150, deadline=None)
@given(
    pattern=st.sampled_from(PATTERNS),
    pieces=st.lists(st.sampled_from(PIECES), max_size=30),
    specials=st.sampled_from([[], [SPECIAL], [SPECIAL, "\n\n"], ["<|", "|>", "\t"]]),
)
def test_every_cut_a_pattern_allows_is_safe(pattern: str, pieces: list[str], specials: list[str]) -> None:
    assert unsafe_cuts("".join(pieces), specials, pattern, pattern_rule(pattern)) == []


# -- whole files, cut by the searches that training and export use ------------------------------------------


@pytest.fixture(params=[(1, 1), (3, 3), (4096, 1 << 20)], ids=["1-byte-reads", "3-byte-reads", "real-reads"])
def search_bytes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    first, most = request.param
    monkeypatch.setattr(core.pretokenize.cuts, "_FIRST_SEARCH_BYTES", first)
    monkeypatch.setattr(core.pretokenize.cuts, "_MAX_SEARCH_BYTES", most)


def counted_by_chunks(path: Path, bounds: list[int], specials: list[str], pattern: str) -> Counter[str]:
    total: Counter[str] = Counter()
    for start, end in zip(bounds, bounds[1:]):
        total.update(count_chunk((str(path), start, end, specials, pattern, "strict"))[1])
    return total


@pytest.mark.parametrize("specials", [[], [SPECIAL]], ids=["no-specials", "specials"])
@pytest.mark.parametrize("pattern", PATTERNS, ids=PATTERN_IDS)
def test_file_chunks_count_what_the_whole_text_does(
    tmp_path: Path, search_bytes: None, pattern: str, specials: list[str]
) -> None:
    text = BOUNDARY_TEXT * 6
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8", newline="")
    whole = Counter(pretokens(text, specials, pattern))
    assert whole == pretoken_counts(text, specials, pattern)  # (none of these patterns matches "")
    size = path.stat().st_size
    bounds = chunk_boundaries(path, specials, pattern, size // 8)
    ranges = list(chunk_ranges(path, specials, pattern, 8))
    assert [start for start, _ in ranges] + [size] == [0, *(end for _, end in ranges)]
    for cuts in (bounds, [0, *(end for _, end in ranges)]):
        assert cuts[0] == 0 and cuts[-1] == size and cuts == sorted(set(cuts))
        counts = counted_by_chunks(path, cuts, specials, pattern)
        assert counts == whole
        if pattern_rule(pattern) is not None or specials:
            assert len(cuts) > 40  # really cut: every few lines at least
        else:
            assert cuts == [0, size]  # nothing is safe to cut at: one chunk


def test_no_rule_and_no_special_token_reads_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Nothing in the file could be a cut, so the search does not read it to find that out.
    path = tmp_path / "corpus.txt"
    path.write_text(BOUNDARY_TEXT * 100, encoding="utf-8")
    reads = []
    real_open = open

    def counting_open(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        real_read = handle.read
        handle.read = lambda size=-1: reads.append(size) or real_read(size)  # type: ignore[method-assign]
        return handle

    monkeypatch.setattr("builtins.open", counting_open)
    assert chunk_boundaries(path, [], LOOKING_FAR_AHEAD, 50) == [0, path.stat().st_size]
    assert list(chunk_ranges(path, [], LOOKING_FAR_AHEAD, 10)) == [(0, path.stat().st_size)]
    assert reads == []
