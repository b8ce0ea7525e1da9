"""Special files and broken paths as inputs: every command refuses them in one line, and nothing blocks.

A FIFO with no writer, ``/dev/zero`` and ``/dev/urandom`` used to hang a command until Ctrl-C, and a
``/proc`` file (size 0, content all the same) was trained as an empty file with exit status 0. Paths too
long for the file system, through a file, or round a symlink loop gave tracebacks. Each kind of path is
tried in each role a path plays: corpus, text to encode, tokenizer, merges file.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bpe_tui.launch import UsageError, sort_paths
from core.analysis.corpus_stats import preview_text, scan_corpus
from core.errors import BPEError, CorpusError, TokenizerFileError
from core.formats import load_tokenizer
from core.input_files import check_regular_file, shown_path
from core.train.reading import check_corpus_path
from tests.hostile.hostile_cases import ENGLISH, digests, one_error_line, run_child, run_here, small_tokenizer


def _sys_file() -> Path | None:
    """A /sys file whose size (4096) is not its length, if this system has one."""
    for candidate in ("/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/profiling", "/sys/power/state"):
        path = Path(candidate)
        try:
            if path.stat().st_size == 4096 and 0 < len(path.read_bytes()) < 4096:
                return path
        except OSError:
            continue
    return None


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A folder with a short path: a Unix socket's path must fit in about 100 bytes."""
    folder = Path(tempfile.mkdtemp(prefix="bpe-h-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder)


def _fifo(folder: Path) -> Path:
    os.mkfifo(folder / "fifo")
    return folder / "fifo"


def _socket(folder: Path) -> Path:
    path = folder / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()  # the socket file stays
    return path


def _loop(folder: Path) -> Path:
    (folder / "a").symlink_to(folder / "b")
    (folder / "b").symlink_to(folder / "a")
    return folder / "a"


def _link_to_fifo(folder: Path) -> Path:
    (folder / "link").symlink_to(_fifo(folder))
    return folder / "link"


def _device(name: str) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        if not Path(name).exists():
            pytest.skip(f"{name} does not exist here")
        return Path(name)

    return make


def _sys(folder: Path) -> Path:
    found = _sys_file()
    if found is None:
        pytest.skip("no /sys file of size 4096 with shorter content on this system")
    return found


def _proc(folder: Path) -> Path:
    if not Path("/proc/self/status").exists():
        pytest.skip("no /proc here")
    return Path("/proc/self/status")


def _empty_dir(folder: Path) -> Path:
    (folder / "dir").mkdir()
    return folder / "dir"


def _through_a_file(folder: Path) -> Path:
    (folder / "plain.txt").write_text("x")
    return folder / "plain.txt" / "inside"


def _long_name(folder: Path) -> Path:
    return folder / ("n" * 300)


def _long_path(folder: Path) -> Path:
    return folder.joinpath(*["d" * 200] * 25)  # 5,000 characters: more than PATH_MAX


def _dangling(folder: Path) -> Path:
    (folder / "dangling").symlink_to(folder / "gone")
    return folder / "dangling"


def _unreadable(folder: Path) -> Path:
    if os.geteuid() == 0:
        pytest.skip("root reads any file: a permission error cannot be made")
    path = folder / "secret.txt"
    path.write_text("secret")
    path.chmod(0)
    return path


KINDS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "FIFO without a writer": (_fifo, "named pipe"),
    "symlink to a FIFO": (_link_to_fifo, "named pipe"),
    "/dev/zero": (_device("/dev/zero"), "character device"),
    "/dev/urandom": (_device("/dev/urandom"), "character device"),
    "/dev/null": (_device("/dev/null"), "character device"),
    "/proc file": (_proc, "size reads 0 bytes but it has content"),
    "/sys file": (_sys, "content ends sooner"),
    "socket": (_socket, "socket"),
    "name too long": (_long_name, "too long"),
    "path too long": (_long_path, "too long"),
    "path through a file": (_through_a_file, "not a directory"),
    "symlink loop": (_loop, "symbolic links"),
    "dangling symlink": (_dangling, "a symbolic link to"),
    "unreadable": (_unreadable, "permission denied"),
}

CORPUS_KINDS = {**KINDS, "directory": (_empty_dir, "is a directory")}


def _roles(tok: Path, gpt2_vocab: Path, corpus: Path, out: Path) -> dict[str, Callable[[Path], list[str | Path]]]:
    return {
        "train CORPUS": lambda p: ["train", p, "--vocab-size", "300", "-o", out],
        "export CORPUS": lambda p: ["export", p, tok, "-o", out],
        "encode FILE": lambda p: ["encode", tok, p],
        "export TOKENIZER": lambda p: ["export", corpus, p, "-o", out],
        "encode TOKENIZER": lambda p: ["encode", p, corpus],
        "inspect TOKENIZER": lambda p: ["inspect", p, "--no-samples"],
        "convert IN": lambda p: ["convert", p, out, "--to", "hf"],
        "encode --merges": lambda p: ["encode", gpt2_vocab, corpus, "--merges", p],
    }


ROLES = ["train CORPUS", "export CORPUS", "encode FILE", "export TOKENIZER", "encode TOKENIZER",
         "inspect TOKENIZER", "convert IN", "encode --merges"]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("kind", list(CORPUS_KINDS))
def test_every_command_refuses_special_and_broken_paths_in_one_line(
    kind: str, role: str, short_dir: Path, capsys: pytest.CaptureFixture[str], deadline: None
) -> None:
    make, fragment = CORPUS_KINDS[kind]
    files = short_dir
    tok = small_tokenizer(files)
    gpt2_vocab = small_tokenizer(files, "gpt2")
    (files / "gpt2" / "merges.txt").rename(files / "gpt2-merges-elsewhere.txt")  # so --merges is read
    corpus = files / "corpus.txt"
    corpus.write_text("low lower lowest\n")
    path = make(files)
    before = digests(files)
    argv = _roles(tok, gpt2_vocab, corpus, files / "out.bin")[role](path)
    command = str(argv[0])
    code, out, err = run_here(capsys, *argv)
    if kind == "directory" and "TOKENIZER" in role or kind == "directory" and role == "convert IN":
        fragment = "holds no tokenizer.json"
    if kind == "directory" and role in ("train CORPUS", "export CORPUS"):
        fragment = "the folder holds no corpus shard"  # a folder is a corpus of shards; this one is empty
    line = one_error_line(code, out, err, command, fragment)
    assert shown_path(path) in line
    assert digests(files) == before  # nothing written, nothing changed


def test_a_trained_proc_file_is_no_longer_an_empty_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not Path("/proc/self/status").exists():
        pytest.skip("no /proc here")
    code, out, err = run_here(capsys, "train", "/proc/self/status", "--vocab-size", "300", "-o", tmp_path / "t.json")
    one_error_line(code, out, err, "train", "/proc/self/status", "copy its content to a regular file")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["FIFO without a writer", "/dev/zero", "/dev/urandom", "/proc file", "socket"])
