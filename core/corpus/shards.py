"""Finding a corpus's shards: one file, every shard in a folder, or every file a glob matches.

A shard's format comes from its name: ``.txt``/``.text`` (plain text), ``.jsonl``/``.json``/``.ndjson``
(JSON lines, one record a line), ``.parquet``/``.pq``, ``.arrow``/``.feather`` (Arrow IPC, as Hugging Face
``datasets`` caches and saves), each optionally followed by ``.gz``, ``.bz2``,
``.xz`` or ``.zst``. A file named on its own, or matched by a glob, with any other name is read as plain
text, as ``train`` always has. In a folder (searched recursively, in sorted order so every run sees the
shards in the same order) other files are left out and counted, so a ``README.md``, a Spark
``_SUCCESS`` or a ``.DS_Store`` beside the shards does no harm. Links to files and to folders are
followed, each folder searched once; a file a folder search or a glob reaches by several paths is one
shard. A ``.json``
file whose first line is a bare ``{`` (one object over several lines, such as a tokenizer saved there)
cannot be JSON lines (one named on its own is refused), an events file ``train --events`` wrote there is a
log, and a tokenizer's files (``tokenizer.json``, GPT-2's ``vocab.json`` beside its ``merges.txt``) are no
corpus: a folder search leaves them out too. Hadoop's and Spark's ``part-00000`` files
(``saveAsTextFile``), which have no suffix, are plain text.

A URL (``s3://bucket/web/``, ``gs://...``, ``file:///...``: any protocol ``fsspec`` knows, with its
plug-in installed) names a file, a folder or a glob the same way; its shards are read through ``fsspec``
(the ``formats`` extra), which is how a Dask cluster's workers reach a corpus they share.
"""

from __future__ import annotations

import glob
import os
import re
import stat
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from core.corpus.content_check import HEAD_BYTES, content_problem
from core.corpus.extras import require
from core.errors import CorpusError
from core.train.events import EVENTS_FORMAT
from core.input_files import check_regular_file, os_problem, shown_path

ShardKind = Literal["text", "jsonl", "parquet", "arrow"]

KIND_OF_SUFFIX: dict[str, ShardKind] = {
    ".txt": "text", ".text": "text",
    ".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl",
    ".parquet": "parquet", ".pq": "parquet",
    ".arrow": "arrow", ".feather": "arrow",
}
"""Shard formats by file suffix (compared in lower case)."""

COMPRESSIONS = {".gz": "gz", ".bz2": "bz2", ".xz": "xz", ".zst": "zst"}
"""Compression by the file's last suffix (compared in lower case)."""

SHARD_NAMES = ".txt, .jsonl, .json, .parquet or .arrow, optionally .gz, .bz2, .xz or .zst"
"""The shard names a folder is searched for, as messages say them."""

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+://")

_PART_FILE = re.compile(r"part-(?:[mr]-)?[0-9]+(?:-[0-9a-z-]+)?(?:\.c[0-9]+)?")
"""A Hadoop or Spark output file's name without a suffix (``part-00000``, ``part-r-00003``,
``part-00000-<uuid>.c000``): plain text, as ``saveAsTextFile`` writes it (lower case)."""

_EVENTS_START = f'{{"event": "start", "format": "{EVENTS_FORMAT}"'.encode()
"""How an events file's first line starts (``bpe_tui.cli.train_events`` writes its keys in this order)."""


HF_METADATA = frozenset({"dataset_info.json", "dataset_infos.json", "dataset_dict.json", "state.json"})
"""What Hugging Face ``datasets`` writes beside a dataset's ``.arrow`` files (``save_to_disk``, its cache) or in a
dataset repository: JSON, on one line at times, and never documents. A folder search leaves them out, as it
leaves out the cache's ``cache-*.arrow`` files, copies of the dataset made by ``map`` and ``filter``."""

NOT_TEXT = frozenset({
    ".npy", ".npz", ".bin", ".idx", ".pt", ".pth", ".ckpt", ".safetensors", ".pkl", ".pickle", ".h5", ".zip",
    ".tar", ".tgz", ".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst", ".png", ".jpg", ".jpeg", ".gif", ".pdf",
})
"""Suffixes of files no one would train on as text (arrays of ids, weights, archives, images): a folder search
leaves them out without a note."""

