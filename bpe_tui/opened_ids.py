"""An id file (``.npy``, or an llm.c token file) opened in the app: its ids decoded with the tokenizer in use, up to a bound, and
its sidecar checked against that tokenizer.

Textual-free: the app runs :func:`decode_id_file` in a worker thread and shows the result. Ids are only
meaningful with the tokenizer that made them, so the sidecar (``IDS.npy.json``, :mod:`core.export.sidecar`)
is read first: when it names another tokenizer, or is missing or unreadable, the result says so (the text
is still decoded: the user may want to see the nonsense). An id the tokenizer does not have stops
everything: there is no honest text to show.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path

from bpe_tui.session import LoadedTokenizer
from bpe_tui.text import shown_text
from core.errors import BPEError
from core.export.npy_ids import MAGIC
from core.export.raw_ids import id_file_kind, read_id_file
from core.export.sidecar import IdsSidecar, SidecarError, read_sidecar
from core.fingerprint import fingerprint

DECODED_BYTES = 1 << 18
"""Most bytes of text decoded from one id file (256 KiB). The text goes into the workbench's text box,
which lays it out on the UI thread: about 0.2 s for 256 KiB, 0.7 s for 1 MiB on a busy machine."""


class IdsNotDecodable(BPEError):
    """An id file holds an id the tokenizer in use does not have, or there is no tokenizer to decode with."""


def is_id_file(path: Path) -> bool:
    """Whether ``path`` is a regular file that starts as every ``.npy`` file, or llm.c token file, does
    (told by content, as ``bpe-tui decode`` does, not by its name).

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.bin").write_bytes(MAGIC + b"rest"); _ = (folder / "ids.npy").write_text("1 2")
    >>> is_id_file(folder / "a.bin"), is_id_file(folder / "ids.npy"), is_id_file(folder)
    (True, False, False)
    """
    try:
        if not path.is_file():  # a folder holds a tokenizer; a FIFO would block the open
            return False
        with open(path, "rb") as handle:
            return id_file_kind(handle.read(len(MAGIC))) is not None
    except OSError:
        return False


@dataclass(frozen=True)
class DecodedIds:
    """The start of an id file decoded with ``tokenizer``, and what its sidecar says about the ids' maker."""

    path: Path
    tokenizer: LoadedTokenizer
    """The tokenizer the ids were decoded with (the active one when the file was opened)."""
    text: str
    decoded_ids: int
    total_ids: int
    sidecar: IdsSidecar | None
    sidecar_problem: str | None
    """Why the sidecar could not be read (missing, not JSON, edited), ``None`` when it was."""
    matches: bool
    """The sidecar's fingerprint is the tokenizer's."""
    maker: LoadedTokenizer | None
    """A tokenizer of the session with the sidecar's fingerprint, when that is not the one decoding."""

    @property
    def cut(self) -> bool:
        """Only the first ``decoded_ids`` ids were decoded (see :data:`DECODED_BYTES`)."""
        return self.decoded_ids < self.total_ids

    @property
    def label(self) -> str:
        """What the workbench calls the text: ``ids.npy decoded``."""
        return f"{shown_text(self.path.name)} decoded"

    def summary(self) -> str:
        """One line on what was decoded, and whether only the start of the file was."""
        line = (f"Decoded {self.decoded_ids:,} ids of {shown_text(self.path.name)} with "
                f"{self.tokenizer.shown_name} into the workbench (4).")
        if self.cut:
            line += (f" Only the first {self.decoded_ids:,} of {self.total_ids:,} ids: at most "
                     f"{DECODED_BYTES >> 10:,} KiB of text is shown; bpe-tui decode gives it all.")
        return line

    def warning(self) -> str | None:
        """What is wrong with the sidecar, naming both tokenizers when they differ; ``None`` when it matches."""
        if self.sidecar_problem is not None:
            return (f"{shown_text(self.sidecar_problem)}. The ids cannot be checked against "
                    f"{self.tokenizer.shown_name}: the text is only right if it made them.")
        if self.matches or self.sidecar is None:
            return None
        made_by = shown_text(self.sidecar.tokenizer_name) or "an unnamed tokenizer"
        line = (f"{shown_text(self.path.name)} was made by {made_by} (fingerprint {self.sidecar.fingerprint[:12]}), "
                f"not by {self.tokenizer.shown_name}, the tokenizer in use: the text is likely nonsense.")
        if self.maker is not None:
            line += (f" {self.maker.shown_name} is loaded and has its fingerprint: ctrl+p 'Use tokenizer: "
                     f"{self.maker.shown_name}', then open the file again.")
        else:
            line += " Open that tokenizer (ctrl+o), then open the file again."
        return line


def _read_sidecar(path: Path) -> tuple[IdsSidecar | None, str | None]:
    try:
        return read_sidecar(path), None
    except SidecarError as error:
        return None, str(error)


def _decoded_prefix(path: Path, loaded: LoadedTokenizer, limit: int) -> tuple[str, int, int]:
    """(text, ids decoded, ids in the file) of at most ``limit`` bytes; an unknown id is IdsNotDecodable."""
    ids = read_id_file(path)
    ids.check_whole()
    vocab = loaded.model.vocab
    pieces: list[bytes] = []
    size = position = 0
    cut = False
    for block in ids.blocks():
        for token_id in block:
            token = vocab.get(token_id)
            if token is None:
                raise IdsNotDecodable(
                    f"{shown_text(path.name)}: id {token_id:,} at position {position:,} is not in the vocabulary of "
                    f"{loaded.shown_name} (ids 0..{max(vocab, default=-1):,}); nothing decoded: make the tokenizer "
                    "that made the ids the active one (ctrl+p), then open the file again"
                )
            if size + len(token) > limit:
                cut = True
                break
            pieces.append(token)
            size += len(token)
            position += 1
        if cut:
            break
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    # A cut file drops a character its last id leaves half-made; a whole one decodes as Tokenizer.decode does.
    text = decoder.decode(b"".join(pieces), final=not cut)
    return text, position, ids.length


def decode_id_file(path: Path, active: LoadedTokenizer | None, known: tuple[LoadedTokenizer, ...]) -> DecodedIds:
    """Decode the start of the id file ``path`` with ``active`` and check its sidecar; ``known`` are the
    session's tokenizers, searched for the sidecar's fingerprint when ``active`` has another.

    Raises:
        IdsNotDecodable: no tokenizer is active, or an id (among those decoded) is not in its vocabulary.
        IdsFileError: ``path`` is not a 1-D integer ``.npy`` array or an llm.c token file, or is cut short.
    """
    if active is None:
        raise IdsNotDecodable(f"{shown_text(path.name)} holds token ids, and no tokenizer is active to decode "
                              "them: train one (1) or open one (ctrl+o) first")
    sidecar, problem = _read_sidecar(path)
    text, decoded, total = _decoded_prefix(path, active, DECODED_BYTES)
    matches = sidecar is not None and sidecar.fingerprint == fingerprint(active.model)
    maker = None
    if sidecar is not None and not matches:
        maker = next((loaded for loaded in known
                      if loaded is not active and fingerprint(loaded.model) == sidecar.fingerprint), None)
    return DecodedIds(path, active, text, decoded, total, sidecar, problem, matches, maker)
