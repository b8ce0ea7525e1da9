"""``bpe-tui inspect --ties``: the merges the tie rule decided, checked against a recount by the reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.cli_cases import SPECIAL, TEXT, small_model, tokenizer_file
from tests.core.analysis.test_ties import reference_ties

from bpe_tui.__main__ import main
from core.formats.native import to_text
from bpe_tui.text import escape_token


def inspect(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["inspect", *map(str, args), "--no-samples", "--longest", "0"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def reference_tie_ranks() -> list[int]:
    ties = reference_ties(TEXT, small_model().merges, (SPECIAL,))
    return [rank for rank, was_tie in enumerate(ties) if was_tie]


def test_ties_listed_with_rank_pair_and_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = small_model()
    ranks = reference_tie_ranks()
    code, out, err = inspect(capsys, tokenizer_file(tmp_path), "--ties")
    assert (code, err) == (0, "")
    assert f"ties:           {len(ranks)} of {len(model.merges)} merges were ties" in out
    after = out.split("tied merges (rank, left + right, count):\n", 1)[1].splitlines()
    listed = [line for line in after if line.startswith("  ")]
    assert len(listed) == len(after)  # the list ends the report (without --no-samples, bytes/token follow)
    assert [int(line.split()[0]) for line in listed] == ranks
    left, right = model.merges[ranks[0]]
    quoted = f'{escape_token(left, glyphs=False, quote=True)} + {escape_token(right, glyphs=False, quote=True)}'
    assert f"{quoted}  {model.merge_counts[ranks[0]]:,}" in listed[0]


def test_without_the_flag_only_the_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = inspect(capsys, tokenizer_file(tmp_path))
    assert code == 0 and "ties:           " in out and "tied merges" not in out


@pytest.mark.parametrize("fmt", ["hf", "gpt2", "tiktoken"])
def test_formats_without_runner_ups_say_unknown(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    code, out, _ = inspect(capsys, tokenizer_file(tmp_path, fmt), "--ties")
    assert code == 0 and "ties:           unknown: the file records no runner-up counts" in out
    assert "tied merges" not in out


def test_a_file_saved_before_runner_ups_were_recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(to_text(small_model()))
    data["merges"] = [entry[:3] for entry in data["merges"]]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = inspect(capsys, path, "--ties")
    assert (code, err) == (0, "") and "ties:           unknown" in out
