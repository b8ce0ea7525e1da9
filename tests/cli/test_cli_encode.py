"""``bpe-tui encode``: ids, tokens and counts from a file or stdin, for every format; bad input is one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.cli.cli_cases import SPECIAL, TEXT, assert_one_line_error, run_cli, small_model, tokenizer_file

from bpe_tui.__main__ import main
from core.encode.tokenizer import Tokenizer


def run_main(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["encode", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("fmt", ["bpe-tui", "gpt2", "hf"])
def test_ids_equal_encode_for_every_format(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    corpus = tmp_path / "text.txt"
    corpus.write_text(TEXT, encoding="utf-8", newline="")  # keeps the \r\n: it is part of what is encoded
    code, out, err = run_main(capsys, tokenizer_file(tmp_path, fmt), corpus)
    assert (code, err) == (0, "")
    assert out.endswith("\n") and out.count("\n") == 1
    assert [int(x) for x in out.split()] == Tokenizer.from_model(small_model()).encode(TEXT)


def test_tiktoken_rank_file_encodes_specials_as_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "text.txt"
    corpus.write_text(TEXT, encoding="utf-8", newline="")
    code, out, _ = run_main(capsys, tokenizer_file(tmp_path, "tiktoken"), corpus)
    assert code == 0
    assert [int(x) for x in out.split()] == Tokenizer.from_model(small_model()).encode_ordinary(TEXT)


def test_count_and_tokens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tok = tokenizer_file(tmp_path)
    corpus = tmp_path / "text.txt"
    corpus.write_text("a\x1bb\tc 日本" + SPECIAL, encoding="utf-8")
    expected = Tokenizer.from_model(small_model()).encode("a\x1bb\tc 日本" + SPECIAL)
    assert run_main(capsys, tok, corpus, "--count") == (0, f"{len(expected)}\n", "")
    code, out, _ = run_main(capsys, tok, corpus, "--tokens")
    lines = out.splitlines()
    assert code == 0 and len(lines) == len(expected)
    assert [int(line.split("\t")[0]) for line in lines] == expected
    assert "\x1b" not in out and "\\x1b" in out  # control characters never reach the terminal raw
    assert lines[-1].endswith(f'"{SPECIAL}"')


def test_empty_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "empty.txt"
    corpus.write_bytes(b"")
    assert run_main(capsys, tokenizer_file(tmp_path), corpus) == (0, "\n", "")
    assert run_main(capsys, tokenizer_file(tmp_path), corpus, "--count") == (0, "0\n", "")


def test_stdin(tmp_path: Path) -> None:
    result = run_cli("encode", tokenizer_file(tmp_path), "-", cwd=tmp_path, stdin="Hello there")
    assert result.returncode == 0, result.stderr
    assert [int(x) for x in result.stdout.split()] == Tokenizer.from_model(small_model()).encode("Hello there")
    implicit = run_cli("encode", tokenizer_file(tmp_path), "--count", cwd=tmp_path, stdin="Hello there")
    assert implicit.stdout.strip() == str(len(result.stdout.split()))


@pytest.mark.parametrize(
    "setup, needles",
    [
        (lambda d: (d / "missing.json", d / "t.txt"), ["missing.json", "no such file"]),
        (lambda d: (_write(d / "bad.json", b'{"format": "bpe-tui", "vocab": {'), d / "t.txt"), ["bad.json", "line 1"]),
        (lambda d: (_write(d / "img.png", b"\x89PNG\r\n\x1a\n"), d / "t.txt"), ["img.png", "PNG"]),
        (lambda d: (tokenizer_file(d), d / "absent.txt"), ["absent.txt", "no such file"]),
        (lambda d: (tokenizer_file(d), _write(d / "latin1.txt", b"caf\xe9\n")), ["latin1.txt", "UTF-8"]),
        (  # Japanese in UTF-16 holds no NUL; it was 'encode needs UTF-8 text', not what the file is
            lambda d: (tokenizer_file(d), _write(d / "ja16.txt", "こんにちは、世界。".encode("utf-16"))),
            ["ja16.txt", "UTF-16 byte-order mark", "iconv -f UTF-16 -t UTF-8"],
        ),
        (  # Aozora Bunko's files are Shift_JIS
            lambda d: (tokenizer_file(d), _write(d / "sjis.txt", "題\n吾輩は猫である。\n".encode("shift_jis"))),
            ["sjis.txt", "looks like Shift_JIS", "iconv -f SHIFT_JIS -t UTF-8"],
        ),
    ],
    ids=["missing-tokenizer", "truncated-json", "png", "missing-input", "not-utf8", "utf16-japanese", "shift-jis"],
)
def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], setup, needles) -> None:
    (tmp_path / "t.txt").write_text("hello", encoding="utf-8")
    tokenizer, text = setup(tmp_path)
    assert_one_line_error(run_main(capsys, tokenizer, text), *needles)


def test_bad_input_in_a_real_process_has_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "tok.json").write_text("[1, 2]", encoding="utf-8")
    result = run_cli("encode", tmp_path / "tok.json", "-", cwd=tmp_path, stdin="x")
    assert_one_line_error(result, "tok.json", "array")


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_one_long_line_is_encoded_a_block_at_a_time(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A file of one line (minified text, documents joined without newlines) is not held whole: read a line
    at a time, a 50 MB line took 1.1 GB. The ids are still those of the whole text, \\r\\n and all."""
    import bpe_tui.cli.encode as encode_command

    text = ("Hello there, 日本語 world!\r\n" * 20).replace("\r\n", " ", 15) + SPECIAL + "end"
    corpus = tmp_path / "long.txt"
    corpus.write_bytes(text.encode("utf-8"))
    items: list[str] = []
    encode_iterable = Tokenizer.encode_iterable
    monkeypatch.setattr(Tokenizer, "encode_iterable",
                        lambda self, chunks: encode_iterable(self, (items.append(c) or c for c in chunks)))
    monkeypatch.setattr(encode_command, "BLOCK", 100, raising=False)
    code, out, _ = run_main(capsys, tokenizer_file(tmp_path), corpus)
    assert code == 0 and [int(x) for x in out.split()] == Tokenizer.from_model(small_model()).encode(text)
    assert "".join(items) == text and max(len(item) for item in items) <= 100


