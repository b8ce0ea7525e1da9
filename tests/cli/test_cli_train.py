"""``bpe-tui train`` end to end: output and events files, plain progress, bad input, Ctrl-C leaving nothing."""

from __future__ import annotations

import io
import json
import os
import random
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import core.train.run
from bpe_tui.__main__ import main
from core.formats.byte_alphabet import decode_bytes
from core.train.events import MergeMade
from core.formats import load_tokenizer
from core.train.run import TrainingRun, train_bpe
from tests.waiting import wait_until

ESC = "\x1b"
SPECIAL = "<|endoftext|>"


# -------------------------------------------------------------------------------------------------- helpers


def run_cli(*args: str | os.PathLike[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m bpe_tui ...`` with stdin closed and output captured, so stderr is not a terminal."""
    return subprocess.run(
        [sys.executable, "-m", "bpe_tui", *map(str, args)],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def make_corpus(path: Path, size: int = 3_000_000, seed: int = 7) -> Path:
    """A few MB of made-up words: enough unique pre-tokens that a large vocabulary takes seconds to merge."""
    rng = random.Random(seed)
    syllables = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"] + ["th", "sh", "ng", "qu"]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 5))) for _ in range(40_000)]
    lines: list[str] = []
    total = 0
    while total < size:
        line = " ".join(rng.choice(words) for _ in range(12)) + ".\n"
        lines.append(line)
        total += len(line)
    path.write_text("".join(lines), encoding="ascii")
    return path


class StderrWatcher:
    """Reads a child's stderr on a thread, so that a full pipe never blocks it; ``rest`` gives every line."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        assert proc.stderr is not None
        self._thread = threading.Thread(target=self._pump, args=(proc.stderr,), daemon=True)
        self._thread.start()

    def _pump(self, stream: io.TextIOBase) -> None:
        for line in stream:
            self.lines.append(line)

    def wait_for_each(self, prefixes: list[str], timeout: float = 20.0) -> bool:
        """Wait until a line starting with each of ``prefixes`` has arrived, in any order (processes race)."""
        missing = list(prefixes)
        while missing:
            line = self._queue.get(timeout=timeout)
            if line is None:
                return False
            self.lines.append(line)
            missing = [prefix for prefix in missing if not line.startswith(prefix)]
        return True

    def rest(self) -> list[str]:
        """Every line, once the child has closed its stderr (call it after the child has ended)."""
        self._thread.join(timeout=60)
        assert not self._thread.is_alive(), "the child's stderr is still open"
        return list(self.lines)


# ------------------------------------------------------------------------------------------ training works


def test_subprocess_trains_english_and_matches_train_bpe(samples_dir: Path, tmp_path: Path) -> None:
    corpus = samples_dir / "english.txt"
    out, events = tmp_path / "english.json", tmp_path / "english.jsonl"
    result = run_cli(
        "train", corpus, "--vocab-size", "400", "--special-token", SPECIAL, "--workers", "1",
        "-o", out, "--events", events, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert ESC not in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    last = result.stderr.splitlines()[-1]
    assert last.startswith("trained 143 merges") and str(out) in last and "vocab size 400" in last

    vocab, merges = train_bpe(corpus, 400, [SPECIAL], workers=1)
    model = load_tokenizer(out)
    assert model.merges == merges
    assert model.vocab == vocab
    assert model.special_tokens == [SPECIAL]
    assert model.merge_counts is not None and len(model.merge_counts) == len(merges)

    records = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    assert all(isinstance(record, dict) for record in records)
    assert records[0]["event"] == "start" and records[0]["vocab_size"] == 400
    assert records[-1] == {"event": "finished", "reason": "vocab_size", "merges": 143, "vocab_size": 400}
    merge_records = [r for r in records if r["event"] == "merge"]
    assert len(merge_records) == len(merges)
    assert [(decode_bytes(r["left"]), decode_bytes(r["right"])) for r in merge_records] == merges
    assert [(bytes.fromhex(r["left_hex"]), bytes.fromhex(r["right_hex"])) for r in merge_records] == merges
    assert [r["new_id"] for r in merge_records] == list(range(257, 400))
    assert [r["count"] for r in merge_records] == model.merge_counts
    assert {r["phase"] for r in records if r["event"] == "phase"} == {"reading", "counting", "merging"}
    assert sorted(os.listdir(tmp_path)) == ["english.json", "english.jsonl"]


def test_in_process_default_output_goes_to_current_directory(
    samples_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["train", str(samples_dir / "japanese.txt"), "--vocab-size", "300", "--workers", "1"]) == 0
    err = capsys.readouterr().err
    assert (tmp_path / "japanese-300.json").is_file()
    assert "saved to japanese-300.json" in err.splitlines()[-1]
    assert ESC not in err
    assert load_tokenizer(tmp_path / "japanese-300.json").merges == train_bpe(
        samples_dir / "japanese.txt", 300, [], workers=1
    )[1]


def test_plain_progress_is_a_line_per_phase_and_per_tenth_of_merges(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mixed.json"
    assert main(["train", str(samples_dir / "mixed.txt"), "--vocab-size", "500", "--workers", "1", "-o", str(out)]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert ESC not in "".join(lines) and "\r" not in "".join(lines)
    assert sum(line.startswith("counting:") for line in lines) == 1
    assert sum(line.startswith("merging: up to 244 merges") for line in lines) == 1
    tenths = [line for line in lines if line.startswith("merging: ") and "%" in line]
    assert 9 <= len(tenths) <= 10 and tenths[-1].startswith("merging: 100% (244/244 merges)")
    assert all("RSS" in line and "longest token" in line for line in tenths)
    assert lines[-1].startswith("trained 244 merges (vocab size reached), vocab size 500")


def test_empty_corpus_trains_to_the_base_vocabulary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "empty.txt"
    corpus.write_bytes(b"")
    out = tmp_path / "empty.json"
    assert main(["train", str(corpus), "--vocab-size", "1000", "--special-token", SPECIAL, "-o", str(out)]) == 0
    model = load_tokenizer(out)
    assert model.merges == [] and model.vocab_size == 257
    assert "no pair left" in capsys.readouterr().err.splitlines()[-1]


def test_errors_replace_opts_into_invalid_utf8(tmp_path: Path) -> None:
    corpus = tmp_path / "latin1.txt"
    corpus.write_bytes("caf\xe9 caf\xe9 caf\xe9".encode("latin-1"))
    out = tmp_path / "out.json"
    assert main(["train", str(corpus), "--vocab-size", "260", "--errors", "replace", "-o", str(out)]) == 0
    merges = load_tokenizer(out).merges
    assert merges == train_bpe(corpus, 260, [], errors="replace")[1]
    assert any("\ufffd".encode() in left + right for left, right in merges)


@pytest.mark.parametrize(("encoding", "named"), [("shift_jis", "Shift_JIS"), ("utf-16", "UTF-16"), ("utf-8", None)])
def test_errors_replace_on_japanese_in_another_encoding_warns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], encoding: str, named: str | None
) -> None:
    # Strict reading names the encoding and stops; with 'replace' the run trained on the bytes as noise, silently.
    corpus = tmp_path / "wagahai.txt"
    corpus.write_bytes(("吾輩は猫である。名前はまだ無い。" * 20).encode(encoding))  # no ASCII: UTF-16 without a NUL
    out = tmp_path / "out.json"
    assert main(["train", str(corpus), "--vocab-size", "300", "--errors", "replace", "-o", str(out)]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    if named is None:
        assert warnings == []
    else:
        assert len(warnings) == 1 and named in warnings[0]
        assert "trained on as noise" in warnings[0] and f"iconv -f {named.upper()}" in warnings[0]


# --------------------------------------------------------------------------------------------- bad input


def _bad_corpus(data: bytes):
    def make(tmp: Path) -> list[str]:
        corpus = tmp / "corpus.txt"
        corpus.write_bytes(data)
        return [str(corpus), "--vocab-size", "300"]

    return make


def _good(*extra: str):
    def make(tmp: Path) -> list[str]:
        corpus = tmp / "corpus.txt"
        corpus.write_text("low low low lower lower newest\n", encoding="utf-8")
        return [str(corpus), *[part.replace("{tmp}", str(tmp)) for part in extra]]

    return make


BAD_INPUT = {
    "missing path": (lambda tmp: [str(tmp / "nope.txt"), "--vocab-size", "300"], "no such file"),
    "directory without shards": (lambda tmp: [str(tmp), "--vocab-size", "300"], "the folder holds no corpus shard"),
    "binary (NUL)": (_bad_corpus(b"GIF89a\x00\x01\x02 binary"), "NUL byte at byte offset 6"),
    "invalid UTF-8": (_bad_corpus(b"hello \xff world"), "invalid UTF-8 at byte offset 6"),
    "vocab below 256": (_good("--vocab-size", "255"), "at least 256"),
    "vocab below 256 + specials": (_good("--vocab-size", "257", "--special-token", "<a>", "--special-token", "<b>"),
                                   "at least 258"),
    "empty special token": (_good("--vocab-size", "300", "--special-token", ""), "empty"),
    "duplicate special token": (_good("--vocab-size", "300", "--special-token", "<s>", "--special-token", "<s>"),
                                "twice"),
    "output directory missing": (_good("--vocab-size", "300", "-o", "{tmp}/missing/out.json"), "does not exist"),
    "events directory missing": (_good("--vocab-size", "300", "--events", "{tmp}/missing/e.jsonl"), "does not exist"),
    "output is a directory": (_good("--vocab-size", "300", "-o", "{tmp}"), "is a directory"),
    "output is the corpus": (_good("--vocab-size", "300", "-o", "{tmp}/corpus.txt"), "corpus itself"),
    "no workers": (_good("--vocab-size", "300", "--workers", "0"), "at least 1"),
    "negative min frequency": (_good("--vocab-size", "300", "--min-frequency", "-1"), "min frequency"),
}


def _check_bad_input(case: str, tmp_path: Path, run) -> None:
    make_args, fragment = BAD_INPUT[case]
    corpus_dir = tmp_path / "in"
    corpus_dir.mkdir()
    args = make_args(corpus_dir)
    before = sorted(os.listdir(corpus_dir))
    code, stderr = run(["train", *args])
    assert code not in (0, 130)
    assert "Traceback" not in stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("bpe-tui train: error: ") and fragment in lines[0]
    assert sorted(os.listdir(corpus_dir)) == before
    assert sorted(os.listdir(tmp_path)) == ["in"]  # no default output in the working directory either


@pytest.mark.parametrize("case", list(BAD_INPUT))
def test_bad_input_is_one_line_and_writes_nothing(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)

    def run(argv: list[str]) -> tuple[int, str]:
        code = main(argv)
        return code, capsys.readouterr().err

    _check_bad_input(case, tmp_path, run)


@pytest.mark.parametrize("case", ["missing path", "invalid UTF-8", "vocab below 256", "output directory missing"])
def test_bad_input_in_a_subprocess_has_no_traceback(case: str, tmp_path: Path) -> None:
    def run(argv: list[str]) -> tuple[int, str]:
        result = run_cli(*argv, cwd=tmp_path)
        assert result.stdout == ""
        return result.returncode, result.stderr

    _check_bad_input(case, tmp_path, run)


def test_bad_input_in_process_returns_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = _bad_corpus(b"ok \xe3\x81 broken")(tmp_path)
    assert main(["train", *args, "-o", str(tmp_path / "out.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "byte offset 3" in err and "errors 'replace'" in err
    assert sorted(os.listdir(tmp_path)) == ["corpus.txt"]


# ----------------------------------------------------------------------------------------------- Ctrl-C


def test_ctrl_c_in_process_cancels_and_writes_nothing(
    samples_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    runs: list[TrainingRun] = []

    class InterruptedRun(TrainingRun):
        def events(self):
            runs.append(self)
            for event in super().events():
                yield event
                if isinstance(event, MergeMade) and event.rank == 5:
                    raise KeyboardInterrupt

    # The command builds its run through bpe_tui.training_spec.training_run, which looks the class up here.
    monkeypatch.setattr(core.train.run, "TrainingRun", InterruptedRun)
    out, events = tmp_path / "out.json", tmp_path / "events.jsonl"
    code = main(["train", str(samples_dir / "english.txt"), "--vocab-size", "400", "--workers", "1",
                 "-o", str(out), "--events", str(events)])
    assert code == 130
    assert runs and runs[0].cancelled
    assert capsys.readouterr().err.splitlines()[-1] == "bpe-tui train: interrupted; nothing was written"
    assert os.listdir(tmp_path) == []


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_corpus(tmp_path_factory.mktemp("corpus") / "big.txt")


INTERRUPT_POINT = Path(__file__).resolve().parent / "interrupt_point.py"


def start_waiting(tmp_path: Path, point: str, *command: str, cwd: Path | None = None) -> tuple[subprocess.Popen[str], Path]:
    """Start ``bpe-tui COMMAND`` in its own session, made to wait at ``point`` (see ``interrupt_point.py``);
    returns the process and the folder where its waiting processes leave their marks."""
    marks = tmp_path.parent / f"{tmp_path.name}-marks"
    marks.mkdir()
    proc = subprocess.Popen(
        [sys.executable, str(INTERRUPT_POINT), str(marks), point, *command],
        cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )
    return proc, marks


def interrupt_training(corpus: Path, tmp_path: Path, point: str, *extra: str) -> tuple[Path, list[str]]:
    """Start a long training made to wait at ``point``; once the main process waits there, send SIGINT to
    the whole group (as a terminal's Ctrl-C does), assert exit 130, and return (output folder, stderr lines).

    The run cannot end before the signal, nor the signal come before the run reaches the point."""
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    proc, marks = start_waiting(
        tmp_path, point, "train", str(corpus), "--vocab-size", "50000", "--workers", "2",
        "-o", str(out_dir / "big.json"), *(arg.format(out=out_dir) for arg in extra), cwd=tmp_path,
    )
    watcher = StderrWatcher(proc)
    try:
        wait_until(lambda: (marks / "main").exists() or proc.poll() is not None, f"the run to wait at {point}")
        assert proc.poll() is None, "".join(watcher.rest())
        if extra:
            assert os.listdir(out_dir) != []  # the events file's temporary file exists while training
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=60) == 130, "".join(watcher.rest())
    finally:
        proc.kill()
    lines = watcher.rest()
    assert lines[-1] == "bpe-tui train: interrupted; nothing was written\n"
    assert all(line.startswith(("reading:", "counting:", "merging:")) for line in lines[:-1]), lines
    return out_dir, lines


def test_sigint_while_merging_leaves_no_files(big_corpus: Path, tmp_path: Path) -> None:
    """SIGINT to the process group, as a terminal's Ctrl-C sends it, while merging: nothing may be written."""
    out_dir, lines = interrupt_training(big_corpus, tmp_path, "merging", "--events", "{out}/big.jsonl")
    assert any(line.startswith("merging: up to") for line in lines)
    assert not any(ESC in line for line in lines)
    assert os.listdir(out_dir) == []


def test_ctrl_c_to_the_process_group_while_reading_in_workers_is_one_line(big_corpus: Path, tmp_path: Path) -> None:
    """A terminal's Ctrl-C reaches the pre-tokenising workers too; they must not print tracebacks."""
    out_dir, lines = interrupt_training(big_corpus, tmp_path, "reading")
    assert not any(line.startswith("merging:") for line in lines)
    assert os.listdir(out_dir) == []
