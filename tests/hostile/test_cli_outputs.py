"""No command writes onto one of its own inputs, and none replaces an existing file without ``--force``.

``export CORPUS TOK -o CORPUS`` exited 0 having replaced the corpus with the ids, ``-o TOK`` did the same
to the tokenizer, and ``convert`` replaced a GPT-2 ``vocab.json`` without asking. Every output option of
every command is tried against every input it has, by the same path, another spelling of it, a symbolic
link and a hard link; then against an unrelated existing file, with and without ``--force``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from core.formats import load_tokenizer, save_tokenizer
from core.output_errors import OutputError
from tests.hostile.hostile_cases import digests, everything, one_error_line, run_here, small_tokenizer

CorpusCase = Callable[[Path], tuple[list[str | Path], dict[str, Path]]]


def _files(folder: Path) -> dict[str, Path]:
    """A corpus, a bpe-tui tokenizer, a GPT-2 pair (in a folder) and an unrelated file, under ``folder``."""
    corpus = folder / "corpus.txt"
    corpus.write_text("low lower lowest newer newest widest\n" * 20)
    gpt2 = small_tokenizer(folder, "gpt2").parent
    return {
        "corpus": corpus,
        "tok": small_tokenizer(folder),
        "gpt2": gpt2,
        "vocab": gpt2 / "vocab.json",
        "merges": gpt2 / "merges.txt",
        "other": _other(folder),
    }


def _other(folder: Path) -> Path:
    other = folder / "precious.bin"
    other.write_bytes(b"not to be lost")
    return other


# (command line with {OUT} where the output goes, the inputs it must never write over)
CASES: dict[str, tuple[Callable[[dict[str, Path]], list[str | Path]], list[str]]] = {
    "train -o": (lambda f: ["train", f["corpus"], "--vocab-size", "260", "-o", "{OUT}"], ["corpus"]),
    "train --events": (lambda f: ["train", f["corpus"], "--vocab-size", "260", "-o", f["corpus"].parent / "t.json",
                                  "--events", "{OUT}"], ["corpus"]),
    "export -o": (lambda f: ["export", f["corpus"], f["tok"], "-o", "{OUT}"], ["corpus", "tok"]),
    "export -o (GPT-2 tokenizer)": (lambda f: ["export", f["corpus"], f["vocab"], "-o", "{OUT}"],
                                    ["corpus", "vocab", "merges"]),
    "convert OUT": (lambda f: ["convert", f["tok"], "{OUT}", "--to", "bpe-tui"], ["tok"]),
    "convert OUT (GPT-2 in)": (lambda f: ["convert", f["vocab"], "{OUT}", "--to", "hf"], ["vocab", "merges"]),
    "convert OUT (GPT-2 merges in)": (lambda f: ["convert", f["merges"], "{OUT}", "--to", "tiktoken"],
                                      ["vocab", "merges"]),
}

SPELLINGS: dict[str, Callable[[Path, Path], Path]] = {
    "same path": lambda target, folder: target,
    "another spelling": lambda target, folder: target.parent / "." / ".." / target.parent.name / target.name,
    "symbolic link": lambda target, folder: _linked(folder / f"link-{target.name}", target, symbolic=True),
    "hard link": lambda target, folder: _linked(folder / f"hard-{target.name}", target, symbolic=False),
}


def _linked(link: Path, target: Path, *, symbolic: bool) -> Path:
    if symbolic:
        link.symlink_to(target)
    else:
        os.link(target, link)
    return link


def _argv(case: str, files: dict[str, Path], out: Path, *extra: str) -> list[str | Path]:
    make, _ = CASES[case]
    return [out if part == "{OUT}" else part for part in make(files)] + list(extra)


@pytest.mark.parametrize("force", [False, True], ids=["", "--force"])
@pytest.mark.parametrize("spelling", list(SPELLINGS))
@pytest.mark.parametrize("case", list(CASES))
def test_no_command_writes_onto_its_own_input(
    case: str, spelling: str, force: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(tmp_path)
    for name in CASES[case][1]:
        out = SPELLINGS[spelling](files[name], tmp_path)
        before = digests(tmp_path)
        listing = everything(tmp_path)
        argv = _argv(case, files, out, *(["--force"] if force else []))
        code, stdout, err = run_here(capsys, *argv)
        one_error_line(code, stdout, err, str(argv[0]), "choose another output file")
        assert digests(tmp_path) == before, f"{name} was changed"
        assert everything(tmp_path) == listing


def test_the_gpt2_folder_given_as_both_input_and_output_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    vocab_elsewhere = elsewhere / "vocab.json"  # its merges come from the output folder, by --merges
    vocab_elsewhere.write_bytes(files["vocab"].read_bytes())
    before = digests(tmp_path)
    for argv in (["convert", files["gpt2"], files["gpt2"], "--to", "gpt2", "--force"],
                 ["convert", files["vocab"], files["vocab"], "--to", "gpt2", "--force"],
                 ["convert", vocab_elsewhere, files["gpt2"], "--to", "gpt2", "--force", "--merges", files["merges"]]):
        code, out, err = run_here(capsys, *argv)
        one_error_line(code, out, err, "convert", "choose another output file")
    assert digests(tmp_path) == before


def test_events_and_tokenizer_cannot_be_one_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _files(tmp_path)
    code, out, err = run_here(capsys, "train", files["corpus"], "--vocab-size", "260", "-o", tmp_path / "t.json",
                              "--events", tmp_path / "." / "t.json")
    one_error_line(code, out, err, "train", "give two different files")
    assert not (tmp_path / "t.json").exists()


OVERWRITES: dict[str, Callable[[dict[str, Path], Path], list[str | Path]]] = {
    "train -o": lambda f, out: ["train", f["corpus"], "--vocab-size", "260", "-o", out],
    "train --events": lambda f, out: ["train", f["corpus"], "--vocab-size", "260", "-o", out.parent / "new.json",
                                      "--events", out],
    "export -o": lambda f, out: ["export", f["corpus"], f["tok"], "-o", out],
    "convert --to bpe-tui": lambda f, out: ["convert", f["tok"], out, "--to", "bpe-tui"],
    "convert --to hf": lambda f, out: ["convert", f["tok"], out, "--to", "hf"],
    "convert --to tiktoken": lambda f, out: ["convert", f["tok"], out, "--to", "tiktoken"],
}


@pytest.mark.parametrize("case", list(OVERWRITES))
def test_an_existing_file_is_replaced_only_with_force(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _files(tmp_path)
    other = files["other"]
    before = digests(tmp_path)
    code, out, err = run_here(capsys, *OVERWRITES[case](files, other))
    one_error_line(code, out, err, case.split()[0], f"{other} already exists; add --force to overwrite it")
    assert digests(tmp_path) == before
    code, out, err = run_here(capsys, *OVERWRITES[case](files, other), "--force")
    assert code == 0, err
    assert other.read_bytes() != b"not to be lost"
    assert not [name for name in everything(tmp_path) if ".bpe-tui." in name]  # no temporary left


def test_a_gpt2_pair_is_replaced_only_with_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The reported case: convert replaced a GPT-2 vocab.json without asking."""
    files = _files(tmp_path)
    target = tmp_path / "released"
    target.mkdir()
    (target / "vocab.json").write_text('{"kept": 0}')
    before = digests(tmp_path)
    code, out, err = run_here(capsys, "convert", files["tok"], target, "--to", "gpt2")
    one_error_line(code, out, err, "convert", "vocab.json already exists; add --force")
    assert digests(tmp_path) == before
    code, out, err = run_here(capsys, "convert", files["tok"], target / "vocab.json", "--to", "gpt2")
    one_error_line(code, out, err, "convert", "vocab.json already exists; add --force")
    code, out, err = run_here(capsys, "convert", files["tok"], target, "--to", "gpt2", "--force")
    assert code == 0, err
    assert load_tokenizer(target).vocab == load_tokenizer(files["tok"]).vocab


