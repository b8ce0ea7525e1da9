"""``bpe-tui decode``: token ids back to text (or, with ``--bytes``, to the exact bytes) with any tokenizer file.

Ids come from a ``.npy`` array (as ``export`` writes) or an llm.c token file (each told by its first bytes,
not its name), from raw ids of the type ``--dtype`` gives (nanoGPT's ``train.bin``), or from text: whole numbers separated by spaces, newlines or commas (as ``encode`` prints them; brackets
allowed, as in a list Python prints), from a file or stdin.
Both are streamed, so the size of the input does not matter. Text is decoded as ``Tokenizer.decode``
does, bytes that are not UTF-8 becoming U+FFFD (an incremental decoder gives the same text as decoding
everything at once); ``--bytes`` writes the bytes themselves. On a terminal, control characters other
than newline and tab are shown escaped, so that decoded ids cannot drive the terminal.

When an id file has a sidecar (``IDS.npy.json``, :mod:`core.export.sidecar`) that names another
tokenizer than the one given, a one-line warning says so: the text would be nonsense.
"""

from __future__ import annotations

import argparse
import codecs
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from bpe_tui.cli.arguments import add_force, input_path, no_such_file, path_text
from bpe_tui.cli.outputs import Outputs
from bpe_tui.cli.tokenizer_inputs import add_tokenizer_inputs
from bpe_tui.text import escape_token
from core.atomic import atomic_open
from core.errors import BPEError
from core.export.npy_ids import MAGIC, NpyIds
from core.export.raw_ids import RAW_DTYPES, id_file_kind, read_id_file, read_raw_ids
from core.export.sidecar import SidecarError, read_sidecar, sidecar_path
from core.fingerprint import fingerprint
from core.formats import load_tokenizer
from core.input_files import check_regular_file, shown_path
from core.model import BPEModel

TEXT_BLOCK = 1 << 20
"""Characters of text ids read at a time."""

_SEPARATOR = re.compile(r"[\s,\[\]]+")
"""What separates text ids: whitespace and commas, and the brackets of a list (``print(ids)`` in Python, or
JSON), so that ``[15496, 11, 995]`` reads as its three ids rather than failing at ``'[15496'``."""

LONGEST_ID = 100
"""Characters a text id may have: far beyond any vocabulary, and short enough for ``int()`` (which refuses
more than 4,300 digits) and for a run without separators not to be gathered block after block."""


ZIP_MAGIC = b"PK\x03\x04"
"""How a zip archive starts, such as the ``.npz`` numpy.savez writes: it was 'not text ids', with a hint to
read it as raw ids (--dtype uint16), which decoded the archive's bytes as ids."""

RAW_HINT = ", or for raw ids (nanoGPT's train.bin) their type: --dtype uint16"
"""Said when what should be text ids looks binary."""


class IdsInputError(BPEError):
    """Text that should be ids holds something else, or an id is not in the tokenizer's vocabulary."""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "decode",
        help="decode token ids back to text",
        description="Decode the ids in FILE (or stdin) with TOKENIZER and write the text to stdout or -o. "
        "FILE is a .npy array (as bpe-tui export writes), an llm.c token file, raw ids of the type --dtype "
        "gives (nanoGPT's train.bin) or text: whole numbers separated by spaces, "
        "newlines or commas (as bpe-tui encode prints them), brackets allowed (a list printed by Python or "
        "JSON); stdin takes text ids only. Bytes that are "
        "not UTF-8 become U+FFFD, as Tokenizer.decode does; --bytes writes the exact bytes.",
    )
    parser.add_argument("tokenizer", metavar="TOKENIZER", type=input_path,
                        help="tokenizer file of any supported format, or its folder")
    parser.add_argument("file", metavar="FILE", nargs="?", default="-", type=path_text,
                        help=".npy array, llm.c .bin or text ids (a regular file); - or omitted: text ids "
                        "on stdin")
    parser.add_argument("--dtype", choices=RAW_DTYPES,
                        help="FILE is raw ids of this type with no header, as nanoGPT's train.bin "
                        "(ids.tofile(), np.memmap) holds uint16")
    parser.add_argument("--merges", metavar="PATH", type=input_path,
                        help="merges.txt for a GPT-2 vocab.json (default: found beside it)")
    parser.add_argument("--bytes", action="store_true",
                        help="write the exact bytes the ids stand for, not UTF-8 text (to a file or a pipe)")
    parser.add_argument("-o", "--output", metavar="PATH", type=path_text,
                        help="write to PATH (atomically) instead of stdout; - is stdout")
    add_force(parser)


