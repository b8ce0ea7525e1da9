"""``bpe-tui study``: the issue's JSON, with every size's token counts equal to a separately trained tokenizer's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.cli_cases import assert_one_line_error, run_cli
from tests.data_paths import SAMPLES

from bpe_tui.__main__ import main
from core.encode.tokenizer import Tokenizer
from core.train.run import TrainingRun

CORPUS = SAMPLES / "mixed.txt"


def study(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["study", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_tokens_equal_separately_trained_tokenizers(capsys: pytest.CaptureFixture[str]) -> None:
    extra = SAMPLES / "toy.txt"
    code, out, err = study(
        capsys, CORPUS, "--sizes", "400,300", "--eval", extra, "--d", "16", "--json", "--workers", "1"
    )
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert [entry["vocab"] for entry in data["sizes"]] == [300, 400]
    texts = {name: (SAMPLES / f"{file}.txt").read_text(encoding="utf-8")
             for name, file in (("corpus", "mixed"), ("english", "english"), ("japanese", "japanese"), ("toy", "toy"))}
    for entry in data["sizes"]:
        assert set(entry) >= {"vocab", "seconds", "tokens", "bytes_per_token", "longest_token", "embedding"}
        run = TrainingRun(CORPUS, entry["vocab"], [], workers=1)
        for _ in run.events():
            pass
        tokenizer = Tokenizer.from_model(run.result())
        assert entry["tokens"] == {name: len(tokenizer.encode(text)) for name, text in texts.items()}
        assert entry["embedding"] == entry["vocab"] * 16 and entry["seconds"] >= 0


def test_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = study(capsys, CORPUS, "--sizes", "300,350", "--workers", "1")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert "vocab" in lines[1] and "japanese" in lines[1] and "longest token" in lines[1]
    assert lines[2].split()[0] == "300" and lines[3].split()[0] == "350"


@pytest.mark.parametrize("args, needle", [
    (["--sizes", "300,abc"], "'abc' is not a whole number"),
    (["--sizes", "200"], "too small"),
    (["--sizes", "300", "--eval", "missing.txt"], "missing.txt"),
])
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], needle: str) -> None:
    assert_one_line_error(run_cli("study", CORPUS, *args, cwd=tmp_path), "bpe-tui study: error:", needle)