def test_a_train_default_output_in_the_working_folder_needs_force_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    Path("corpus-260.json").write_text("mine")
    code, out, err = run_here(capsys, "train", files["corpus"], "--vocab-size", "260")
    # It said "-o corpus-260.json already exists", naming an option that was never given.
    one_error_line(code, out, err, "train", "the default output (-o) corpus-260.json already exists; add --force")
    assert Path("corpus-260.json").read_text() == "mine"


def _fifo(folder: Path) -> Path:
    os.mkfifo(folder / "fifo")
    return folder / "fifo"


def _link_to_fifo(folder: Path) -> Path:
    """As ``/dev/stdout`` is with stdout a pipe: the rename replaced the link itself with a regular file."""
    (folder / "stdout").symlink_to(_fifo(folder))
    return folder / "stdout"


def _directory(folder: Path) -> Path:
    (folder / "dir").mkdir()
    return folder / "dir"


BAD_OUTPUTS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "a directory": (_directory, "is a directory"),
    "a FIFO (even with --force)": (_fifo, "named pipe"),
    "a link to a FIFO (even with --force)": (_link_to_fifo, "leads to a named pipe"),
    "a missing folder": (lambda folder: folder / "missing" / "out.bin", "does not exist; create it first"),
    "a path through a file": (lambda folder: _other(folder) / "out.bin", "is not a directory"),
    "a name too long": (lambda folder: folder / ("n" * 300), "too long"),
    "a path too long": (lambda folder: folder.joinpath(*["d" * 200] * 25, "out.bin"), "too long"),
}


