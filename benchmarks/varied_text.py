"""Varied English for the benchmarks, gathered at run time from free texts already on the machine.

TinyStories has a tiny vocabulary (about 7,000 distinct pre-tokens in 2 MB), which flatters a pre-token
cache. Real text has many more, so the encoding and export benchmarks also run on:

* ``tinyshakespeare.txt`` (shared corpora): a play, archaic spelling, 15,000 distinct pre-tokens in 1.1 MB;
* *Python docs*: the reference-manual topics that Python ships for ``help()`` (``pydoc_data.topics``,
  under the PSF licence): technical prose with code;
* *varied English*: tinyshakespeare, the Python docs, Python's own ``LICENSE.txt`` and the licence texts
  in ``/usr/share/common-licenses`` (GPL, Apache, MPL...; Debian), joined by blank lines: about 1.9 MB
  and 21,500 distinct pre-tokens.

Nothing is downloaded or copied into the repository; a part missing on this machine is left out, and
:func:`varied_parts` says which parts were used.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

LICENCES = Path("/usr/share/common-licenses")
PYDOC_TOPICS = "pydoc:topics"
"""Stands, in a list of parts, for Python's ``pydoc_data.topics`` (not a file)."""


def python_docs() -> str:
    """The text of every topic of Python's ``help()``, sorted by name, joined by blank lines ("" if absent)."""
    try:
        from pydoc_data.topics import topics
    except ImportError:
        return ""
    return "\n\n".join(topics[name] for name in sorted(topics))


def varied_parts(shakespeare: Path) -> list[str]:
    """The parts of *varied English* present here: file paths, and :data:`PYDOC_TOPICS`."""
    parts = [str(shakespeare)] if shakespeare.is_file() else []
    if python_docs():
        parts.append(PYDOC_TOPICS)
    python_licence = Path(sysconfig.get_paths()["stdlib"]) / "LICENSE.txt"
    if python_licence.is_file():
        parts.append(str(python_licence))
    if LICENCES.is_dir():
        parts += sorted(str(p) for p in LICENCES.iterdir() if p.is_file() and not p.is_symlink())
    return parts


def joined(parts: list[str]) -> str:
    """The text of ``parts`` (paths or :data:`PYDOC_TOPICS`) joined by blank lines.

    >>> import tempfile; d = Path(tempfile.mkdtemp()); _ = (d / "a").write_text("one"); _ = (d / "b").write_text("two")
    >>> joined([str(d / "a"), str(d / "b")])
    'one\\n\\ntwo'
    """
    return "\n\n".join(python_docs() if part == PYDOC_TOPICS else Path(part).read_text(encoding="utf-8")
                       for part in parts)


def write_varied(shakespeare: Path, folder: Path, copies: int = 1, separator: str = "<|endoftext|>") -> Path:
    """Write ``copies`` copies of *varied English* joined by ``separator`` into ``folder``; return the path."""
    text = joined(varied_parts(shakespeare))
    out = folder / (f"varied-english-x{copies}.txt" if copies > 1 else "varied-english.txt")
    out.write_text(separator.join([text] * copies), encoding="utf-8")
    return out
