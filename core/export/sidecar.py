"""The sidecar of an id file: ``IDS.npy.json``, saying which tokenizer made the ids, and from what corpus.

An array of ids is only meaningful with the tokenizer that made it: ids from another tokenizer, or from
the same one with a merge removed, are valid integers all the same, and a model trained on them learns
nonsense without any error. So every array an export writes gets this small JSON file beside it, saved
together with the array (both or neither: :func:`core.atomic.atomic_group`), and ``bpe-tui verify``
checks the three against each other (:mod:`core.export.verify`).

Its fields, exactly::

    format            "bpe-tui ids sidecar 1" (what this file is, and which version of this layout)
    fingerprint       the tokenizer's fingerprint (core.fingerprint), the identity that matters
    tokenizer_name    its display name (informative only: two names can share a fingerprint)
    vocab_size        its number of tokens
    special_tokens    its special tokens
    dtype, tokens     the array's id type ("uint16"/"uint32") and length
    corpus_path       the corpus as given, made absolute when the export ran (a URL stays as it is)
    corpus_bytes      its size on disk
    corpus_sha256     its SHA-256
    bpe_tui_version   the version that wrote the file
    created           when, in UTC (ISO 8601, to the second)

For a corpus of shards (a folder, a glob, JSON lines, Parquet, compressed files) the corpus fields
describe the shards as stored: ``corpus_path`` is the corpus as given (the folder, the glob pattern, the
file or the URL), ``corpus_bytes`` the shards' sizes on disk added up (compressed, where they are), and
``corpus_sha256`` the SHA-256 of the shards' stored bytes one after another in corpus order (for one
shard, the file's own SHA-256: ``sha256sum`` agrees; for several, ``cat`` them in that order first). With
``export --per-shard`` each array's sidecar describes its own shard. The digest is taken while the
export runs (:class:`core.export.corpus_digest.ShardsDigest`).
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import os
import re
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from core.corpus.shards import is_url
from core.errors import BPEError
from core.fingerprint import fingerprint
from core.input_files import check_regular_file, os_problem, shown_path
from core.model import BPEModel

SIDECAR_FORMAT = "bpe-tui ids sidecar 1"
"""The ``format`` field: tells a sidecar from any other JSON file, and this layout from later ones."""

SIDECAR_LIMIT = 1 << 20
"""A sidecar is well under a kilobyte plus its special tokens; anything past 1 MiB is not one."""

_HEX64 = re.compile(r"[0-9a-f]{64}")


class SidecarError(BPEError):
    """An id file's sidecar is missing, not JSON, or not a sidecar (fields missing, of the wrong type)."""


def sidecar_path(ids: str | os.PathLike[str]) -> Path:
    """Where the sidecar of the id file ``ids`` is: the same name with ``.json`` added.

    >>> sidecar_path("out/ids.npy").as_posix()
    'out/ids.npy.json'
    """
    path = Path(ids)
    return path.with_name(path.name + ".json")


def package_version() -> str:
    """The installed bpe-tui's version, or says that it is not installed (run from a source checkout)."""
    try:
        return importlib.metadata.version("bpe-tui")
    except importlib.metadata.PackageNotFoundError:
        return "not installed (source checkout)"