SIDECAR_SUFFIX = ".npy.json"
"""The end of an id array's sidecar's name (:mod:`core.export.sidecar`), which is never a shard."""


def is_url(path: str) -> bool:
    """Whether ``path`` is a URL (read through fsspec) rather than a local path.

    >>> is_url("s3://bucket/web"), is_url("file:///tmp/a.jsonl"), is_url("data/a.jsonl"), is_url("C:/a")
    (True, True, False, False)
    """
    return _URL.match(path) is not None


@dataclass(frozen=True, slots=True)
class Shard:
    """One file of a corpus: its path, its format, its compression (``None`` if none) and its size."""

    path: str
    kind: ShardKind
    compression: str | None
    size: int

    @property
    def shown(self) -> str:
        """The path as a one-line message shows it."""
        return shown_path(self.path)

    @property
    def plain_text(self) -> bool:
        """Whether the shard is uncompressed text, which can be cut at any safe place and read in parts."""
        return self.kind == "text" and self.compression is None


@dataclass(frozen=True, slots=True)
class Corpus:
    """A corpus as given (``spec``), its shards in reading order, and how many files a folder search left out."""

    spec: str
    shards: tuple[Shard, ...]
    ignored: int = 0
    unread: tuple[tuple[str, int], ...] = ()
    """Of the files a folder search left out, those left out for their names alone (not hidden, no sidecar):
    how many of each suffix, most first. Source code or Markdown beside a ``.txt`` is no shard, and a
    command says so rather than train on the ``.txt`` alone without a word."""

    @property
    def total_bytes(self) -> int:
        """The shards' sizes on disk (compressed, where they are)."""
        return sum(shard.size for shard in self.shards)

    @property
    def single_plain_text(self) -> bool:
        """One uncompressed text file: read exactly as before shards existed (one stream, no separator)."""
        return len(self.shards) == 1 and self.shards[0].plain_text and os.path.isfile(self.spec)

    @property
    def name(self) -> str:
        """A short name for outputs: the file's stem without format suffixes, or the folder's name.

        >>> Corpus("data/web.jsonl.gz", ()).name, Corpus("data/shards", ()).name, Corpus("d/*.jsonl", ()).name
        ('web', 'shards', 'd')
        """
        path = Path(self.spec)
        if glob.has_magic(self.spec):  # the last folder before the first wildcard
            fixed = _until_magic(path.parts)
            return Path(*fixed).resolve().name if fixed else Path.cwd().name
        name = path.name
        if name in ("", "..") and not is_url(self.spec):  # ".", "./", "..": the folder's own name
            name = path.resolve().name
        lowered = name.lower()
        for suffix in COMPRESSIONS:
            if lowered.endswith(suffix):
                name, lowered = name[: -len(suffix)], lowered[: -len(suffix)]
                break
        for suffix in KIND_OF_SUFFIX:
            if lowered.endswith(suffix):
                return name[: -len(suffix)] or name
        return Path(name).stem or name


def _until_magic(parts: tuple[str, ...]) -> list[str]:
    fixed: list[str] = []
    for part in parts:
        if glob.has_magic(part):
            break
        fixed.append(part)
    return fixed


def shard_format(name: str) -> tuple[ShardKind | None, str | None]:
    """The format and compression a file name says; the format is ``None`` for a name no shard has.

    An id array's sidecar (``IDS.npy.json``, which ``export`` writes beside the array) is JSON but no
    shard, so a folder search leaves it out: exporting into the corpus's folder does not add to the corpus.

    >>> shard_format("a.jsonl.gz"), shard_format("B.PARQUET"), shard_format("notes.md"), shard_format("x.gz")
    (('jsonl', 'gz'), ('parquet', None), (None, None), (None, 'gz'))
    >>> shard_format("ids.npy.json"), shard_format("part-00003.gz"), shard_format("part-r-00000")
    ((None, None), ('text', 'gz'), ('text', None))
    """
    lowered = name.lower()
    if lowered.endswith(SIDECAR_SUFFIX):
        return None, None
    compression = None
    for suffix, kind in COMPRESSIONS.items():
        if lowered.endswith(suffix):
            compression, lowered = kind, lowered[: -len(suffix)]
            break
    for suffix, kind in KIND_OF_SUFFIX.items():
        if lowered.endswith(suffix):
            return kind, compression
    if _PART_FILE.fullmatch(lowered):
        return "text", compression
    return None, compression


