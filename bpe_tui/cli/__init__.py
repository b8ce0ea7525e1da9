"""Headless subcommands (train, encode, inspect, convert, export): one module each, sharing this dispatcher."""

from __future__ import annotations

import argparse
import importlib
import sys

from core.errors import BPEError

COMMANDS = ("train", "encode", "inspect", "convert", "export")
"""Each name is a module ``bpe_tui.cli.<name>`` with ``add_parser(subparsers)`` and ``run(args) -> int``."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bpe-tui",
        description="Train, watch and inspect byte-level BPE tokenizers. With no command, opens the app.",
        epilog="bpe-tui [PATH...] [--theme NAME] [--no-train] opens the app on tokenizer and corpus files.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"bpe_tui.cli.{name}").add_parser(subparsers)
    return parser


def run_command(argv: list[str]) -> int:
    """Parse ``argv`` (which starts with a command name) and run it; bad input becomes one line on stderr."""
    args = build_parser().parse_args(argv)
    module = importlib.import_module(f"bpe_tui.cli.{args.command}")
    try:
        return module.run(args)
    except BPEError as error:
        print(f"bpe-tui {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"bpe-tui {args.command}: interrupted; nothing was written", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