# ------------------------------------------------------------------------------------------------ reading


def text_ids(handle: BinaryIO, label: str) -> Iterator[int]:
    """The ids in text ``handle``: whole numbers separated by whitespace or commas, read a block at a time.

    >>> import io
    >>> list(text_ids(io.BytesIO(b"1 2,3\\n 40,, 5"), "ids.txt")), list(text_ids(io.BytesIO(b"[7, 8]"), "ids.txt"))
    ([1, 2, 3, 40, 5], [7, 8])
    >>> list(text_ids(io.BytesIO(b"1 two"), "ids.txt"))
    Traceback (most recent call last):
    bpe_tui.cli.decode.IdsInputError: ids.txt: 'two' at position 1 is not a token id; give whole numbers separated by spaces or commas
    """
    for block in text_id_blocks(handle, label):
        yield from block


def text_id_blocks(handle: BinaryIO, label: str) -> Iterator[list[int]]:
    """The ids in text ``handle`` (see :func:`text_ids`), a list for each read: from a pipe, the ids that have
    arrived, so that they are decoded while the program writing them is still running."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
    # read1 takes what has arrived: read() went on after an end of input until a whole block came, so ids
    # typed at a terminal took a second Ctrl-D (the first ended only the read of what had been typed).
    read = getattr(handle, "read1", handle.read)
    position = 0
    pending = ""
    while True:
        raw = read(TEXT_BLOCK)
        try:
            text = pending + decoder.decode(raw, final=not raw)
        except UnicodeDecodeError:
            raise IdsInputError(f"{label} is not text ids (not UTF-8); give a .npy file or whole numbers "
                                f"separated by spaces or commas{RAW_HINT}") from None
        words = _SEPARATOR.split(text)
        # The last word may go on in the next block, unless this was the end.
        pending = words.pop() if raw else ""
        ids: list[int] = []
        for word in words + ([pending] if len(pending) > LONGEST_ID else []):
            if not word:
                continue
            if len(word) > LONGEST_ID:
                raise IdsInputError(f"{label}: the word at position {position:,} ({word[:20]!r}...) runs to "
                                    f"{len(word):,} characters or more, too long for a token id; give whole "
                                    "numbers separated by spaces or commas")
            if not word.isascii() or not word.isdigit():
                binary = RAW_HINT if not word.isprintable() else ""  # raw ids can be valid UTF-8 too
                raise IdsInputError(f"{label}: {word!r:.30} at position {position:,} is not a token id; give "
                                    f"whole numbers separated by spaces or commas{binary}")
            ids.append(int(word))
            position += 1
        if ids:
            yield ids
        if not raw:
            return


def _streamed(ids: NpyIds) -> Iterator[Sequence[int]]:
    ids.check_whole()
    yield from ids.blocks()


def _open_ids(name: str, dtype: str | None = None) -> tuple[Iterator[Sequence[int]], str, BinaryIO | None]:
    """The ids to decode, a block at a time, the input's name for messages, and the handle to close afterwards.

    A ``.npy`` array and an llm.c token file are told by their first bytes; raw ids only by ``dtype``,
    which is refused for a file that says its own type (it would be read with its header as ids)."""
    if name == "-":
        if dtype is not None:
            raise IdsInputError("--dtype reads a file of raw ids; give its path instead of stdin")
        if sys.stdin.isatty():  # else 'bpe-tui decode tok.json' waits in silence, as if it hung
            sys.stderr.write("bpe-tui decode: reading ids from the terminal; end them with Ctrl-D, or give a FILE\n")
            sys.stderr.flush()
        return text_id_blocks(sys.stdin.buffer, "stdin"), "stdin", None
    if no_such_file(name):  # 'bpe-tui decode tok.json 15496' reads FILE as a path
        raise IdsInputError(f"{shown_path(name)}: no such file; check the path, or to decode ids themselves, pipe "
                            "them in (echo 15496 995 | bpe-tui decode TOKENIZER)")
    # stdin takes text ids only: a .npy has to be a file, which decode reads in blocks.
    fix = "pipe text ids into stdin with - instead, or copy a .npy to a regular file first"
    path = check_regular_file(name, IdsInputError, fix=fix)
    label = shown_path(path)
    handle = open(path, "rb")
    start = handle.read(len(MAGIC))
    if start.startswith(ZIP_MAGIC):
        handle.close()
        raise IdsInputError(f"{label} is a zip archive, as numpy.savez writes (.npz), not an id array; save the ids "
                            "with numpy.save (.npy), or take the array out of the archive first")
    kind = id_file_kind(start)
    if dtype is not None:
        handle.close()
        if kind is not None:
            raise IdsInputError(f"{label} is {kind}, which says its own id type; leave out --dtype")
        return _streamed(read_raw_ids(path, dtype)), f"{label} (read as raw {dtype})", None
    if kind is not None:
        handle.close()
        return _streamed(read_id_file(path)), label, None
    handle.seek(0)
    return text_id_blocks(handle, label), label, handle


def _warn_if_other_tokenizer(name: str, model: BPEModel, tokenizer_arg: str) -> None:
    """One line on stderr when the id file's sidecar names another tokenizer (nothing when it has none)."""
    if name == "-" or not sidecar_path(name).exists():
        return
    try:
        side = read_sidecar(name)
    except SidecarError as error:
        _warn(f"{error}; cannot tell which tokenizer made these ids")
        return
    if side.fingerprint != fingerprint(model):
        _warn(f"{shown_path(sidecar_path(name))} says these ids were made by {side.tokenizer_name or 'a tokenizer'!r:.40} "
              f"(fingerprint {side.fingerprint[:12]}), not by {shown_path(tokenizer_arg)} "
              f"(fingerprint {fingerprint(model)[:12]}); the text will be wrong")