@dataclass(frozen=True, slots=True)
class IdsSidecar:
    """What an id file's sidecar holds (see the module docstring for each field)."""

    format: str
    fingerprint: str
    tokenizer_name: str
    vocab_size: int
    special_tokens: list[str]
    dtype: str
    tokens: int
    corpus_path: str
    corpus_bytes: int
    corpus_sha256: str
    bpe_tui_version: str
    created: str

    @classmethod
    def describe(cls, model: BPEModel, *, dtype: str, tokens: int, corpus: str | Path, corpus_bytes: int,
                 corpus_sha256: str, created: datetime.datetime | None = None) -> IdsSidecar:
        """The sidecar of ``tokens`` ids of type ``dtype`` that ``model`` made from ``corpus`` (a path,
        a glob pattern or a URL).

        >>> from core.model import BPEModel
        >>> side = IdsSidecar.describe(BPEModel({0: b"a"}, [], name="t"), dtype="uint16", tokens=0,
        ...     corpus=Path("/c.txt"), corpus_bytes=0, corpus_sha256="0" * 64,
        ...     created=datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc))
        >>> side.tokenizer_name, side.vocab_size, side.corpus_path, side.created
        ('t', 1, '/c.txt', '2026-01-02T03:04:05Z')
        """
        when = created or datetime.datetime.now(datetime.timezone.utc)
        return cls(
            format=SIDECAR_FORMAT,
            fingerprint=fingerprint(model),
            tokenizer_name=model.name,
            vocab_size=model.vocab_size,
            special_tokens=list(model.special_tokens),
            dtype=dtype,
            tokens=tokens,
            corpus_path=str(corpus) if is_url(str(corpus)) else os.path.abspath(corpus),
            corpus_bytes=corpus_bytes,
            corpus_sha256=corpus_sha256,
            bpe_tui_version=package_version(),
            created=when.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        )

    def to_bytes(self) -> bytes:
        """The file's content: indented JSON, one field a line, so that it reads well and diffs well."""
        # A path that is not UTF-8 keeps its lone surrogates as JSON escapes (\udcXX), which read back the same.
        return (json.dumps(asdict(self), indent=2, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")


_TYPES: dict[str, type] = {field.name: {"int": int, "str": str}.get(str(field.type), list) for field in fields(IdsSidecar)}


def _field_problem(name: str, value: Any) -> str | None:
    """What is wrong with one field's value, or None."""
    expected = _TYPES[name]
    if expected is int and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        return "is not a whole number"
    if expected is str and not isinstance(value, str):
        return "is not text"
    if name == "special_tokens" and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        return "is not a list of texts"
    if name in ("fingerprint", "corpus_sha256") and not _HEX64.fullmatch(value):
        return "is not 64 lowercase hex digits"
    if name == "dtype" and value not in ("uint16", "uint32"):
        return "is neither uint16 nor uint32"
    if name == "vocab_size" and value == 0:
        return "is 0"
    if name == "created":
        try:
            datetime.datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ")
        except ValueError:
            return "is not a UTC time like 2026-01-02T03:04:05Z"
    return None


def parse_sidecar(data: bytes, shown: str) -> IdsSidecar:
    """A sidecar from the content of the file ``shown`` (a name for messages).

    Raises:
        SidecarError: not JSON, not a sidecar, or a field missing, unknown or of the wrong type.

    >>> parse_sidecar(b'{"format": "something else"}', "ids.npy.json")
    Traceback (most recent call last):
    core.export.sidecar.SidecarError: ids.npy.json is not a bpe-tui sidecar (its format is 'something else'); export the ids again to make one
    """
    fix = "export the ids again to make one"
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise SidecarError(f"{shown} is not JSON, so not a bpe-tui sidecar; {fix}") from None
    if not isinstance(raw, dict):
        raise SidecarError(f"{shown} is not a bpe-tui sidecar (not a JSON object); {fix}")
    if raw.get("format") != SIDECAR_FORMAT:
        raise SidecarError(f"{shown} is not a bpe-tui sidecar (its format is {raw.get('format')!r:.40}); {fix}")
    missing = [name for name in _TYPES if name not in raw]
    unknown = sorted(set(raw) - set(_TYPES))
    if missing or unknown:
        what = f"lacks {', '.join(missing)}" if missing else f"has unknown fields {', '.join(unknown)}"
        raise SidecarError(f"{shown} was edited: it {what:.120}; {fix}")
    for name in _TYPES:
        problem = _field_problem(name, raw[name])
        if problem is not None:
            raise SidecarError(f"{shown} was edited: its {name} ({raw[name]!r:.40}) {problem}; {fix}")
    return IdsSidecar(**raw)


def read_sidecar(ids: str | os.PathLike[str]) -> IdsSidecar:
    """The sidecar of the id file ``ids``.

    Raises:
        SidecarError: there is none, or it cannot be read, or it is not a sidecar (see :func:`parse_sidecar`).
    """
    path = sidecar_path(ids)
    shown = shown_path(path)
    missing = SidecarError(
        f"{shown_path(ids)} has no sidecar ({path.name} is missing), so nothing says which tokenizer "
        "made it; export the ids again with bpe-tui export"
    )
    if not os.path.lexists(path):
        raise missing
    check_regular_file(path, SidecarError)  # a FIFO there would block the open below for ever
    try:
        with open(path, "rb") as handle:
            data = handle.read(SIDECAR_LIMIT + 1)
    except FileNotFoundError:
        raise missing from None
    except OSError as problem:
        raise SidecarError(f"{shown}: {os_problem(problem)}") from None
    if len(data) > SIDECAR_LIMIT:
        raise SidecarError(f"{shown} is over {SIDECAR_LIMIT >> 20} MiB, far too big for a sidecar; export the ids again")
    return parse_sidecar(data, shown)
