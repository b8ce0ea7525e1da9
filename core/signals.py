"""Keeping Ctrl-C where Python can act on it: on the main thread, and never behind a wait that cannot wake.

The kernel hands a signal sent to the process (the terminal's SIGINT) to any one of its threads that does
not block it. Python's C-level handler, in whichever thread took the signal, only records it; the Python
handler (``KeyboardInterrupt``) runs when the main thread next executes Python code. A main thread blocked
in ``select()`` on worker pipes is not woken by a signal another thread took. That is how a Ctrl-C during a
parallel export could hang the CLI: the signal landed on the export's digest thread, the main thread slept
on its workers, and the workers, which leave Ctrl-C to the parent, waited too.

Hence two rules for core:

- a thread core starts blocks the asynchronous signals (:func:`start_deaf_to_signals`), so the kernel
  delivers them to the main thread, whose wait returns at once;
- core's waits on worker processes wake every :data:`WAKE_SECONDS`, so that a signal taken by a thread
  core did not start (a library's) still raises within that time.

And SIGTERM and SIGHUP, once a command takes them (:func:`raise_once`), raise :class:`Terminated`, a
KeyboardInterrupt: every clean-up written for Ctrl-C runs for them too; and once one of them has been
raised, later ones wait for that clean-up instead of cutting it short.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

WAKE_SECONDS = 0.25
"""How long a wait on workers sleeps at most before Python looks for a signal another thread recorded."""

ASYNCHRONOUS_SIGNALS = frozenset(
    getattr(signal, name)
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM")
    if hasattr(signal, name)
)
"""The signals a user or another process sends (not the faults a thread raises on itself)."""


def start_deaf_to_signals(thread: threading.Thread) -> None:
    """Start ``thread`` with :data:`ASYNCHRONOUS_SIGNALS` blocked in it, so that they reach another thread.

    A new thread inherits the mask of the thread that starts it: the signals are blocked here for the
    moment of the start, and the caller's own mask is put back at once (a signal that arrived meanwhile
    is then delivered to the caller as usual). Where there are no signal masks (Windows), signals are
    only ever handled on the main thread anyway, and this is a plain start.

    >>> import threading
    >>> seen = []
    >>> thread = threading.Thread(target=lambda: seen.append(signal.pthread_sigmask(signal.SIG_BLOCK, [])))
    >>> start_deaf_to_signals(thread); thread.join()
    >>> signal.SIGINT in seen[0], signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    (True, False)
    """
    with signals_held():
        thread.start()


@contextmanager
def signals_held() -> Iterator[None]:
    """Hold :data:`ASYNCHRONOUS_SIGNALS` in this thread while a thread or a worker process is started: the new
    one inherits the mask. The caller's own mask is put back as the block ends, and a signal that came
    meanwhile is then delivered to the caller as usual. Where there are no signal masks (Windows) this does
    nothing.

    For a worker process: a forked child runs Python code before its own first line (the interpreter's
    after-fork hooks, ``multiprocessing``'s start-up) with the parent's handlers. A Ctrl-C that lands there
    raised in a hook, and the child printed "Exception ignored in: ..." over the parent's one-line message.
    Held, it waits: the child is born with it blocked, sets its own handlers, and only then calls
    :func:`worker_ready`, which drops a Ctrl-C it ignores and ends on a SIGTERM it leaves to the default.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, ASYNCHRONOUS_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def worker_ready() -> None:
    """In a worker started under :func:`signals_held`, once its handlers are set: let signals in."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, ASYNCHRONOUS_SIGNALS)


TERMINATING_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The signals that ask a process to end (``kill``, ``timeout``, a closed terminal), handled as Ctrl-C is."""


class Terminated(KeyboardInterrupt):
    """A terminating signal (SIGTERM, SIGHUP) raised as Ctrl-C is, so that whatever cleans up after Ctrl-C
    (temporaries removed, workers stopped) cleans up after it too.

    Left to its default action, SIGTERM ended the process on the spot, leaving every temporary beside
    the output and ``--events`` half-written.

    >>> Terminated(signal.SIGTERM).name, Terminated(signal.SIGTERM).status
    ('SIGTERM', 143)
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def name(self) -> str:
        """The signal's name, as ``kill -l`` prints it with ``SIG``."""
        return signal.Signals(self.signum).name

    @property
    def status(self) -> int:
        """The exit status shells give a process the signal ended: 128 + its number."""
        return 128 + self.signum


def raise_once() -> list[int]:
    """From now on, in this process's main thread, SIGINT raises KeyboardInterrupt and SIGTERM and SIGHUP
    raise :class:`Terminated`: the first of them only. Later ones are ignored.

    Once one has come, the process is on its way out, and what it does on the way (stopping workers,
    removing temporaries) must not be cut short by another: Ctrl-C pressed twice, or ``kill`` after it,
    left an export's part files behind. That clean-up is bounded (workers are killed if they do not
    stop), and ``kill -9`` still ends a process that will not.

    Only signals left as they were at start are taken: SIGINT with Python's own handler, the others
    with their default action (one ignored, as ``nohup`` ignores SIGHUP, stays ignored); returns those
    taken. A process forked from this one after the call gets the usual behaviour back when a signal
    comes (KeyboardInterrupt for SIGINT, the default action for the others), so that a worker that did
    not set its own handlers behaves as it would have.
    """
    main_pid = os.getpid()
    taken: list[int] = []

    def ending(signum: int, frame: object) -> None:
        if os.getpid() != main_pid:
            if signum == signal.SIGINT:
                signal.default_int_handler(signum, frame)
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        for other in taken:
            signal.signal(other, signal.SIG_IGN)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated(signum)

    for signum in (signal.SIGINT, *TERMINATING_SIGNALS):
        usual = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
        try:
            if signal.getsignal(signum) is usual:
                signal.signal(signum, ending)
                taken.append(signum)
        except ValueError:  # not the main thread: signals are not ours to handle
            break
    return taken
