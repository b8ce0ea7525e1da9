"""Reading a corpus file a lens is given (``--corpus PATH``), or the bundled one it defaults to, as text."""

from __future__ import annotations

from pathlib import Path

from core.analysis.study_corpus import corpus_sample
from core.corpus import open_corpus
from core.errors import CorpusError
from core.input_files import check_regular_file, shown_path


MAX_BYTES = 16 << 20
"""The largest corpus a lens reads. A lens counts the corpus's words in memory, by hand, to show a lesson:
given a training corpus (CS336's 11 GB OpenWebText, say) it took about 17 bytes of memory a byte of it and
ran out of memory or was killed, where a part of it teaches the same."""


def read_corpus(path: Path) -> str:
    """The UTF-8 text of ``path``: a text file as it is, or shards (JSON lines, Parquet, compressed) as
    training reads them, their documents' ``text`` one after another, a line apart (read as text, a
    ``.jsonl`` was counted as its JSON: keys, quotes and ``\\u`` escapes).

    Raises:
        CorpusError: one line naming the file: missing, not a regular file, unreadable, larger than
            :data:`MAX_BYTES` or not UTF-8, or shards that cannot be read.
    """
    checked = check_regular_file(path, CorpusError)
    if not open_corpus(checked).single_plain_text:
        return _shards_text(checked)
    try:
        with open(checked, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as error:
        raise CorpusError(f"{shown_path(path)}: {error.strerror}") from None
    if len(data) > MAX_BYTES:
        raise CorpusError(f"{shown_path(path)} is larger than the {MAX_BYTES >> 20} MiB a lens reads (it counts the "
                          f"words in memory); give a part of it, such as its first lines "
                          "(head -n 100000 FILE > part.txt)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CorpusError(f"{shown_path(path)}: not valid UTF-8 at byte {error.start:,}; give a UTF-8 text file") from None


def _shards_text(path: Path) -> str:
    sample = corpus_sample(path, max_bytes=MAX_BYTES)
    if sample.capped:
        raise CorpusError(f"{shown_path(path)} holds more than the {MAX_BYTES >> 20} MiB of text a lens reads (it "
                          "counts the words in memory); give a part of it, such as its first records "
                          "(head -n 10000 FILE > part.jsonl)")
    return "\n".join(sample.text) if isinstance(sample.text, tuple) else sample.text


def bundled(folder: Path | None, name: str) -> Path:
    """The bundled sample file ``name``.

    Raises:
        CorpusError: this installation has no such file; the message says to give one.
    """
    if folder is None or not (folder / name).is_file():
        raise CorpusError(f"the bundled {name} is missing from this installation; give a corpus with --corpus")
    return folder / name