@pytest.mark.parametrize("what", list(BAD_OUTPUTS))
@pytest.mark.parametrize("case", list(OVERWRITES))
def test_an_output_that_cannot_be_written_is_refused_before_any_work(
    case: str, what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _files(tmp_path)
    make, fragment = BAD_OUTPUTS[what]
    out = make(tmp_path)
    before, listing = digests(tmp_path), everything(tmp_path)
    code, stdout, err = run_here(capsys, *OVERWRITES[case](files, out), "--force")
    if case == "convert --to hf" and what == "a directory":
        assert code == 0 and (out / "tokenizer.json").is_file()  # documented: a folder gets tokenizer.json
        return
    one_error_line(code, stdout, err, case.split()[0], fragment)
    assert digests(tmp_path) == before and everything(tmp_path) == listing


@pytest.mark.parametrize("link", [False, True])
def test_the_library_never_replaces_what_is_not_a_regular_file(link: bool, tmp_path: Path) -> None:
    """``save_tokenizer(model, "/dev/null")`` run as root (in a container, say) replaced the device with a file."""
    target = _fifo(tmp_path)
    if link:
        (tmp_path / "link").symlink_to(target)
        target = tmp_path / "link"
    with pytest.raises(OutputError, match="named pipe .FIFO.; only a regular file is ever replaced$"):
        save_tokenizer(load_tokenizer(small_tokenizer(tmp_path)), target, format="bpe-tui")
    assert stat.S_ISFIFO(os.stat(target).st_mode)
    assert everything(tmp_path) == sorted(["fifo", "tok.json"] + (["link"] if link else []))


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write to any folder: a read-only folder cannot be made")
def test_a_read_only_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _files(tmp_path)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        code, out, err = run_here(capsys, "train", files["corpus"], "--vocab-size", "260", "-o", locked / "t.json")
        one_error_line(code, out, err, "train", "not writable")
    finally:
        locked.chmod(0o700)


@pytest.mark.parametrize("command", ["train", "export", "convert"])
def test_force_is_documented_in_each_writing_command(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_here(capsys, command, "--help")
    assert code == 0
    assert "--force" in out and "overwrite" in out and "never" in out


@pytest.mark.parametrize("case", [*OVERWRITES, "convert --to gpt2"])
def test_dash_is_not_taken_for_a_file_named_dash(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``-o -`` (standard output to many tools) wrote a file named '-' in the working folder, with --force too."""
    files = _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    argv = OVERWRITES.get(case, lambda f, out: ["convert", f["tok"], out, "--to", "gpt2"])(files, Path("-"))
    before = digests(tmp_path)
    code, out, err = run_here(capsys, *argv, "--force")
    one_error_line(code, out, err, case.split()[0], "-: ", "writes a file, not standard output; give a file name")
    assert digests(tmp_path) == before


def test_decode_to_dash_is_standard_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    files = _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    Path("ids.txt").write_text("104 105\n")
    before = digests(tmp_path)
    assert run_here(capsys, "decode", files["tok"], "ids.txt", "-o", "-") == (0, "hi", "")
    assert digests(tmp_path) == before


@pytest.mark.parametrize("case", ["train -o --events", "export -o", "convert --to gpt2"])
def test_outputs_saved_together_are_renamed_under_the_folders_lock(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Files that belong together are renamed while their folder is locked against another save of a group
    there (core.atomic), so that two runs writing the same outputs at once leave one run's files: train's
    tokenizer and events file were two saves of their own, so one run's events could end beside the
    other's tokenizer."""
    import fcntl

    from core import atomic

    files = _files(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    argv = {
        "train -o --events": ["train", files["corpus"], "--vocab-size", "260", "-o", out / "t.json",
                              "--events", out / "t.jsonl"],
        "export -o": ["export", files["corpus"], files["tok"], "-o", out / "ids.npy"],
        "convert --to gpt2": ["convert", files["tok"], out, "--to", "gpt2", "--force"],
    }[case]
    commit, locked = atomic._commit, []

    def renamed_while_locked(temp: Path, target: Path) -> None:
        descriptor = os.open(target.parent, os.O_RDONLY)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            locked.append(False)
        except BlockingIOError:
            locked.append(True)
        finally:
            os.close(descriptor)
        commit(temp, target)

    monkeypatch.setattr(atomic, "_commit", renamed_while_locked)
    code, _, err = run_here(capsys, *argv)
    assert code == 0, err
    assert locked == [True, True]
