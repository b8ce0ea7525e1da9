"""Where the bundled sample corpora live: ``samples/`` in a checkout, ``bpe_tui/_samples`` in a wheel."""

from __future__ import annotations

from pathlib import Path

SAMPLE_NAMES = ("english", "japanese", "mixed")
"""The prose samples used for bytes-per-token figures, in display order (``toy.txt`` is for tests)."""

TOKENIZER_FOLDERS = ("gpt2",)
"""Folders of the samples that hold tokenizer files, not corpora: ``gpt2/`` has GPT-2's ``vocab.json`` and
``merges.txt``, bundled for the tests that compare with tiktoken. The corpus pane does not list them."""

LENS_FILES = ("word_counts.txt", "parallel.txt")
"""Sample files that lenses read and that are not corpora to train on: ``word_counts.txt`` is the pairs
and wordpiece lenses' word-frequency corpus (``word count`` a line), ``parallel.txt`` the budget lens's
English/Japanese sentence pair. The corpus pane does not list them."""

_CANDIDATES = (Path(__file__).resolve().parent.parent / "samples", Path(__file__).resolve().parent / "_samples")


def samples_dir() -> Path | None:
    """The bundled samples folder, or ``None`` when this installation has none.

    >>> folder = samples_dir()
    >>> folder is None or (folder / "english.txt").is_file()
    True
    """
    for folder in _CANDIDATES:
        if (folder / "english.txt").is_file():
            return folder
    return None


def sample_paths() -> dict[str, Path]:
    """``{"english": path, ...}`` for each of :data:`SAMPLE_NAMES` that exists (empty without samples).

    >>> set(sample_paths()) <= set(SAMPLE_NAMES)
    True
    """
    folder = samples_dir()
    if folder is None:
        return {}
    return {name: folder / f"{name}.txt" for name in SAMPLE_NAMES if (folder / f"{name}.txt").is_file()}


def not_corpora(folder: Path | None) -> frozenset[Path]:
    """The paths in the samples ``folder`` that are not corpora (:data:`TOKENIZER_FOLDERS`, :data:`LENS_FILES`).

    >>> sorted(p.as_posix() for p in not_corpora(Path("samples"))), not_corpora(None)
    (['samples/gpt2', 'samples/parallel.txt', 'samples/word_counts.txt'], frozenset())
    """
    if folder is None:
        return frozenset()
    return frozenset(folder / name for name in TOKENIZER_FOLDERS + LENS_FILES)
