"""Checks shared by the library API and the CLI: how many worker processes make sense, and paths as UTF-8.

The CLI refuses these up front; the library refuses them the same way, so a script that calls
``TrainingRun`` or ``save_tokenizer`` directly meets a one-line :class:`~core.errors.SettingsError` naming
its argument instead of ``select()`` running out of file descriptors, or a ``UnicodeEncodeError`` when the
tokenizer (which records its corpus path as UTF-8 text) is saved after a whole training run.
"""

from __future__ import annotations

import os

from core.errors import SettingsError
from core.input_files import shown_path

MAX_WORKERS_PER_CPU = 4
MAX_WORKERS = 256
"""More workers than ``min(4 x CPUs, 256)`` are refused: more processes than that only wait for a core,
and a thousand of them run out of file descriptors (``select()`` takes at most 1,024)."""


def max_workers() -> int:
    """The most worker processes this machine accepts: 4 per CPU, at most 256.

    >>> 4 <= max_workers() <= 256
    True
    """
    return min(MAX_WORKERS_PER_CPU * (os.cpu_count() or 1), MAX_WORKERS)


def workers_problem(count: int) -> str | None:
    """What is wrong with ``count`` worker processes, or None if this machine can use them.

    >>> workers_problem(1) is None
    True
    >>> workers_problem(0)
    '0 processes: give at least 1'
    """
    if count < 1:
        return f"{count} processes: give at least 1"
    limit = max_workers()
    if count > limit:
        return (
            f"{count:,} processes are more than this machine can use ({MAX_WORKERS_PER_CPU} per CPU, "
            f"at most {MAX_WORKERS}); give {limit} or fewer"
        )
    return None


def check_workers(workers: object, argument: str = "workers") -> int:
    """``workers`` if it is a whole number this machine can use, else a SettingsError naming ``argument``.

    >>> check_workers(2)
    2
    >>> check_workers(100_000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    core.errors.SettingsError: workers=100000: 100,000 processes are more than this machine can use ...
    """
    if not isinstance(workers, int) or isinstance(workers, bool):
        raise SettingsError(f"{argument} must be a whole number of processes, not {type(workers).__name__}")
    problem = workers_problem(workers)
    if problem is not None:
        raise SettingsError(f"{argument}={workers}: {problem}")
    return workers


def undecodable_byte(text: str) -> int | None:
    """The first byte of ``text`` that was not UTF-8, or None.

    Python keeps such a byte (in ``sys.argv``, ``os.listdir`` or ``os.fsdecode``) as a lone surrogate
    U+DC80..U+DCFF; any other lone surrogate cannot be encoded either, and is returned as its code point.

    >>> undecodable_byte("caf\\udce9.txt")
    233
    >>> undecodable_byte("café.txt") is None
    True
    """
    for ch in text:
        if 0xDC80 <= ord(ch) <= 0xDCFF:
            return ord(ch) - 0xDC00
        if 0xD800 <= ord(ch) <= 0xDFFF:
            return ord(ch)
    return None


def utf8_name_problem(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot be recorded as UTF-8 text (its shown form, the byte and the fix), or None.

    >>> utf8_name_problem("caf\\udce9.txt")
    'caf\\\\xe9.txt: the name is not valid UTF-8 (byte 0xe9); rename the file'
    """
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    bad = undecodable_byte(text)
    if bad is None:
        return None
    return f"{shown_path(text)}: the name is not valid UTF-8 (byte 0x{bad:02x}); rename the file"


def check_utf8_path(path: str | os.PathLike[str], argument: str) -> None:
    """Refuse a path whose name is not valid UTF-8, with a SettingsError naming ``argument``.

    >>> check_utf8_path("corpus.txt", "input_path")
    >>> check_utf8_path("caf\\udce9.txt", "input_path")
    Traceback (most recent call last):
    core.errors.SettingsError: input_path caf\\xe9.txt: the name is not valid UTF-8 (byte 0xe9); rename the file
    """
    problem = utf8_name_problem(path)
    if problem is not None:
        raise SettingsError(f"{argument} {problem}")
