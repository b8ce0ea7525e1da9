"""Which files loading a tokenizer reads, so that no command writes its output over one of them.

A tokenizer argument can be a file, or a folder that stands for the tokenizer in it (``tokenizer.json``, a
``*vocab*.json`` + ``*merges*.txt`` pair, a rank file), and a GPT-2 ``vocab.json`` brings its ``merges.txt`` along (and the other way round), found beside
it as :func:`core.formats.load_tokenizer` finds it. When unsure, a file is counted as an input: refusing
an output name costs a rename, overwriting an input costs the input.
"""

from __future__ import annotations

from pathlib import Path

from bpe_tui.cli.outputs import Outputs
from core.errors import BPEError
from core.formats import detect_format
from core.formats.folders import folder_candidates
from core.formats.gpt2 import merges_path_for, vocab_path_for


def tokenizer_files(path: Path, merges: str | None = None) -> list[tuple[Path, str]]:
    """``(file, what it is)`` for every existing file that loading ``path`` (with ``--merges``) may read.

    >>> import tempfile; folder = Path(tempfile.mkdtemp()); _ = (folder / "tok.json").write_text("{}")
    >>> [(p.name, what) for p, what in tokenizer_files(folder / "tok.json")]
    [('tok.json', 'the tokenizer')]
    """
    files: list[tuple[Path, str]] = []
    if path.is_dir():
        files += [(path / name, "part of the tokenizer") for name in ("tokenizer.json", "vocab.json", "merges.txt")]
        for file, merges in folder_candidates(path):  # gpt2_vocab.json + gpt2_merges.txt and the like
            files += [(part, "part of the tokenizer") for part in (file, merges) if part is not None]
    else:
        files.append((path, "the tokenizer"))
        partners = [merges_path_for(path), path.parent / "merges.txt", vocab_path_for(path), path.parent / "vocab.json"]
        partners = [partner for partner in partners if partner.is_file()]
        if partners and _is_gpt2(path):
            files += [(partner, "the other half of the GPT-2 tokenizer") for partner in partners]
    if merges is not None:
        files.append((Path(merges), "the merges file"))
    return [(file, what) for file, what in files if file.exists()]


def _is_gpt2(path: Path) -> bool:
    try:
        return detect_format(path) == "gpt2"
    except BPEError:
        return True  # cannot tell: keep its neighbours safe


def add_tokenizer_inputs(outputs: Outputs, path: Path, merges: str | None = None) -> None:
    """Record the files of the tokenizer at ``path`` as inputs of the command."""
    for file, what in tokenizer_files(path, merges):
        outputs.add_input(file, what)
