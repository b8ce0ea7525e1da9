"""Where the bundled sample corpora live, found without importing the UI package.

In a checkout they are ``samples/`` beside the ``core`` package; in an installed wheel they are packaged
as ``bpe_tui/_samples``. The wheel location is found through the import system's spec for ``bpe_tui``,
which locates the package without running its code, so the core still never loads Textual.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

SAMPLE_NAMES = ("english", "japanese", "mixed")
"""The prose samples used for bytes-per-token figures, in display order (``toy.txt`` is for tests)."""


def _candidates() -> list[Path]:
    folders = [Path(__file__).resolve().parent.parent / "samples"]
    spec = importlib.util.find_spec("bpe_tui")
    if spec is not None and spec.submodule_search_locations:
        folders += [Path(location) / "_samples" for location in spec.submodule_search_locations]
    return folders


def samples_dir() -> Path | None:
    """The bundled samples folder, or ``None`` when this installation has none.

    >>> folder = samples_dir()
    >>> folder is None or (folder / "english.txt").is_file()
    True
    """
    for folder in _candidates():
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
