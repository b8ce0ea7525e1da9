"""core.analysis.corpus_stats: script mix, lines and documents must not depend on where the file is cut into blocks."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.analysis.corpus_stats import corpus_stats, escape_controls, preview_text, scan_corpus
from core.analysis.script_mix import script_mix

EOT = "<|endoftext|>"


def test_lines_with_and_without_final_newline(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    a.write_text("x\ny\n", encoding="utf-8")
    b = tmp_path / "b.txt"
    b.write_text("x\ny", encoding="utf-8")
    e = tmp_path / "e.txt"
    e.write_bytes(b"")
    assert corpus_stats(a).lines == 2
    assert corpus_stats(b).lines == 2
    assert corpus_stats(e).lines == 0 and corpus_stats(e).documents == 0


def test_documents_skip_blank_ones(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_text(f"{EOT}one{EOT}\n\n{EOT}two\n{EOT}  \n", encoding="utf-8")
    assert corpus_stats(path, [EOT]).documents == 2
    assert corpus_stats(path).documents == 1


@pytest.mark.parametrize("block", [1, 2, 3, 5, 7, 13, 64])
def test_block_size_does_not_change_the_result(tmp_path: Path, block: int) -> None:
    text = f"first doc 漢字{EOT}second {EOT}{EOT}third ラーメン\nline\n{EOT}"
    path = tmp_path / "c.txt"
    path.write_text(text, encoding="utf-8")
    whole = corpus_stats(path, [EOT, "<a>"])
    cut = corpus_stats(path, [EOT, "<a>"], block_bytes=block)
    assert (cut.lines, cut.documents, cut.mix) == (whole.lines, whole.documents, whole.mix)
    assert whole.documents == 3
    assert whole.mix == script_mix(text)


def test_nested_special_tokens_prefer_the_longest(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_text("a<x><x>b<x>c", encoding="utf-8")
    for block in (1, 2, 3, 100):
        assert corpus_stats(path, ["<x>", "<x><x>"], block_bytes=block).documents == 3


def test_scan_yields_progress_then_complete(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_text("abc\n" * 100, encoding="utf-8")
    updates = list(scan_corpus(path, block_bytes=64))
    assert [u.complete for u in updates].count(True) == 1 and updates[-1].complete
    assert [u.bytes_read for u in updates] == sorted(u.bytes_read for u in updates)
    assert updates[-1].bytes_read == 400


def test_invalid_utf8_is_located(tmp_path: Path) -> None:
    path = tmp_path / "c.bin"
    path.write_bytes(b"ok text \xff\xfe more")
    stats = corpus_stats(path, block_bytes=4)
    assert stats.invalid_utf8_at == 8
    assert corpus_stats(path).invalid_utf8_at == 8


@pytest.mark.parametrize("block", [1, 2, 3, 1 << 20])
def test_utf16_and_japanese_encodings_are_told_from_other_invalid_utf8(tmp_path: Path, block: int) -> None:
    # The corpus pane said "training refuses it unless errors is 'replace'" of UTF-16 or Shift_JIS: the wrong fix.
    japanese = tmp_path / "ja16.txt"
    japanese.write_bytes("吾輩は猫である。".encode("utf-16"))
    stats = corpus_stats(japanese, block_bytes=block)
    assert stats.invalid_utf8_at == 0 and "UTF-16 byte-order mark" in stats.other_encoding
    later = tmp_path / "later.txt"
    later.write_bytes(b"ok \xff\xfe")
    stats = corpus_stats(later, block_bytes=block)
    assert stats.invalid_utf8_at == 3 and stats.other_encoding is None
    aozora = tmp_path / "aozora.txt"  # Aozora Bunko's files are Shift_JIS, after an ASCII line or not
    aozora.write_bytes("Title: x\n吾輩は猫である。名前はまだ無い。\n".encode("shift_jis"))
    stats = corpus_stats(aozora, block_bytes=block)
    assert stats.invalid_utf8_at == 9 and "looks like Shift_JIS" in stats.other_encoding
    (tmp_path / "ok.txt").write_text("吾輩", encoding="utf-8")
    assert corpus_stats(tmp_path / "ok.txt").other_encoding is None


def test_script_mix_is_sampled_on_big_files(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_text("a" * 100 + "漢" * 100, encoding="utf-8")
    stats = corpus_stats(path, script_sample_bytes=100, block_bytes=30)
    assert stats.mix_sampled
    assert stats.mix.chars == {"latin": 100, "kana": 0, "kanji": 0, "other": 0}


def test_preview_escapes_controls_and_keeps_layout(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_bytes("a\tb\nc\x1b[2Jd\u202e\r".encode())
    assert preview_text(path) == "a\tb\nc\\x1b[2Jd\\u202e\\r"


def test_preview_cuts_inside_a_character_without_replacement_char(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_text("ab漢", encoding="utf-8")
    assert preview_text(path, max_bytes=4) == "ab"


def test_escape_controls_named_and_hex() -> None:
    assert escape_controls("\x00\n\x7f\u2028", keep="") == "\\x00\\n\\x7f\\u2028"