def shard_of(path: str) -> Shard:
    """The shard at ``path``, checked to be a readable regular file whose first bytes do not belie its name
    (:mod:`core.corpus.content_check`); a name with no shard suffix is plain text, compressed or not (a
    folder search never gets here with one)."""
    checked = check_regular_file(path, CorpusError)
    kind, compression = shard_format(checked.name)
    if kind is None:
        kind = "text"
    try:  # non-blocking, as check_regular_file's open: a FIFO put in the file's place since cannot hang it
        fd = os.open(checked, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            head = os.pread(fd, HEAD_BYTES, 0) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
        finally:
            os.close(fd)
    except OSError:
        head = b""  # reading the shard will say what is wrong with it
    problem = content_problem(head, kind, compression, checked.name)
    if problem is not None:
        raise CorpusError(f"{shown_path(path)}: {problem}")
    return Shard(str(path), kind, compression, checked.stat().st_size)


def open_corpus(spec: str | os.PathLike[str]) -> Corpus:
    """The corpus ``spec`` names: a file, a folder (searched recursively) or a glob (``**`` allowed).

    Raises:
        CorpusError: (one line) the path is missing or unreadable, the glob matches no file, the folder
            holds no shard, a shard is not a regular file, or the file named is one JSON object over
            several lines (a tokenizer, most likely), which JSON lines cannot be.

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> for name in ("b.jsonl.gz", "a.txt", "README.md", ".hidden.txt"): _ = (folder / name).write_bytes(b"")
    >>> corpus = open_corpus(folder)
    >>> [(Path(s.path).name, s.kind, s.compression) for s in corpus.shards], corpus.ignored
    ([('a.txt', 'text', None), ('b.jsonl.gz', 'jsonl', 'gz')], 2)
    """
    text = os.fsdecode(os.fspath(spec))
    if is_url(text):
        return _remote(text)
    if os.path.isdir(text):
        return _folder(text)
    if not os.path.lexists(text) and glob.has_magic(text):
        matches = _each_file_once(p for p in glob.glob(text, recursive=True) if not os.path.isdir(p))
        if not matches:
            raise CorpusError(
                f"{shown_path(text)}: the pattern matches no file; check it, and quote it so the shell "
                "leaves it to bpe-tui"
            )
        return Corpus(text, tuple(shard_of(p) for p in matches))
    problem = _not_records(text) if shard_format(text)[0] == "jsonl" and not shard_format(text)[1] else None
    if problem is not None:  # a tokenizer given for the corpus: "skip bad records" would skip every line
        raise CorpusError(f"{shown_path(text)}: {problem}; give the corpus")
    return Corpus(text, (shard_of(text),))


def _each_file_once(paths: Iterable[str]) -> list[str]:
    """``paths`` in sorted order, a file reached by several (``**`` follows links to folders, round a link
    loop at every depth) kept once, by its shortest path."""
    first: dict[str, str] = {}
    for path in sorted(paths, key=lambda path: (path.count(os.sep), path)):
        first.setdefault(os.path.realpath(path), path)
    return sorted(first.values())


def _folder(folder: str) -> Corpus:
    found: list[str] = []
    ignored = 0
    unread: Counter[str] = Counter()

    def refuse(error: OSError) -> None:
        raise CorpusError(f"{shown_path(error.filename or folder)}: {os_problem(error)}")

    # Links to folders are followed, as links to files are (a corpus assembled from folders elsewhere);
    # each real folder is searched once, so a link back up the tree or a second link to one adds nothing.
    searched = {os.path.realpath(folder)}
    for root, dirs, files in os.walk(folder, onerror=refuse, followlinks=True):
        kept: list[str] = []
        for name in sorted(dirs):
            real = os.path.realpath(os.path.join(root, name))
            if not name.startswith((".", "_")) and real not in searched:
                searched.add(real)
                kept.append(name)
        dirs[:] = kept
        tokenizer = _tokenizer_files(files)
        for name in sorted(files):
            kind, compression = shard_format(name)
            path = os.path.join(root, name)
            if (kind is None or name.startswith((".", "_")) or name in tokenizer
                    or (kind == "arrow" and name.startswith("cache-"))
                    or (kind == "jsonl" and not compression and _not_records(path) is not None)):
                ignored += 1
                suffix = _suffix(name)
                if (kind is None and not name.startswith((".", "_")) and suffix not in NOT_TEXT
                        and not name.lower().endswith(SIDECAR_SUFFIX)):
                    unread[suffix] += 1
                continue
            found.append(path)
    # A file reached by several paths (a link such as latest.jsonl -> shard-0003.jsonl, or two snapshots of a
    # Hugging Face cache sharing a blob) is one shard, as in a glob: it was read once a path.
    shards = [shard_of(path) for path in _each_file_once(found)]
    left_out = tuple(sorted(unread.items(), key=lambda item: (-item[1], item[0])))
    if not shards:
        other = f", or a quoted glob ({_glob_hint(folder, left_out)}) to read other files as text" if left_out else ""
        raise CorpusError(
            f"{shown_path(folder)}: the folder holds no corpus shard ({SHARD_NAMES}); "
            f"give a folder of shards or a file{other}"
        )
    return Corpus(folder, tuple(shards), ignored, left_out)


def _suffix(name: str) -> str:
    """A file's suffix as a note tallies it: the last, or the last two before a compression's.

    >>> _suffix("a.PY"), _suffix("b.csv.gz"), _suffix("LICENSE")
    ('.py', '.csv.gz', 'no suffix')
    """
    suffixes = [suffix.lower() for suffix in Path(name).suffixes]
    if len(suffixes) > 1 and suffixes[-1] in COMPRESSIONS:
        return "".join(suffixes[-2:])
    return suffixes[-1] if suffixes else "no suffix"


def _glob_hint(folder: str, unread: tuple[tuple[str, int], ...]) -> str:
    """A quoted glob that reads the most common of ``unread``'s suffixes as text, for a message."""
    suffix = next((suffix for suffix, _ in unread if suffix != "no suffix"), "")
    return f"'{shown_path(os.path.join(folder, '**', '*' + suffix))}'"


def left_out_note(corpus: Corpus) -> str | None:
    """What a folder search left out for its names, and how to read it, for a one-line note; None if nothing.

    >>> left_out_note(Corpus("src", (), 3, ((".py", 2), (".md", 1))))
    "left out 3 files of src whose names are no shard's (2 .py, 1 .md); a quoted glob ('src/**/*.py') reads such files as text"
    """
    if not corpus.unread:
        return None
    total = sum(count for _, count in corpus.unread)
    tally = ", ".join(f"{count:,} {suffix}" for suffix, count in corpus.unread[:4])
    more = ", ..." if len(corpus.unread) > 4 else ""
    return (f"left out {total:,} file{'s' if total != 1 else ''} of {shown_path(corpus.spec)} whose names are no "
            f"shard's ({tally}{more}); a quoted glob ({_glob_hint(corpus.spec, corpus.unread)}) reads such files as text")


def _tokenizer_files(names: list[str]) -> set[str]:
    """Which of a folder's file ``names`` make up a tokenizer, never a corpus: a ``tokenizer.json``, and a
    GPT-2 ``*vocab*.json`` with its ``*merges*.txt`` partner. GPT-2's ``vocab.json`` is one JSON object on
    one line, which reads as JSON lines (and has a ``"text"`` key: token 5239), and its ``merges.txt``
    as plain text, so a folder holding a tokenizer (the bundled ``samples/``) trained on its files.

    >>> sorted(_tokenizer_files(["vocab.json", "merges.txt", "a.txt", "gpt2-vocab.json", "tokenizer.json"]))
    ['merges.txt', 'tokenizer.json', 'vocab.json']
    """
    jsons = [name for name in names if name.endswith(".json")]
    if not jsons:
        return set()  # most folders of shards: no need to import the GPT-2 format (and regex) at all
    from core.formats.gpt2 import merges_path_for

    present = set(names)
    found = present & {"tokenizer.json"}
    for name in jsons:  # vocab.json, or out.json beside the out-merges.txt convert wrote
        partner = merges_path_for(name).name
        if partner in present:
            found |= {name, partner}
    return found


def _not_records(path: str) -> str | None:
    """What the JSON file at ``path`` is when it is no JSON lines of documents, so that a folder search
    leaves it out and one named as the corpus is refused; None when it may be JSON lines.

    A ``.json`` whose first line is a bare ``{`` is one object written over several lines (a tokenizer
    ``train`` saved among the shards, a ``dataset_infos.json``); an events file ``train --events`` wrote
    starts with a record of format :data:`~core.train.events.EVENTS_FORMAT`."""
    if os.path.basename(path) in HF_METADATA:
        return "the metadata of a Hugging Face dataset, not JSON lines of documents"
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None  # never opened: a FIFO would block; shard_of refuses it
        with open(path, "rb") as handle:
            head = handle.read(256)
    except OSError:
        return None  # shard_of says what is wrong with it
    first, newline, _ = head.removeprefix(b"\xef\xbb\xbf").partition(b"\n")
    if path.lower().endswith(".json") and newline and first.strip() == b"{":
        return "one JSON object over several lines (a tokenizer?), not JSON lines (one record a line)"
    if first.startswith(_EVENTS_START):
        return "the events of a training run (train --events), not a corpus"
    return None


def _remote(url: str) -> Corpus:
    """The corpus at a URL: a file, a folder (searched recursively) or a glob, listed through fsspec."""
    fsspec = require("fsspec", f"{shown_path(url)}: a corpus URL")
    try:
        fs, path = fsspec.core.url_to_fs(url)
        if glob.has_magic(path):
            found = {name: info for name, info in fs.glob(path, detail=True).items() if info["type"] == "file"}
            if not found:
                raise CorpusError(f"{shown_path(url)}: the pattern matches no file; check it")
            named = True
        elif fs.isdir(path):
            found = fs.find(path, detail=True)
            named = False
        else:
            found = {path: fs.info(path)}
            named = True
    except FileNotFoundError:
        raise CorpusError(f"{shown_path(url)}: no such file; check the URL") from None
    except ImportError as error:  # fsspec's own words name the package: "Install s3fs to access S3"
        raise CorpusError(
            f"{shown_path(url)}: its protocol needs an fsspec plug-in that is not installed ({error}); install "
            "it here (and on every Dask worker)"
        ) from None
    except (OSError, ValueError) as error:
        raise CorpusError(f"{shown_path(url)}: cannot be listed ({type(error).__name__}: {error}); check the URL") from None
    shards: list[Shard] = []
    ignored = 0
    bases: dict[str, list[str]] = {}  # folder -> its files' names, to find a tokenizer's files among them
    for name in found:
        folder, _, base = name.rstrip("/").rpartition("/")
        bases.setdefault(folder, []).append(base)
    tokenizer = {f"{folder}/{base}" for folder, names in bases.items() for base in _tokenizer_files(names)}
    for name in sorted(found):
        base = name.rstrip("/").rsplit("/", 1)[-1]
        kind, compression = shard_format(base)
        hidden = any(part.startswith((".", "_")) for part in name[len(path):].split("/") if part)
        if not named and (kind is None or hidden or name.rstrip("/") in tokenizer):
            ignored += 1
            continue
        shards.append(Shard(fs.unstrip_protocol(name), kind or "text", compression, int(found[name].get("size") or 0)))
    if not shards:
        raise CorpusError(f"{shown_path(url)}: holds no corpus shard ({SHARD_NAMES}); give a folder of shards or a file")
    return Corpus(url, tuple(shards), ignored)
