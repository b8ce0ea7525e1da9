"""``bpe-tui lens NAME [TOKENIZER] [options] [--json]``: one lens, headless, as text for people or JSON.

Every lens's options are flags of this one command (grouped by lens in ``--help``, with their defaults); a flag the chosen
lens does not take is an error naming the ones it does, rather than silently ignored. TOKENIZER is any
tokenizer file or folder, by default the bundled GPT-2 (``samples/gpt2``). ``lens`` alone, or
``lens --list``, lists the lenses. The ``--json`` fields are a contract for scripts (see the issue's list
in README's Lenses section): keep them as named.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bpe_tui.cli.arguments import input_path, utf8_text
from bpe_tui.cli.outputs import Outputs
from bpe_tui.cli.standard_output import json_line
from bpe_tui.lenses.registry import LENSES, lens_named
from bpe_tui.lenses.spec import LensContext, LensOption, LensSpec
from bpe_tui.sample_files import samples_dir
from bpe_tui.session import LoadedTokenizer, Session
from core.errors import SettingsError
from core.formats import load_tokenizer


def option_flags() -> dict[str, tuple[LensOption, list[LensSpec]]]:
    """Each flag of any lens -> its option (as the first lens declaring it has it) and every lens taking it.

    Lenses may share a flag (``--text``, ``--merges``) only with the same kind of value.

    >>> flags = option_flags()
    >>> flags["--merges"][0].kind, [lens.name for lens in flags["--text"][1]][:1]
    ('int', ['slider'])
    """
    flags: dict[str, tuple[LensOption, list[LensSpec]]] = {}
    for lens in LENSES:
        for option in lens.options:
            if option.flag in flags:
                first, takers = flags[option.flag]
                if first.kind != option.kind or first.name != option.name:
                    raise AssertionError(f"{option.flag} is a {first.kind} in one lens and a {option.kind} in {lens.name}")
                takers.append(lens)
            else:
                flags[option.flag] = (option, [lens])
    return flags


def help_with_default(option: LensOption) -> str:
    """``option``'s help, ending with its default when the help does not give it and it is a plain value.

    >>> help_with_default(LensOption("mix", "mix", "int", 50, help="English share, in percent"))
    'English share, in percent (default 50)'
    >>> help_with_default(LensOption("space", "space", "bool", False, help="encode each word after a space"))
    'encode each word after a space (default: off)'
    """
    value = option.default
    if "default" in option.help or value is None or callable(value):
        return option.help
    if option.kind == "bool":
        shown = ": on" if value else ": off"
    elif option.kind == "int":
        shown = f" {value}"
    else:
        shown = f": {value!r}"
    return f"{option.help} (default{shown})".replace("%", "%%")


def _int_value(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "lens",
        help="show one lens (a lesson of tokenisation) on a tokenizer",
        description="Show a lens on TOKENIZER (default: the bundled GPT-2). 'bpe-tui lens' lists the lenses.",
    )
    parser.add_argument("name", metavar="NAME", nargs="?", help="the lens (see --list)")
    parser.add_argument("tokenizer", metavar="TOKENIZER", nargs="?", type=input_path,
                        help="tokenizer file of any supported format, or its folder (default: samples/gpt2)")
    parser.add_argument("--list", action="store_true", help="list the lenses and exit")
    parser.add_argument("--json", action="store_true", help="print the result as JSON (fields per lens: see README)")
    groups: dict[str, argparse._ArgumentGroup] = {}
    for flag, (option, takers) in option_flags().items():
        # A flag several lenses take goes under a heading of its own, not under the first lens that has it.
        title = "options of several lenses" if len(takers) > 1 else f"{takers[0].name} lens"
        group = groups.get(title)
        if group is None:
            group = groups[title] = parser.add_argument_group(title)
        text = help_with_default(option)
        if len(takers) > 1:  # each lens's own words for it
            text = "; ".join(f"{lens.name}: {help_with_default(lens.option(option.name))}" for lens in takers)
        if option.kind == "bool":
            group.add_argument(flag, dest=option.name, action=argparse.BooleanOptionalAction, default=None, help=text)
        elif option.kind == "int":
            group.add_argument(flag, dest=option.name, metavar="N", type=_int_value, default=None, help=text)
        else:
            group.add_argument(flag, dest=option.name, metavar="PATH" if option.kind == "path" else "TEXT",
                               type=input_path if option.kind == "path" else utf8_text, default=None, help=text)


def listing() -> str:
    """The lenses, one a line: name, then what it shows, then its flags."""
    width = max(len(lens.name) for lens in LENSES)
    lines = []
    for lens in LENSES:
        flags = " ".join(option.flag for option in lens.options)
        lines.append(f"{lens.name:<{width}}  {lens.description}" + (f"  [{flags}]" if flags else ""))
    return "\n".join(lines)


def given_options(args: argparse.Namespace, lens: LensSpec) -> dict[str, Any]:
    """The options set on the command line, all of them ``lens``'s.

    Raises:
        SettingsError: a flag of another lens was given; the message lists this lens's flags.
    """
    own = {option.name for option in lens.options}
    given: dict[str, Any] = {}
    for flag, (option, _) in option_flags().items():
        value = getattr(args, option.name, None)
        if value is None:
            continue
        if option.name not in own:
            flags = ", ".join(o.flag for o in lens.options) or "none"
            raise SettingsError(f"the {lens.name} lens takes no {flag}; its options: {flags}")
        given[option.name] = value
    return given


def default_tokenizer() -> Path:
    """The bundled GPT-2 folder (``samples/gpt2``)."""
    folder = samples_dir()
    if folder is None or not (folder / "gpt2" / "vocab.json").is_file():
        raise SettingsError("no bundled GPT-2 tokenizer in this installation; give a TOKENIZER file")
    return folder / "gpt2"


def run(args: argparse.Namespace, outputs: Outputs) -> int:
    """Print the lens (writes no files); with no NAME, or --list, list the lenses."""
    if args.list or args.name is None:
        sys.stdout.write(listing() + "\n")
        return 0
    lens = lens_named(args.name)
    given = given_options(args, lens)
    path = Path(args.tokenizer) if args.tokenizer is not None else default_tokenizer()
    model = load_tokenizer(path)
    loaded = LoadedTokenizer.from_model(model, name=path.stem or model.name, source=path)
    folder = samples_dir()
    context = LensContext(loaded, Session(samples_dir=folder).sample_texts(), folder)
    result = lens.run(context, given)
    if args.json:
        sys.stdout.write(json_line(result.to_json()))
    else:
        sys.stdout.write(lens.render_text(result) + "\n")
    return 0
