"""``bpe-tui inspect``: format, size split, special tokens, fingerprint, escaped longest tokens, bytes/token."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from tests.cli.cli_cases import SPECIAL, assert_one_line_error, run_cli, small_model, tokenizer_file

from bpe_tui.__main__ import main
from core.fingerprint import fingerprint
from core.formats import save_tokenizer
from core.model import BPEModel
from core.train.events import TrainingFinished
from core.train.run import TrainingRun


def inspect(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["inspect", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    "fmt, label",
    [("bpe-tui", "bpe-tui JSON"), ("gpt2", "GPT-2 vocab.json + merges.txt"), ("hf", "Hugging Face tokenizer.json"),
     ("tiktoken", "tiktoken rank file")],
)
def test_summary_for_every_format(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str, label: str) -> None:
    model = small_model()
    code, out, err = inspect(capsys, tokenizer_file(tmp_path, fmt), "--no-samples")
    assert (code, err) == (0, "")
    assert f"format:         {label}" in out
    merges = len(model.merges)
    if fmt == "tiktoken":
        assert f"= 256 bytes + {merges} merges + 0 specials" in out and "special tokens: none" in out
    else:
        assert f"vocab size:     {len(model.vocab)} = 256 bytes + {merges} merges + 1 special" in out
        assert f'special tokens: "{SPECIAL}" (256)' in out
        assert f"fingerprint:    {fingerprint(model)}" in out
    assert ("merge counts:   recorded" in out) == (fmt == "bpe-tui")
    assert "longest tokens:" in out
    # GPT-2 pairs and rank files hold no pattern: a Llama 3 rank file loaded here splits as GPT-2 does, so
    # the line says the pattern was assumed (it said "GPT-2" as if read from the file).
    assumed = " (assumed: the file holds no pattern)" if fmt in ("gpt2", "tiktoken") else ""
    assert f"pattern:        GPT-2{assumed}\n" in out


def test_bytes_per_token_on_bundled_samples(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], samples_dir: Path
) -> None:
    if not (samples_dir / "english.txt").is_file():
        pytest.skip("bundled samples not present")
    code, out, _ = inspect(capsys, tokenizer_file(tmp_path))
    assert code == 0
    assert "bytes/token on the bundled samples:" in out
    for name in ("english", "japanese", "mixed"):
        if (samples_dir / f"{name}.txt").is_file():
            line = next(line for line in out.splitlines() if line.strip().startswith(name))
            assert float(line.split()[-2]) > 1.0


def test_control_characters_in_tokens_are_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = small_model()
    hostile = b"\x1b[2J\x07\r" * 8  # clear screen, bell, carriage return
    vocab = base.vocab | {max(base.vocab) + 1: hostile}
    model = BPEModel(vocab, base.merges, base.special_tokens + [hostile.decode()])
    from core.formats import save_tokenizer

    path = save_tokenizer(model, tmp_path / "hostile.json", format="bpe-tui")[0]
    code, out, _ = inspect(capsys, path, "--no-samples")
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    assert "\\x1b[2J\\x07\\r" in out


def test_bad_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    csv = tmp_path / "data.csv"
    csv.write_text("a,b\n1,2\n", encoding="utf-8")
    assert_one_line_error(inspect(capsys, csv), "data.csv", "line 1")
    result = run_cli("inspect", tmp_path / "nope.json", cwd=tmp_path)
    assert_one_line_error(result, "nope.json", "no such file")


def test_a_stopped_run_says_it_was_stopped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A run stopped by the user and saved showed "vocab_size=1000" beside a vocabulary of 290 tokens, as if
    # the corpus had run out of pairs; the inspector pane said it was stopped, the CLI did not.
    model = small_model()
    assert model.training is not None
    kept = 290 - 256 - 1
    stopped = dataclasses.replace(
        model, vocab={i: t for i, t in model.vocab.items() if i < 290}, merges=model.merges[:kept],
        merge_counts=(model.merge_counts or [])[:kept], merge_runner_ups=(model.merge_runner_ups or [])[:kept],
        training=dataclasses.replace(model.training, vocab_size=1000, stopped_after=kept),
    )
    path = save_tokenizer(stopped, tmp_path / "stopped.json", format="bpe-tui")[0]
    code, out, err = inspect(capsys, path, "--no-samples")
    assert (code, err) == (0, "")
    assert f"vocab_size=1000, min_frequency=0; stopped by the user after {kept} merges" in out
    code, out, err = inspect(capsys, tokenizer_file(tmp_path), "--no-samples")
    assert "stopped by the user" not in out


def test_a_file_without_its_fingerprint_is_shown_unverified(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The README's way to load an edited file is to delete its fingerprint; inspect showed the computed one
    # as if the file had been checked.
    path = tokenizer_file(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["fingerprint"]
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = inspect(capsys, edited, "--no-samples")
    assert (code, err) == (0, "")
    assert f"fingerprint:    {fingerprint(small_model())}  (unverified: the file has no fingerprint key)" in out
    code, out, err = inspect(capsys, path, "--no-samples")
    assert f"fingerprint:    {fingerprint(small_model())}\n" in out


def test_a_negative_longest_is_one_line(tmp_path: Path) -> None:
    # --longest -5 was taken silently and listed all the longest tokens but five.
    result = run_cli("inspect", tokenizer_file(tmp_path), "--longest", "-5", cwd=tmp_path)
    assert_one_line_error(result, "--longest -5: give how many tokens to list, 0 or more")


def test_hundreds_of_special_tokens_are_counted_not_all_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Llama 3 declares 256 special tokens: listing every one made a line of about 10,000 characters.
    specials = [f"<|reserved_special_token_{index}|>" for index in range(300)]
    run = TrainingRun.from_text("low lower lowest " * 20, 570, specials, workers=1)
    model = [event for event in run.events() if isinstance(event, TrainingFinished)][-1].model
    path = save_tokenizer(model, tmp_path / "many.json", format="bpe-tui")[0]
    code, out, err = inspect(capsys, path, "--no-samples")
    line = next(line for line in out.splitlines() if line.startswith("special tokens:"))
    assert (code, err) == (0, "")
    assert '"<|reserved_special_token_0|>" (256)' in line and "<|reserved_special_token_11|>" in line
    assert "<|reserved_special_token_12|>" not in line and line.endswith("… (288 more)")
    assert len(line) < 600 and "+ 300 specials" in out


def test_a_normalizing_tokenizer_shows_its_normalizer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Qwen2's tokenizer.json puts text in NFC before splitting it: the summary is where a user sees why
    # e + U+0301 encodes as é does. A tokenizer without one shows no such line.
    from bpe_tui.screens.inspector import summary_content
    from bpe_tui.session import LoadedTokenizer

    model = dataclasses.replace(small_model(), normalizer="NFC")
    path = save_tokenizer(model, tmp_path / "tokenizer.json", format="hf")[0]
    code, out, err = inspect(capsys, path, "--no-samples")
    assert (code, err) == (0, "")
    assert "normalizer:     NFC (the text between special tokens, before it is split)\npattern:" in out
    assert "normalizer" not in inspect(capsys, tokenizer_file(tmp_path), "--no-samples")[1]
    assert "normalizer NFC" in summary_content(LoadedTokenizer.from_model(model), fingerprint(model)).plain