def test_invalid_utf8_is_located_exactly(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Line and byte offset of the bad byte, also past the first block and after a character cut by a
    block's end; the line said 'near line 1' for anything in the first 8 KiB the text reader decoded."""
    import bpe_tui.cli.encode as encode_command

    data = "ab 日本\n".encode("utf-8") * 30 + b"caf\xe9\n"
    (tmp_path / "bad.txt").write_bytes(data)
    monkeypatch.setattr(encode_command, "BLOCK", 7, raising=False)
    code, out, err = run_main(capsys, tokenizer_file(tmp_path), tmp_path / "bad.txt")
    assert (code, out) == (2, "")
    offset = data.index(bytes([0xE9]))
    assert f"bad.txt: invalid UTF-8 on line 31, at byte offset {offset} (byte 0xe9)" in err


class _Terminal:
    """A stdin that is a terminal holding ``data``."""

    def __init__(self, data: bytes) -> None:
        import io

        self.buffer = io.BytesIO(data)

    def isatty(self) -> bool:
        return True


def test_text_given_for_file_and_a_terminal_for_stdin_say_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 'bpe-tui encode tok.json "some text"' said only 'no such file; check the path'; with no FILE at a terminal,
    # encode waited for stdin without a word, as if it hung.
    tok = tokenizer_file(tmp_path)
    code, out, err = run_main(capsys, tok, "hello world")
    assert code == 2 and out == "" and "hello world: no such file" in err and "| bpe-tui encode TOKENIZER" in err
    monkeypatch.setattr("sys.stdin", _Terminal(b"hi\n"))
    code, out, err = run_main(capsys, tok)
    assert (code, out) == (0, " ".join(map(str, Tokenizer.from_model(small_model()).encode("hi\n"))) + "\n")
    assert err == "bpe-tui encode: reading the text to encode from the terminal; end it with Ctrl-D, or give a FILE\n"
