"""core.analysis.markers: forgotten ``<|name|>`` markers, counted the same wherever the file is cut into blocks."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import regex

from core.analysis.corpus_stats import corpus_stats
from core.analysis.markers import MARKER, MAX_KINDS, MARKER_NAME_MAX, MarkerCounter, count_markers

EOT = "<|endoftext|>"


def counted(text: str | bytes, specials: tuple[str, ...] = (), block: int | None = None) -> dict[str, int]:
    data = text.encode("utf-8") if isinstance(text, str) else text
    counter = MarkerCounter(specials)
    step = block or max(len(data), 1)
    for start in range(0, len(data), step):
        counter.feed(data[start : start + step])
    counter.feed(b"", final=True)
    return dict(counter.result().counts)


def test_markers_not_given_as_special_tokens_are_counted() -> None:
    text = f"a{EOT}b<|im_start|>user<|im_end|>c<|im_start|>"
    assert counted(text) == {EOT: 1, "<|im_start|>": 2, "<|im_end|>": 1}
    assert counted(text, (EOT,)) == {"<|im_start|>": 2, "<|im_end|>": 1}
    assert counted(text, (EOT, "<|im_start|>", "<|im_end|>")) == {}


def test_what_is_not_a_marker() -> None:
    too_long = "<|" + "x" * (MARKER_NAME_MAX + 1) + "|>"
    assert counted("<||> <| a |> <|a b|> a || b |> <|日本|> <|-x|> " + too_long) == {}
    assert counted("<|" + "x" * MARKER_NAME_MAX + "|> <|a.b:c-d|> <|_0|>") == {
        "<|" + "x" * MARKER_NAME_MAX + "|>": 1,
        "<|a.b:c-d|>": 1,
        "<|_0|>": 1,
    }


def test_deepseek_markers_between_full_width_bars_are_counted() -> None:
    # DeepSeek's chat template writes its markers between full-width bars (U+FF5C), "▁" for a space: a chat
    # log in that form, trained without them as special tokens, got no warning.
    bos, user = "<｜begin▁of▁sentence｜>", "<｜User｜>"
    text = f"{bos}{user}こんにちは<｜Assistant｜>やあ<｜end▁of▁sentence｜>{bos}{user}"
    assert counted(text) == {bos: 2, user: 2, "<｜Assistant｜>": 1, "<｜end▁of▁sentence｜>": 1}
    assert counted(text, (bos, user)) == {"<｜Assistant｜>": 1, "<｜end▁of▁sentence｜>": 1}
    for block in (1, 2, 3, 5):
        assert counted(text, (user,), block) == counted(text, (user,))
    longest = "<｜" + "▁" * MARKER_NAME_MAX + "｜>"
    assert counted("<｜" + "x" + "▁" * (MARKER_NAME_MAX - 1) + "｜>", (), 7) == {"<｜x" + "▁" * (MARKER_NAME_MAX - 1) + "｜>": 1}
    assert counted(longest + " <｜｜> <｜a b｜> <｜a|> <|a｜> ｜a｜ <｜日本｜> ＜｜a｜＞") == {}


def test_a_marker_inside_a_special_token_belongs_to_it() -> None:
    assert counted("[<|a|>] <|a|>", ("[<|a|>]",)) == {"<|a|>": 1}
    assert counted("<|a|>x <|a|>", ("<|a|>x",)) == {"<|a|>": 1}


def test_invalid_utf8_does_not_hide_markers() -> None:
    assert counted(b"\xff\xfe<|a|>\xe3\x81<|b|>\x80") == {"<|a|>": 1, "<|b|>": 1}


@pytest.mark.parametrize("block", [1, 2, 3, 5, 7, 13, 64, 1000])
def test_block_size_does_not_change_the_counts(block: int) -> None:
    rng = random.Random(block)
    pieces = [EOT, "<|im_start|>", "<|im_end|>", "<|a|>x", "<|", "|>", "<|a|", "漢字", "text ", "<|a|>"]
    text = "".join(rng.choice(pieces) for _ in range(400))
    specials = ("<|a|>x", EOT)
    assert counted(text, specials, block) == counted(text, specials)


def test_distinct_markers_are_capped_but_all_counted() -> None:
    text = "".join(f"<|m{n}|>" for n in range(MAX_KINDS + 20)) + "<|m0|>"
    counter = MarkerCounter()
    counter.feed(text.encode("ascii"), final=True)
    result = counter.result()
    assert len(result.counts) == MAX_KINDS and result.more_kinds
    assert result.total == MAX_KINDS + 21
    assert result.counts[0] == ("<|m0|>", 2)


def test_the_held_back_tail_stays_small() -> None:
    counter = MarkerCounter([EOT])
    for _ in range(1000):
        counter.feed(b"<|abc" + b"x" * 50)
        assert len(counter._carry) < 200  # the longest marker: 64 "▁" between full-width bars


def test_file_counts_and_corpus_stats_agree(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_text(f"one<|sep|>two{EOT}three<|sep|>", encoding="utf-8")
    for block in (1, 4, 1 << 20):
        assert count_markers(path, [EOT], block_bytes=block).counts == (("<|sep|>", 2),)
        assert corpus_stats(path, [EOT], block_bytes=block).markers.counts == (("<|sep|>", 2),)
    assert not count_markers(path, [EOT, "<|sep|>"])
    assert corpus_stats(path, [EOT]).documents == 2


def markers_scanned_with_every_special(text: str, specials: tuple[str, ...]) -> dict[str, int]:
    """The plain definition: special tokens (longest first) and markers matched together, left to right."""
    alternatives = [regex.escape(t) for t in sorted(set(specials), key=lambda t: (-len(t), t))]
    pattern = regex.compile("|".join([*alternatives, "(?P<marker>" + MARKER.pattern.decode() + ")"]))
    found: dict[str, int] = {}
    for match in pattern.finditer(text):
        if match.group("marker"):
            found[match.group("marker")] = found.get(match.group("marker"), 0) + 1
    return found


@pytest.mark.parametrize("seed", range(6))
def test_special_tokens_hide_markers_as_when_all_are_matched_together(seed: int) -> None:
    # Word-like special tokens (no "<") are left out of the scan, which is then the marker pattern alone;
    # where one holds a "<" all take part, as in "ab" + "b<|x|>", where "ab" wins and "<|x|>" is a marker.
    rng = random.Random(seed)
    pieces = ["<|x|>", "<|y|>", "<|", "|>", "ab", "b", "x", "y", " ", "日"]
    choices = ["ab", "ba", "x|>", "b<|x|>", "<|y", "日<", "|> ", "y"]
    for _ in range(60):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        specials = tuple(rng.sample(choices, rng.randint(0, 3)))
        assert counted(text, specials, rng.randint(1, 8)) == markers_scanned_with_every_special(text, specials), (text, specials)


def test_word_like_special_tokens_leave_the_scan_to_the_marker_pattern() -> None:
    # A thousand special tokens spelled as words were each tried at every byte: the scan of a corpus for
    # forgotten markers, before `bpe-tui train` showed any progress, took longer than the training did.
    words = [f"{chr(97 + n % 26)}word{n}" for n in range(1000)]
    assert not any(word.encode() in MarkerCounter(words)._pattern.pattern for word in words)
    assert counted("aword0<|sep|>bword1 <|sep|>", tuple(words)) == {"<|sep|>": 2}


def test_the_count_stops_at_a_nul_byte(tmp_path: Path) -> None:
    """No text holds one, and training refuses the file there: the rest is not read."""
    path = tmp_path / "c.txt"
    path.write_bytes(b"a<|x|>b\x00<|y|>")
    assert count_markers(path, block_bytes=4).counts == (("<|x|>", 1),)