def _warn(line: str) -> None:
    sys.stderr.write(escape_token(f"bpe-tui decode: warning: {line}", glyphs=False) + "\n")
    sys.stderr.flush()


# ------------------------------------------------------------------------------------------------ writing


def decoded_blocks(blocks: Iterator[Sequence[int]], model: BPEModel, label: str,
                   tokenizer_arg: str) -> Iterator[bytes]:
    """The bytes of each block of ids (a long one in parts); an id not in the vocabulary is an IdsInputError
    naming it and its position."""
    vocab = model.vocab
    position = 0
    for ids in blocks:
        parts: list[bytes] = []
        for token_id in ids:
            token = vocab.get(token_id)
            if token is None:
                largest = max(vocab, default=-1)
                raise IdsInputError(
                    f"{label}: id {token_id:,} at position {position:,} is not in the vocabulary of "
                    f"{shown_path(tokenizer_arg)} (ids 0..{largest:,}); decode with the tokenizer that made the ids"
                )
            parts.append(token)
            position += 1
            if len(parts) >= 1 << 16:
                yield b"".join(parts)
                parts = []
        if parts:
            yield b"".join(parts)


def _write(blocks: Iterator[bytes], out: BinaryIO, *, raw: bool, terminal: bool, flush: bool = False) -> None:
    """Write the decoded ``blocks`` to ``out``; ``flush``: each as it comes (stdout, which a person or a
    program may be reading while the ids still arrive)."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    for data in blocks:
        if raw:
            out.write(data)
        else:
            text = decoder.decode(data)
            if terminal:
                text = "".join(ch if ch in "\n\t" else escape_token(ch, glyphs=False) for ch in text)
            out.write(text.encode("utf-8"))
        if flush:
            out.flush()
    if not raw:
        out.write(decoder.decode(b"", final=True).encode("utf-8"))


def run(args: argparse.Namespace, outputs: Outputs) -> int:
    """Decode as ``args`` say; with ``-o``, the file is checked first and written atomically."""
    if args.output == "-":
        args.output = None  # standard output, as without -o (it made a file named '-')
    model = load_tokenizer(Path(args.tokenizer), merges_path=args.merges)
    if args.output is not None:
        if args.file != "-":
            outputs.add_input(args.file, "the id file")
        add_tokenizer_inputs(outputs, Path(args.tokenizer), args.merges)
        output = outputs.add(args.output, "-o")
    terminal = args.output is None and sys.stdout.isatty()
    if terminal and args.bytes:
        raise IdsInputError("--bytes writes raw bytes, which a terminal cannot show; redirect stdout to a file "
                            "or give -o PATH")
    _warn_if_other_tokenizer(args.file, model, args.tokenizer)
    ids, label, handle = _open_ids(args.file, args.dtype)
    try:
        blocks = decoded_blocks(ids, model, label, args.tokenizer)
        if args.output is not None:
            with atomic_open(output) as out:
                _write(blocks, out, raw=args.bytes, terminal=False)
        else:
            sys.stdout.flush()
            _write(blocks, sys.stdout.buffer, raw=args.bytes, terminal=terminal, flush=True)
            sys.stdout.buffer.flush()
    finally:
        if handle is not None:
            handle.close()
    return 0
