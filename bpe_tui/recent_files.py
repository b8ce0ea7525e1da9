"""Corpus files used lately, kept in a small JSON file under the user's config folder (no Textual here).

``$XDG_CONFIG_HOME/bpe-tui/recent.json`` (``~/.config/bpe-tui/recent.json`` when the variable is unset or
empty), written atomically. A missing, unreadable or damaged file is an empty list, never an error: the list
is a convenience, and a broken one must not stop the app.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from core.atomic import atomic_write_text

MAX_RECENT = 10
"""Files remembered; the oldest drops off."""


def recent_file(environ: Mapping[str, str] | None = None) -> Path:
    """Where the list is kept.

    >>> str(recent_file({"XDG_CONFIG_HOME": "/cfg"}))
    '/cfg/bpe-tui/recent.json'
    >>> recent_file({"XDG_CONFIG_HOME": "", "HOME": "/home/ann"}) == Path("/home/ann/.config/bpe-tui/recent.json")
    True
    """
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".config")
    return Path(base) / "bpe-tui" / "recent.json"


def load_recent(store: Path) -> list[Path]:
    """The remembered corpus files, newest first (only strings are kept from the file; no error ever)."""
    try:
        data = json.loads(store.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return []
    files = data.get("corpora") if isinstance(data, dict) else None
    if not isinstance(files, list):
        return []
    return [Path(item) for item in files if isinstance(item, str) and item][:MAX_RECENT]


def remember(store: Path, corpus: Path) -> list[Path]:
    """Put ``corpus`` (made absolute) first in the list, save it, and return the new list.

    Saving failures (a read-only home) are ignored: the list still holds the file for this session's caller.
    """
    corpus = corpus.expanduser().absolute()
    files = [corpus] + [path for path in load_recent(store) if path != corpus]
    files = files[:MAX_RECENT]
    try:
        store.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(store, json.dumps({"corpora": [str(path) for path in files]}, indent=1) + "\n")
    except OSError:
        pass
    return files
