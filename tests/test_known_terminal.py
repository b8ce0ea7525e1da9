"""The test suite does not depend on the terminal it is run from (see ``known_terminal`` in conftest)."""

from __future__ import annotations

import os


def test_tests_see_a_known_terminal() -> None:
    # Run from a shell with NO_COLOR set (a common setting) every snapshot test failed: the app drew in greys;
    # on the Linux console (TERM=linux) it would draw square corners.
    assert "NO_COLOR" not in os.environ and "COLORTERM" not in os.environ
    assert os.environ["TERM"] == "xterm-256color"

