"""Completing a typed file path, as a shell's Tab does: ``~`` expanded for listing but kept in the text.

No Textual here: the corpus pane's path box calls :func:`complete_path` on Tab.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MAX_LISTED = 200
"""Folder entries read at most, so Tab in a folder of a million files stays quick."""


@dataclass(frozen=True)
class Completion:
    """What Tab does to the typed text.

    Attributes:
        text: the text after completing (the same when there is nothing to add).
        matches: names of the entries that start with what was typed (folders end in ``/``), sorted.
    """

    text: str
    matches: tuple[str, ...]


def complete_path(typed: str) -> Completion:
    """Extend ``typed`` to the longest prefix shared by the entries it can name; a lone folder gains ``/``.

    Hidden entries are offered only when the typed name starts with a dot.

    >>> import tempfile; folder = tempfile.mkdtemp()
    >>> for name in ("corpus_en.txt", "corpus_ja.txt"):
    ...     _ = open(os.path.join(folder, name), "w").close()
    >>> os.mkdir(os.path.join(folder, "data"))
    >>> complete_path(folder + "/co").text == folder + "/corpus_"
    True
    >>> complete_path(folder + "/co").matches
    ('corpus_en.txt', 'corpus_ja.txt')
    >>> complete_path(folder + "/d").text == folder + "/data/"
    True
    """
    head, _, name = typed.rpartition("/")
    if "/" in typed:
        head += "/"
    folder = Path(os.path.expanduser(head or "."))
    if typed in ("~",):
        return Completion("~/", ())
    try:
        entries = []
        with os.scandir(folder) as scan:
            for entry in scan:
                if entry.name.startswith(name) and (name.startswith(".") or not entry.name.startswith(".")):
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    entries.append(entry.name + ("/" if is_dir else ""))
                if len(entries) >= MAX_LISTED:
                    break
    except OSError:
        return Completion(typed, ())
    matches = tuple(sorted(entries))
    if not matches:
        return Completion(typed, ())
    common = os.path.commonprefix(list(matches))
    return Completion(head + common, matches)
