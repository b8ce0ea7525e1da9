"""Entry point: ``bpe-tui COMMAND ...`` runs a headless command, ``bpe-tui [PATH...]`` opens the app.

Ctrl-C is handled from the first line of :func:`main` on. Until a command has parsed its arguments
nothing has been written, so SIGINT ends the process at once: one line, status 130. From then on it
raises KeyboardInterrupt, which the command turns into its own line after cleaning up (see
:mod:`bpe_tui.cli`). Only the standard library's C modules are imported before that, so that the
handler is in place before anything slow.
"""

from __future__ import annotations

import _signal  # the C half of ``signal``, loaded with the interpreter; ``signal`` itself imports enum
import os
import sys
from typing import Any

INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report a process that SIGINT ended."""


def _exit_at_once(signum: int, frame: Any) -> None:
    """SIGINT while starting: nothing to clean up, so no KeyboardInterrupt (and no traceback)."""
    try:
        os.write(2, b"bpe-tui: interrupted\n")
    except OSError:
        pass
    os._exit(INTERRUPTED)


def _set_sigint(handler: Any) -> bool:
    try:
        _signal.signal(_signal.SIGINT, handler)
    except ValueError:  # not the main thread: signals are not ours to handle
        return False
    return True


def main(argv: list[str] | None = None, *, own_process: bool | None = None) -> int:
    """Run ``bpe-tui`` with ``argv`` (default: ``sys.argv[1:]``) and return the exit status.

    ``own_process`` (default: whether ``argv`` was left to default) says this call is the whole process:
    once it is over, a late Ctrl-C is ignored, so that a finished command cannot end in a
    KeyboardInterrupt on the way out. Tests that call ``main`` in their own process leave Ctrl-C as it was.
    """
    # A SIGINT that is ignored (a background job) or handled by someone else is left as it is.
    starting = _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler
    starting = starting and _set_sigint(_exit_at_once)
    own = argv is None if own_process is None else own_process
    argv = sys.argv[1:] if argv is None else argv
    try:
        if argv[:1] in (["--version"], ["-V"]):
            from bpe_tui import __version__

            print(f"bpe-tui {__version__}")
            return 0
        from bpe_tui.cli import COMMANDS, execute, parse_command

        if argv and (argv[0] in COMMANDS or argv[0] in ("-h", "--help")):
            parsed = parse_command(argv)
            if isinstance(parsed, int):
                return parsed
            if starting:
                _set_sigint(_signal.default_int_handler)
            return execute(parsed)
        if starting:
            _set_sigint(_signal.default_int_handler)
        from bpe_tui.launch import launch_app

        return launch_app(argv)
    except KeyboardInterrupt:
        sys.stderr.write("bpe-tui: interrupted\n")
        return INTERRUPTED
    finally:
        if own:
            _set_sigint(_signal.SIG_IGN)
        elif starting:
            _set_sigint(_signal.default_int_handler)


if __name__ == "__main__":
    sys.exit(main())
