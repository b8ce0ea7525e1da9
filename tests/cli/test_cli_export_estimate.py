"""``export --estimate SIZE``: sizes read as people write them, the estimate at the measured rate, bad sizes
refused; and the sidecar export writes follows the rules of every output (--force to replace one)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.cli.cli_cases import TEXT, assert_one_line_error, run_cli, tokenizer_file

from bpe_tui.throughput import estimate_line, format_long_duration, parse_size


@pytest.mark.parametrize(("text", "shown", "size"), [
    ("825GB", "825 GB", 825 * 10**9),
    ("1.5TB", "1.5 TB", 15 * 10**11),
    ("1.5 tb", "1.5 TB", 15 * 10**11),
    ("300MiB", "300 MiB", 300 * 2**20),
    ("2kib", "2 KiB", 2048),
    (".5PB", "0.5 PB", 5 * 10**14),
    ("4096", "4096 B", 4096),
    ("10b", "10 B", 10),
])
def test_sizes_as_people_write_them(text: str, shown: str, size: int) -> None:
    parsed = parse_size(text)
    assert (parsed.text, parsed.bytes) == (shown, size)


@pytest.mark.parametrize("text", ["", "GB", "12XB", "-5GB", "0GB", "1e9", "5 G B", "825GBs"])
def test_what_is_not_a_size(text: str) -> None:
    with pytest.raises(ValueError, match="size"):
        parse_size(text)


@pytest.mark.parametrize("digits", [309, 400])
def test_a_size_of_hundreds_of_digits_is_too_large_not_an_overflow(digits: int) -> None:
    """``--estimate 999...9TB`` ended in ``OverflowError: cannot convert float infinity to integer``."""
    with pytest.raises(ValueError, match="too large a size"):
        parse_size("9" * digits + "TB")


def test_the_estimate_is_size_over_rate() -> None:
    # 825e9 bytes at 1 MiB/s: 786,781 s, 9.1 days; 300 MiB at 1 MiB/s: 5 minutes.
    assert estimate_line(2**20, parse_size("825GB")) == "825 GB would take 9.1 days at 1.0 MiB/s"
    assert estimate_line(2**20, parse_size("300MiB")) == "300 MiB would take 5m 00s at 1.0 MiB/s"
    assert format_long_duration(2 * 86400 - 1) == "47h 59m"


def test_export_prints_its_rate_and_the_estimate(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT * 50, encoding="utf-8", newline="")
    result = run_cli("export", corpus, tokenizer_file(tmp_path), "-o", tmp_path / "ids.npy", "--estimate", "825GB",
                     cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    exported, estimate = result.stderr.splitlines()[-2:]
    measured = re.search(r" \(([\d.]+ [KMG]?i?B/s), [\d,]+ tokens/s\)$", exported)
    assert measured is not None, exported
    # A few KiB measure start-up and first-seen words, not a rate that holds over 825 GB: the line says so, as
    # the dashboard (which gives no estimate under 4 MiB) does; it gave the days alone.
    size = len((TEXT * 50).encode("utf-8"))
    assert re.fullmatch(r"estimate: 825 GB would take [\d.,]+ days at " + re.escape(measured[1])
                        + re.escape(f"; measured on only {size:,} bytes, mostly start-up and first-seen words: "
                                    "export 4.0 MiB or more for a rate that holds"), estimate), estimate


def test_a_bad_estimate_is_refused_before_any_work(tmp_path: Path) -> None:
    result = run_cli("export", "corpus.txt", "tok.json", "-o", tmp_path / "ids.npy", "--estimate", "lots",
                     cwd=tmp_path)
    assert_one_line_error(result, "--estimate", "'lots' is not a size", "825GB")


def test_an_existing_sidecar_is_replaced_only_with_force(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT, encoding="utf-8", newline="")
    (tmp_path / "ids.npy.json").write_text("{}", encoding="utf-8")  # left from elsewhere, without its array
    tok = tokenizer_file(tmp_path)
    result = run_cli("export", corpus, tok, "-o", tmp_path / "ids.npy", cwd=tmp_path)
    assert_one_line_error(result, "-o's sidecar", "ids.npy.json already exists; add --force to overwrite it")
    assert not (tmp_path / "ids.npy").exists() and (tmp_path / "ids.npy.json").read_text() == "{}"
    result = run_cli("export", corpus, tok, "-o", tmp_path / "ids.npy", "--force", cwd=tmp_path)
    assert result.returncode == 0 and '"format": "bpe-tui ids sidecar 1"' in (tmp_path / "ids.npy.json").read_text()
