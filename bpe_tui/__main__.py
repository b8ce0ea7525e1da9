"""Entry point: ``bpe-tui COMMAND ...`` runs a headless command, ``bpe-tui [PATH...]`` opens the app."""

from __future__ import annotations

import sys

from bpe_tui.cli import COMMANDS, run_command


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and (argv[0] in COMMANDS or argv[0] in ("-h", "--help")):
        return run_command(argv)
    from bpe_tui.launch import launch_app

    return launch_app(argv)


if __name__ == "__main__":
    sys.exit(main())
