"""``bpe-tui convert``: every format to every other, identical encoding; failures write nothing."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from tests.cli.cli_cases import TEXT, assert_one_line_error, run_cli, small_model, tokenizer_file

from bpe_tui.__main__ import main
from core.fingerprint import fingerprint
from core.formats import FORMATS, detect_format, load_tokenizer
from core.encode.tokenizer import Tokenizer

OUTPUTS = {"bpe-tui": "out.json", "gpt2": "out-gpt2", "hf": "tokenizer.json", "tiktoken": "out.tiktoken"}


def convert(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["convert", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("source, target", list(itertools.product(FORMATS, FORMATS)))
def test_every_pair(tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, target: str) -> None:
    (tmp_path / "in").mkdir()
    source_file = tokenizer_file(tmp_path / "in", source)
    code, out, err = convert(capsys, source_file, tmp_path / OUTPUTS[target], "--to", target)
    assert code == 0, err
    written = [Path(line) for line in out.splitlines()]
    assert all(path.is_file() for path in written) and detect_format(written[0]) == target
    loaded = load_tokenizer(written[0])
    lossy = "tiktoken" in (source, target)
    if not lossy:
        assert fingerprint(loaded) == fingerprint(small_model())
    assert ("not stored: special tokens" in err) == (target == "tiktoken" and source != "tiktoken")
    assert ("merge counts" in err) == (source == "bpe-tui" and target != "bpe-tui")
    ours = Tokenizer.from_model(small_model())
    theirs = Tokenizer.from_model(loaded)
    assert theirs.encode_ordinary(TEXT) == ours.encode_ordinary(TEXT)
    if not lossy:
        assert theirs.encode(TEXT) == ours.encode(TEXT)


def test_unknown_format_is_an_argparse_error(tmp_path: Path) -> None:
    result = run_cli("convert", tokenizer_file(tmp_path), tmp_path / "x", "--to", "sentencepiece", cwd=tmp_path)
    assert result.returncode == 2 and "invalid choice" in result.stderr and "Traceback" not in result.stderr


def test_bad_input_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    good = tokenizer_file(tmp_path)
    bad.write_text(good.read_text(encoding="utf-8").replace('"pattern": "', '"pattern": "x|', 1), encoding="utf-8")
    assert_one_line_error(convert(capsys, bad, tmp_path / "out.json", "--to", "hf"), "bad.json", "fingerprint mismatch")
    assert not (tmp_path / "out.json").exists()
    assert_one_line_error(convert(capsys, good, tmp_path / "no" / "out.json", "--to", "hf"), "does not exist")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "tok.json"]


def test_unrepresentable_model_writes_nothing(tmp_path: Path) -> None:
    from core.formats import save_tokenizer
    from core.model import BPEModel

    base = small_model()
    custom = BPEModel(base.vocab, base.merges, base.special_tokens, pattern=r"\S+|\s+")
    source = save_tokenizer(custom, tmp_path / "custom.json", format="bpe-tui")[0]
    result = run_cli("convert", source, tmp_path / "out.tiktoken", "--to", "tiktoken", cwd=tmp_path)
    assert_one_line_error(result, "pattern")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["custom.json"]
