"""Where the data that the repository cannot ship lives, for the tests and the benchmarks alike.

The tests and the benchmarks read real corpora and the CS336 reference files from a folder ``data/``
outside the repository (see the README, "Tests and data"). That ``data/`` is in the folder named by the
environment variable ``BPE_TUI_SHARED``, and without the variable in ``../shared`` beside the repository:

* ``BPE_TUI_SHARED=/srv/bpe`` reads ``/srv/bpe/data/corpora/tinystories_2M.txt`` and so on;
* unset (or empty): ``<repository>/../shared/data/...``, where our machines keep it;
* pointing at an empty folder: nothing is found, and whatever needs the data skips (tests) or stops
  with exit status 2 (benchmarks), naming the missing path.

The variable names the folder that *holds* ``data/``, as ``../shared`` does, so one value works for both.
This module imports nothing from the project: the tests import it as ``benchmarks.shared_data``, the
benchmark scripts as ``shared_data``.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "BPE_TUI_SHARED"
"""The environment variable that names the folder holding ``data/``."""

REPO = Path(__file__).resolve().parent.parent

HOW_TO_GET = (
    f"set {ENV} to the folder that holds data/ (default: ../shared beside the repository); "
    "the README's section 'Tests and data' says what goes there and where to get it"
)
"""The second half of every message about missing data."""


def shared_root() -> Path:
    """The folder that holds ``data/``: ``$BPE_TUI_SHARED``, else ``../shared`` beside the repository.

    Read from the environment at each call, so a test can change it; a relative path is taken from the
    current directory.
    """
    value = os.environ.get(ENV, "")
    return Path(value).expanduser().absolute() if value else REPO.parent / "shared"


def data_dir() -> Path:
    """The shared ``data/`` folder (it may not exist).

    >>> data_dir().relative_to(shared_root()).as_posix()
    'data'
    """
    return shared_root() / "data"


def missing_message(path: Path) -> str:
    """Why ``path`` cannot be read, and what to do about it: one line.

    >>> missing_message(Path("/srv/bpe/data/corpora/x.txt")).split(";")[0]
    '/srv/bpe/data/corpora/x.txt is missing'
    """
    return f"{path} is missing; {HOW_TO_GET}"
