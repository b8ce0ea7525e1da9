"""Entry point: ``bpe-tui COMMAND ...`` runs a headless command, ``bpe-tui [PATH...]`` opens the app.

Ctrl-C is handled from the first line of :func:`main` on. Until a command has parsed its arguments
nothing has been written, so SIGINT ends the process at once: one line, status 130. From then on it
raises KeyboardInterrupt, which the command turns into its own line after cleaning up (see
:mod:`bpe_tui.cli`). Only the standard library's C modules are imported before that, so that the
handler is in place before anything slow. SIGTERM and SIGHUP (``kill``, ``timeout``, a closed terminal) are
handled the same way, as :class:`core.signals.Terminated`, with status 128 + the signal's number: left to
their default action they ended a command on the spot, its temporaries left beside its outputs.
"""

from __future__ import annotations

import _signal  # the C half of ``signal``, loaded with the interpreter; ``signal`` itself imports enum
import os
import sys
from typing import Any

INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report a process that SIGINT ended."""


_TERMINATING = {
    getattr(_signal, name): name.encode() for name in ("SIGTERM", "SIGHUP") if hasattr(_signal, name)
}
"""The signals that ask a process to end, handled as Ctrl-C is (see :mod:`core.signals`)."""


def _exit_at_once(signum: int, frame: Any) -> None:
    """SIGINT, SIGTERM or SIGHUP while starting: nothing to clean up, so no KeyboardInterrupt (and no
    traceback); the status says which signal, as the shell would."""
    name = _TERMINATING.get(signum)
    try:
        os.write(2, b"bpe-tui: interrupted\n" if name is None else b"bpe-tui: terminated (" + name + b")\n")
    except OSError:
        pass
    os._exit(128 + signum)


def _set_sigint(handler: Any) -> bool:
    try:
        _signal.signal(_signal.SIGINT, handler)
    except ValueError:  # not the main thread: signals are not ours to handle
        return False
    return True


def _exit_at_once_on_termination() -> list[int]:
    """While starting, SIGTERM and SIGHUP end the process at once, as SIGINT does; those taken (a signal
    ignored, as ``nohup`` ignores SIGHUP, or handled by someone else, is left as it was)."""
    taken = []
    for signum in _TERMINATING:
        try:
            if _signal.getsignal(signum) == _signal.SIG_DFL:
                _signal.signal(signum, _exit_at_once)
                taken.append(signum)
        except ValueError:
            break
    return taken


def _default_termination(taken: list[int]) -> None:
    for signum in taken:
        _signal.signal(signum, _signal.SIG_DFL)


def main(argv: list[str] | None = None, *, own_process: bool | None = None) -> int:
    """Run ``bpe-tui`` with ``argv`` (default: ``sys.argv[1:]``) and return the exit status.

    ``own_process`` (default: whether ``argv`` was left to default) says this call is the whole process:
    once it is over, a late Ctrl-C is ignored, so that a finished command cannot end in a
    KeyboardInterrupt on the way out. Tests that call ``main`` in their own process leave Ctrl-C as it was.
    """
    # A SIGINT that is ignored (a background job) or handled by someone else is left as it is.
    starting = _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler
    starting = starting and _set_sigint(_exit_at_once)
    terminating = _exit_at_once_on_termination()
    own = argv is None if own_process is None else own_process
    argv = sys.argv[1:] if argv is None else argv
    try:
        if argv[:1] in (["--version"], ["-V"]):
            from bpe_tui import __version__
            from bpe_tui.cli.standard_output import stdout_failed, write_stdout

            try:
                write_stdout(f"bpe-tui {__version__}\n")
            except OSError as error:  # stdout full, closed or gone: one line, not a traceback
                return stdout_failed(error, "bpe-tui")
            return 0
        from bpe_tui.cli import COMMANDS, execute, parse_command

        if argv and (argv[0] in COMMANDS or argv[0] in ("-h", "--help")):
            parsed = parse_command(argv)
            if isinstance(parsed, int):
                return parsed
            if starting:
                _set_sigint(_signal.default_int_handler)
            _default_termination(terminating)
            from core.signals import raise_once

            # Ctrl-C, SIGTERM and SIGHUP raise, once: a second one waits for the clean-up after the first.
            terminating = [signum for signum in raise_once() if signum != _signal.SIGINT]
            return execute(parsed)
        if starting:
            _set_sigint(_signal.default_int_handler)
        _default_termination(terminating)
        terminating = []
        from bpe_tui.launch import launch_app

        return launch_app(argv)
    except KeyboardInterrupt as interrupt:
        status = getattr(interrupt, "status", None)
        if status is not None:  # core.signals.Terminated
            sys.stderr.write(f"bpe-tui: terminated ({interrupt})\n")
            return status
        sys.stderr.write("bpe-tui: interrupted\n")
        return INTERRUPTED
    finally:
        if own:
            _set_sigint(_signal.SIG_IGN)
        elif starting:
            _set_sigint(_signal.default_int_handler)
        # Once the command is over there is nothing left to clean up: the default action is right again.
        _default_termination(terminating)


if __name__ == "__main__":
    sys.exit(main())