def test_the_library_refuses_them_too(kind: str, short_dir: Path, deadline: None) -> None:
    path = KINDS[kind][0](short_dir)
    with pytest.raises(CorpusError):
        check_corpus_path(path)
    with pytest.raises(TokenizerFileError):
        load_tokenizer(path)
    with pytest.raises(TokenizerFileError):
        load_tokenizer(small_tokenizer(short_dir, "gpt2") / "vocab.json", merges_path=path)
    # The corpus pane shows these messages as they are: one line, naming the path once.
    with pytest.raises(CorpusError, match="not a regular file|size reads"):
        list(scan_corpus(path))
    with pytest.raises(CorpusError, match="not a regular file|size reads"):
        preview_text(path)


def test_load_tokenizer_of_dev_zero_does_not_hang(deadline: None) -> None:
    with pytest.raises(TokenizerFileError, match="/dev/zero: is a character device"):
        load_tokenizer("/dev/zero")


def test_a_fifo_swapped_in_after_the_check_is_caught_without_blocking(
    short_dir: Path, monkeypatch: pytest.MonkeyPatch, deadline: None
) -> None:
    """The path is checked with stat, then opened non-blocking and checked again with fstat: a FIFO put
    there between the two (here: stat made to see a regular file) is refused, and the open does not wait."""
    fifo = _fifo(short_dir)
    real_stat = os.stat

    def stale_stat(path, *args, **kwargs):
        result = real_stat(path, *args, **kwargs)
        if Path(path) == fifo:
            return os.stat_result((stat.S_IFREG | 0o644, *result[1:]))
        return result

    monkeypatch.setattr("core.input_files.os.stat", stale_stat)
    with pytest.raises(BPEError, match="named pipe"):
        check_regular_file(fifo)


def test_encode_suggests_stdin_for_a_fifo_and_reads_stdin(tmp_path: Path) -> None:
    tok = small_tokenizer(tmp_path)
    os.mkfifo(tmp_path / "fifo")
    result = run_child("encode", tok, tmp_path / "fifo", cwd=tmp_path)
    one_error_line(result.returncode, result.stdout, result.stderr, "encode", "pipe it into stdin with - instead")
    piped = run_child("encode", tok, "-", "--count", cwd=tmp_path)
    assert piped.returncode == 0 and piped.stdout == "0\n"


def test_decode_on_a_fifo_suggests_what_works_for_text_ids_and_for_npy(tmp_path: Path) -> None:
    # It said "pipe it into stdin with - instead", and stdin takes text ids only: a .npy piped in is refused.
    tok = small_tokenizer(tmp_path)
    os.mkfifo(tmp_path / "fifo")
    result = run_child("decode", tok, tmp_path / "fifo", cwd=tmp_path)
    one_error_line(result.returncode, result.stdout, result.stderr, "decode",
                   "pipe text ids into stdin with - instead, or copy a .npy to a regular file first")


def test_regular_files_and_links_to_them_still_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "english.txt"
    corpus.write_bytes(ENGLISH.read_bytes())
    (tmp_path / "link.txt").symlink_to(corpus)
    (tmp_path / "empty.txt").write_text("")
    tok = small_tokenizer(tmp_path)
    assert run_here(capsys, "encode", tok, tmp_path / "link.txt", "--count")[0] == 0
    assert run_here(capsys, "train", tmp_path / "empty.txt", "--vocab-size", "256", "-o", tmp_path / "e.json")[0] == 0
    assert check_corpus_path(tmp_path / "link.txt") == tmp_path / "link.txt"


def test_the_app_sorts_a_fifo_without_opening_it(short_dir: Path, deadline: None) -> None:
    """``bpe-tui PATH`` peeks into a file to tell a tokenizer from a corpus: never into a FIFO (it would wait).
    The FIFO is offered as a corpus, and the corpus pane refuses it with the message above."""
    tokenizers, corpora = sort_paths([_fifo(short_dir)])
    assert (tokenizers, corpora) == ([], [short_dir / "fifo"])


@pytest.mark.parametrize("kind", ["name too long", "path too long", "path through a file", "symlink loop"])
def test_the_app_refuses_broken_paths_in_one_line(kind: str, short_dir: Path) -> None:
    path = KINDS[kind][0](short_dir)
    with pytest.raises(UsageError, match=KINDS[kind][1]):
        sort_paths([path])
