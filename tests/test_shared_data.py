"""Finding the shared data: ``BPE_TUI_SHARED`` or ``../shared``, and tests that skip, naming what is missing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks.shared_data import ENV, REPO, data_dir, shared_root
from tests.data_paths import GPT2_MERGES, GPT2_VOCAB, shared_path


def test_the_variable_names_the_folder_holding_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(ENV, str(tmp_path))
    assert shared_root() == tmp_path and data_dir() == tmp_path / "data"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(ENV, "elsewhere")  # relative: from the current directory
    assert data_dir() == tmp_path / "elsewhere" / "data"


@pytest.mark.parametrize("value", [None, ""])
def test_without_the_variable_it_is_shared_beside_the_repository(monkeypatch: pytest.MonkeyPatch, value) -> None:
    if value is None:
        monkeypatch.delenv(ENV, raising=False)
    else:
        monkeypatch.setenv(ENV, value)
    assert data_dir() == REPO.parent / "shared" / "data"


def test_a_missing_file_skips_naming_it_and_how_to_get_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(ENV, str(tmp_path))
    with pytest.raises(pytest.skip.Exception) as skipped:
        shared_path("corpora", "tinystories_2M.txt")
    reason = str(skipped.value)
    assert str(tmp_path / "data" / "corpora" / "tinystories_2M.txt") in reason
    assert ENV in reason and "README" in reason


def test_a_present_file_is_returned(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    corpus = tmp_path / "data" / "corpora" / "tiny.txt"
    corpus.parent.mkdir(parents=True)
    corpus.write_text("hello\n", encoding="utf-8")
    monkeypatch.setenv(ENV, str(tmp_path))
    assert shared_path("corpora", "tiny.txt") == corpus


def test_gpt2_files_are_bundled_whatever_the_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(ENV, str(tmp_path))
    assert GPT2_VOCAB.stat().st_size > 1_000_000 and GPT2_MERGES.stat().st_size > 400_000
    assert GPT2_VOCAB.parent == REPO / "samples" / "gpt2"


def test_the_cs336_fixture_serves_only_cs336_files() -> None:
    # The shared_data fixture skips when data/cs336 is missing; a test that read a corpus through it failed
    # instead of skipping with only the CS336 fixtures in place (the README's first step), and without any
    # data it skipped naming data/cs336, not the corpus it needed. Corpora go through shared_path.
    uses = []
    for path in sorted((REPO / "tests").rglob("*.py")):
        for line_number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for match in re.finditer(r"shared_data\s*/\s*(\"[^\"]*\")", line):
                uses.append((path.relative_to(REPO).as_posix(), line_number, match.group(1)))
    assert uses, "no test reads data/cs336 through the fixture any more: this test is out of date"
    assert [use for use in uses if use[2] != '"cs336"'] == []
