"""``bpe-tui encode``: encode a text file or stdin with any tokenizer file and print ids, tokens or a count.

Input is streamed through ``Tokenizer.encode_iterable`` a block at a time (not a line at a time: a file of
one long line, minified text or documents joined without newlines, took some 20 bytes of memory a byte
of it), so a file of any size runs in bounded memory and gives exactly the ids of encoding the whole
text at once. Newlines are kept as they are in the input (``\\r\\n`` stays two characters), because
they are part of what gets encoded.
"""

from __future__ import annotations

import argparse
import codecs
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from bpe_tui.cli.arguments import input_path, no_such_file, path_text
from bpe_tui.cli.outputs import Outputs
from bpe_tui.text import escape_token
from core.errors import CorpusError
from core.formats import load_tokenizer
from core.input_files import HEAD_BYTES, check_regular_file, encoding_problem, shown_path


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "encode",
        help="encode text with a tokenizer file",
        description="Encode FILE (or stdin) with TOKENIZER (any supported format) and print the result.",
    )
    parser.add_argument("tokenizer", metavar="TOKENIZER", type=input_path, help="tokenizer file (bpe-tui JSON, tokenizer.json, "
                        "vocab.json, rank file) or a folder holding one")
    parser.add_argument("file", metavar="FILE", nargs="?", default="-", type=path_text,
                        help="UTF-8 text to encode (a regular file); - or omitted: stdin")
    parser.add_argument("--merges", metavar="PATH", type=input_path, help="merges.txt for a GPT-2 vocab.json (default: found beside it)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--ids", dest="mode", action="store_const", const="ids",
                      help="print ids, space separated (default)")
    mode.add_argument("--tokens", dest="mode", action="store_const", const="tokens",
                      help="print one token a line: id, a tab, the token quoted and escaped")
    mode.add_argument("--count", dest="mode", action="store_const", const="count", help="print the number of tokens")
    parser.set_defaults(mode="ids")


BLOCK = 1 << 20
"""Bytes read at a time (less from a pipe or a terminal, where what has arrived is encoded as it comes)."""


def _open_input(name: str) -> tuple[BinaryIO, str]:
    if name == "-":
        if sys.stdin.isatty():  # else a newcomer's 'bpe-tui encode tok.json' waits in silence, as if it hung
            sys.stderr.write("bpe-tui encode: reading the text to encode from the terminal; end it with Ctrl-D, "
                             "or give a FILE\n")
            sys.stderr.flush()
        return sys.stdin.buffer, "stdin"
    if no_such_file(name):  # 'bpe-tui encode tok.json "some text"' reads FILE as a path
        raise CorpusError(f"{shown_path(name)}: no such file; check the path, or to encode text itself, pipe it in "
                          "(echo 'some text' | bpe-tui encode TOKENIZER)")
    # A FIFO or a device would block or never end; it can be piped into stdin instead.
    path = check_regular_file(name, CorpusError, fix="pipe it into stdin with - instead")
    return open(path, "rb"), shown_path(path)


def text_blocks(handle: BinaryIO, label: str, block: int | None = None) -> Iterator[str]:
    """The UTF-8 text of ``handle``, a block at a time; bytes that are not UTF-8 are a CorpusError saying where.

    >>> import io
    >>> list(text_blocks(io.BytesIO("a\\r\\nあ".encode()), "t.txt", block=4))
    ['a\\r\\n', 'あ']
    >>> list(text_blocks(io.BytesIO(b"ok\\ncaf\\xe9\\n"), "t.txt"))
    Traceback (most recent call last):
    core.errors.CorpusError: t.txt: invalid UTF-8 on line 2, at byte offset 6 (byte 0xe9); encode needs UTF-8 text
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
    read = getattr(handle, "read1", handle.read)
    block = block or BLOCK
    line, offset = 1, 0
    while True:
        raw = read(block)
        try:
            text = decoder.decode(raw, final=not raw)
        except UnicodeDecodeError as error:
            # error.object is the bytes the decoder held back from the block before (no newline among
            # them: they begin a character), then this block.
            bad = error.object[error.start]
            where = line + error.object[: error.start].count(b"\n"), offset - len(error.object) + len(raw) + error.start
            # In the first block, the bytes hold the file's start: they may say what the file is (UTF-16,
            # Shift_JIS, EUC-JP: Japanese in UTF-16 has no NUL byte to tell it by).
            fix = (encoding_problem(error.object[:HEAD_BYTES]) if offset == 0 else None) or "encode needs UTF-8 text"
            raise CorpusError(
                f"{label}: invalid UTF-8 on line {where[0]:,}, at byte offset {where[1]:,} (byte 0x{bad:02x}); {fix}"
            ) from None
        if text:
            yield text
        if not raw:
            return
        line += raw.count(b"\n")
        offset += len(raw)


def run(args: argparse.Namespace, outputs: Outputs) -> int:
    """Encode as ``args`` say (encode writes no files: ``outputs`` stays empty)."""
    from core.encode.tokenizer import Tokenizer

    model = load_tokenizer(Path(args.tokenizer), merges_path=args.merges)
    tokenizer = Tokenizer.from_model(model)
    handle, label = _open_input(args.file)
    out = sys.stdout
    with handle:
        ids = tokenizer.encode_iterable(text_blocks(handle, label))
        if args.mode == "count":
            out.write(f"{sum(1 for _ in ids)}\n")
        elif args.mode == "tokens":
            for token_id in ids:
                out.write(f"{token_id}\t{escape_token(model.vocab[token_id], glyphs=False, quote=True)}\n")
        else:
            batch: list[str] = []
            first = True
            for token_id in ids:
                batch.append(str(token_id))
                if len(batch) == 4096:
                    out.write(("" if first else " ") + " ".join(batch))
                    first, batch = False, []
            out.write(("" if first or not batch else " ") + " ".join(batch) + "\n")
    out.flush()
    return 0
