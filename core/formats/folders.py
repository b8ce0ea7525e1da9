"""Which tokenizer a folder holds: ``tokenizer.json``, a GPT-2 pair named ``*vocab*.json`` + ``*merges*.txt``, or a
rank file; a folder holding several names them all instead of picking one.

Downloads name GPT-2's files in many ways (``vocab.json``, ``gpt2_vocab.json``, ``gpt2-vocab.json`` with
``gpt2-merges.txt``), so a pair is found by its partner's name (:func:`core.formats.gpt2.merges_path_for`),
or, when a folder holds exactly one file of each kind, by being the only two.
"""

from __future__ import annotations

from pathlib import Path

from core.errors import TokenizerFileError
from core.formats.gpt2 import merges_path_for


def folder_candidates(folder: Path) -> list[tuple[Path, Path | None]]:
    """Every tokenizer in ``folder`` as ``(file to load, its merges file or None)``, ``tokenizer.json`` first.

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> for name in ("gpt2_vocab.json", "gpt2_merges.txt", "notes.txt"):
    ...     _ = (folder / name).write_text("x")
    >>> [(v.name, m.name) for v, m in folder_candidates(folder)]
    [('gpt2_vocab.json', 'gpt2_merges.txt')]
    """
    if (folder / "tokenizer.json").is_file():
        return [(folder / "tokenizer.json", None)]
    vocabs = sorted(path for path in folder.glob("*vocab*.json") if path.is_file())
    merges = sorted(path for path in folder.glob("*merges*.txt") if path.is_file())
    pairs: list[tuple[Path, Path | None]] = []
    # A vocab named otherwise is found by its partner: convert --to gpt2 out.json writes out-merges.txt.
    named = sorted({*vocabs, *(path for path in folder.glob("*.json") if merges_path_for(path) in merges)})
    for vocab in named:
        partner = merges_path_for(vocab)
        if partner in merges and vocab.is_file():
            pairs.append((vocab, partner))
    if not pairs and len(vocabs) == 1 and len(merges) == 1:
        pairs.append((vocabs[0], merges[0]))  # the only two: a pair whatever their names
    ranks = sorted(path for path in folder.glob("*.tiktoken") if path.is_file())
    return pairs + [(path, None) for path in ranks]


def shown_candidate(candidate: tuple[Path, Path | None]) -> str:
    """A candidate as the error lists it: ``a-vocab.json + a-merges.txt``, or the file's name."""
    file, merges = candidate
    return file.name if merges is None else f"{file.name} + {merges.name}"


def tokenizer_in_folder(folder: Path) -> tuple[Path, Path | None]:
    """The one tokenizer in ``folder``: the file to load and, for a GPT-2 pair, its merges file.

    Raises:
        TokenizerFileError: the folder holds none (naming what was looked for) or several (listing them).
    """
    candidates = folder_candidates(folder)
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        vocabs = sorted(path for path in folder.glob("*vocab*.json") if path.is_file())
        if len(vocabs) == 1:
            return vocabs[0], None  # loading it says which merges file it needs
        raise TokenizerFileError(
            f"{folder}: directory holds no tokenizer.json, no *vocab*.json with a *merges*.txt and no .tiktoken "
            "file; give the tokenizer file itself"
        )
    listed = ", ".join(shown_candidate(candidate) for candidate in candidates)
    raise TokenizerFileError(f"{folder}: holds {len(candidates)} tokenizers ({listed}); give one of them")
