"""What the headless commands print on standard output, and what happens when it cannot be written.

Help and the version are written at once, so that a full or closed stdout is an error (argparse's own
printing drops write errors); JSON is written so that it stays valid JSON whatever the stream's
encoding; and a reader gone from stdout (``| head``) leaves nothing buffered to fail at exit.
"""

from __future__ import annotations

import errno
import json
import os
import sys
from typing import Any, TextIO

CLOSED_STDOUT = "standard output is closed; redirect it to a file or to /dev/null"


def write_stdout(text: str) -> None:
    """Write ``text`` to stdout at once (``--help``, ``--version``): a closed or full stdout raises OSError.

    argparse's own printing swallows write errors, so ``bpe-tui --help > /dev/full`` printed nothing and
    exited 0, and with stdout closed (``>&-``) it put the help on stderr instead.
    """
    if sys.stdout is None:
        raise OSError(errno.EBADF, CLOSED_STDOUT)
    sys.stdout.write(text)
    sys.stdout.flush()


def stdout_failed(error: OSError, prog: str) -> int:
    """The exit status once ``--help`` or ``--version`` could not be written, after one line on stderr: 0
    when the reader went away (``| head -1``), else 2."""
    from core.output_errors import describe_write_error

    if isinstance(error, BrokenPipeError):
        quiet_stdout()
        return 0
    if sys.stderr is not None:
        sys.stderr.write(f"{prog}: error: {describe_write_error(error)}\n")
    return 2


def quiet_stdout() -> None:
    """Point stdout at /dev/null: after the reader went away (``| head``), what is still buffered can
    never be written, and flushing it at exit would print "Exception ignored ... BrokenPipeError"."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def json_line(value: Any, stream: TextIO | None = None) -> str:
    r"""``value`` as one line of JSON for ``stream`` (default: stdout): characters beyond ASCII as they are
    where the stream writes UTF-8, else as ``\u`` escapes, which JSON reads back as the same characters.

    A stream that cannot encode a character writes it backslash-escaped (see ``bpe_tui.cli``), and
    ``\xe9`` or ``\U0001f600`` inside a JSON string is no JSON at all: ``--json`` with
    ``PYTHONIOENCODING=ascii`` (or a Latin-1 terminal) printed text no JSON reader took.

    >>> import io
    >>> json_line({"text": "é😀"}, io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    '{"text": "\\u00e9\\ud83d\\ude00"}\n'
    >>> json_line({"text": "é"}, io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))
    '{"text": "é"}\n'
    """
    encoding = getattr(stream if stream is not None else sys.stdout, "encoding", None) or ""
    utf8 = encoding.lower().replace("-", "").replace("_", "") in ("utf8", "utf8sig")
    return json.dumps(value, ensure_ascii=not utf8) + "\n"
