"""Every command's ``--help`` gives each option's default: a user reads there what happens when they leave
an option out, so an option with a default that the help never states is a claim missing."""

from __future__ import annotations

import argparse

import pytest

from bpe_tui.cli import build_parser


def options() -> list[tuple[str, argparse.Action]]:
    [sub] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return [(name, action) for name, parser in sub.choices.items() for action in parser._actions
            if action.option_strings and action.help and action.help is not argparse.SUPPRESS]


@pytest.mark.parametrize(("command", "action"), options(), ids=lambda v: v if isinstance(v, str) else v.dest)
def test_an_option_with_a_default_says_it(command: str, action: argparse.Action) -> None:
    plain_flag = isinstance(action, (argparse._StoreTrueAction, argparse._StoreConstAction, argparse._HelpAction))
    # --workers has no value by default (None: as many as the machine has), which the help must say too.
    has_default = action.default not in (None, [], False) or action.dest == "workers"
    if has_default and not plain_flag:
        assert "default" in action.help, f"{command} {action.option_strings[-1]}: {action.help}"
