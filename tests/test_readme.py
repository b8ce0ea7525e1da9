"""The README against the code: every option it gives a command exists, its example commands parse, each
lens's options are that lens's, and every key a pane binds is in that pane's paragraph.

A user types what the README says; a renamed option or a new key that the README never caught up with is
a claim that fails at the terminal, so these read the README's own text and check it against the parsers
and the screens' ``BINDINGS``.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex

import pytest
from textual.binding import Binding

from bpe_tui.cli import build_parser
from bpe_tui.lenses.registry import LENSES
from bpe_tui.panes import PANES
from tests.data_paths import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    [choices] = [action.choices for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
    return dict(choices)


def options_of(parser: argparse.ArgumentParser) -> set[str]:
    return {flag for action in parser._actions for flag in action.option_strings}


def command_lines() -> list[tuple[int, str, str]]:
    """``(line number, command, rest)`` for each README line that gives a command: in a code block (a synopsis
    and the lines that continue it) or indented as an example."""
    names = "|".join(subcommands())
    found: list[tuple[int, str, str]] = []
    fenced, current = False, None
    for number, line in enumerate(README.splitlines(), start=1):
        if line.startswith("```"):
            fenced, current = not fenced, None
            continue
        start = re.match(rf"\s*bpe-tui ({names})\b(.*)", line)
        if start and (fenced or line.startswith("    ")):
            current = start.group(1)
            found.append((number, current, start.group(2)))
        elif fenced and current and line.startswith(" "):
            found.append((number, current, line))
        else:
            current = None
    return found


def test_every_option_the_readme_gives_a_command_exists() -> None:
    commands = subcommands()
    given = [(str(number), name, rest.split("#")[0]) for number, name, rest in command_lines()]
    names = "|".join(commands)
    given += [(span.group(0), span.group(1), span.group(2))  # inline: `train --errors`, `bpe-tui study --base chars`
              for span in re.finditer(rf"`(?:bpe-tui )?({names}) ([^`]*)`", README)]
    assert len(given) > 30, "the README's commands were not found: this test is out of date"
    unknown = [(where, name, option) for where, name, text in given
               for option in OPTION.findall(text) if option not in options_of(commands[name])]
    assert unknown == []


def test_every_command_has_a_synopsis_and_every_option_is_mentioned() -> None:
    synopses = {name for _, name, _ in command_lines()}
    assert synopses == set(subcommands())
    unmentioned = [(name, option) for name, parser in subcommands().items() for option in options_of(parser)
                   if option.startswith("--") and option not in README and option != "--help"]
    # Long forms of short options the README spells short (-o), and flags the README spells negated.
    allowed = {("train", "--output"), ("decode", "--output"), ("export", "--output"), ("lens", "--list"),
               ("lens", "--specials"), ("lens", "--no-space")}
    assert set(unmentioned) <= allowed


def test_the_readme_example_commands_parse() -> None:
    parser = build_parser()
    examples = [(number, name, rest) for number, name, rest in command_lines()
                if not any(mark in rest for mark in ("[", "...", "|"))]
    assert len(examples) >= 6
    for number, name, rest in examples:
        try:
            parser.parse_args([name, *shlex.split(rest.split("#")[0])])
        except SystemExit:
            pytest.fail(f"README line {number}: bpe-tui {name}{rest} does not parse")


def test_each_lens_bullet_names_the_lens_and_its_own_options() -> None:
    section = README.split("\n## Lenses\n", 1)[1].split("\n## ", 1)[0]
    bullets = re.findall(r"^- \*\*([a-z-]+)\*\*( `[^`]*`)?", section, flags=re.MULTILINE)
    assert [name for name, _ in bullets] == [lens.name for lens in LENSES]
    for (name, options), lens in zip(bullets, LENSES):
        named = {option.replace("--no-", "--") for option in OPTION.findall(options)}
        assert named == {option.flag for option in lens.options}, name


KEY_SPELLINGS = {
    "left": "←", "right": "→", "up": "↑", "down": "↓", "shift+left": "shift", "shift+right": "shift",
    "pageup": "PgUp", "pagedown": "PgDn", "home": "Home", "end": "End", "slash": "/", "escape": "esc",
    "enter": "Enter", "left_square_bracket": "[", "right_square_bracket": "]",
}
"""How the README writes a key Textual names otherwise."""


def pane_paragraph(title: str) -> str:
    """The README's text on a pane: its bullet under "The app" (the Lenses pane's is its own section)."""
    if title == "Lenses":
        return README.split("\n## Lenses\n", 1)[1].split("\n- **", 1)[0]
    app = README.split("\n## The app\n", 1)[1].split("\n## ", 1)[0]
    return app.split(f"\n- **{title}**", 1)[1].split("\n- **", 1)[0]


@pytest.mark.parametrize("pane", PANES, ids=[pane.title for pane in PANES])
def test_every_key_a_pane_binds_is_in_its_readme_paragraph(pane) -> None:
    text = pane_paragraph(pane.title)
    missing = []
    for item in pane.screen.BINDINGS:
        binding = item if isinstance(item, Binding) else Binding(*item)
        for key in binding.key.split(","):
            if key == "escape" and not binding.show:
                continue  # esc leaves a field everywhere; the README says so once, under Keys
            spelled = KEY_SPELLINGS.get(key, key)
            found = re.search(rf"[`/]{re.escape(spelled)}[`/]", text) or (spelled == "Enter" and "Enter" in text)
            if not found:
                missing.append(key)
    assert missing == [], f"{pane.title}: keys the README does not give"


def test_every_key_the_app_binds_is_in_the_readmes_keys() -> None:
    from bpe_tui.app import BpeTuiApp

    text = README.split("\nKeys (", 1)[1].split("\n\n", 1)[0]
    spelled = {"question_mark": "?", "f1": "F1"}
    keys = [key for binding in BpeTuiApp.BINDINGS for key in binding.key.split(",")]
    assert [key for key in keys if not re.search(rf"[`/]{re.escape(spelled.get(key, key))}[`/ ]", text)] == []


def schema(text: str) -> dict[str, object]:
    """The keys of a README JSON sketch such as ``{"a", "b": [{"c"}], "d": {"e"}}``: key -> None, a nested
    sketch (an object), or ``[sketch]`` (a list of objects); anything else in it (``(0-1)``, ``[[a, b]]``)
    is a note for people."""
    tokens = re.findall(r'"[^"]*"|[{}\[\]:,]', text)
    position = 0

    def take() -> str:
        nonlocal position
        position += 1
        return tokens[position - 1]

    def obj() -> dict[str, object]:
        assert take() == "{"
        keys: dict[str, object] = {}
        while tokens[position] != "}":
            key = take().strip('"')
            keys[key] = None
            if tokens[position] == ":":
                take()
                if tokens[position] == "{":
                    keys[key] = obj()
                elif tokens[position] == "[" and tokens[position + 1] == "{":
                    take()
                    keys[key] = [obj()]
                    assert take() == "]"
                else:  # [[a, b]]: a list of pairs
                    depth = 0
                    while True:
                        token = take()
                        depth += {"[": 1, "]": -1}.get(token, 0)
                        if depth == 0:
                            break
            if tokens[position] == ",":
                take()
        take()
        return keys

    return obj()


def missing_keys(sketch: dict[str, object], data: dict[str, object], where: str = "") -> list[str]:
    missing = []
    for key, inner in sketch.items():
        if key not in data:
            missing.append(where + key)
        elif isinstance(inner, dict) and isinstance(data[key], dict):
            missing += missing_keys(inner, data[key], f"{where}{key}.")
        elif isinstance(inner, list) and data[key]:
            missing += missing_keys(inner[0], data[key][0], f"{where}{key}[0].")
    return missing


def test_schema_reads_the_readmes_sketches() -> None:
    assert schema('{"mix" (0-1), "m": {"a", "b"}, "t": [{"c"}], "bpe": [[a, b]], "s"}') == {
        "mix": None, "m": {"a": None, "b": None}, "t": [{"c": None}], "bpe": None, "s": None}


def test_every_json_field_the_readme_gives_a_lens_is_in_its_output(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bpe_tui.__main__ import main
    from tests.cli.cli_cases import tokenizer_file

    tokenizer = tokenizer_file(tmp_path)
    section = README.split("\n## Lenses\n", 1)[1].split("\n## ", 1)[0]
    bullets = re.split(r"\n- \*\*", section)[1:]
    assert len(bullets) == len(LENSES)
    for bullet in bullets:
        name = bullet.split("**", 1)[0]
        sketches = [span for span in re.findall(r"`([^`]*)`", bullet, flags=re.DOTALL) if span.startswith("{")]
        assert sketches, f"the README gives no JSON fields for {name}"
        assert main(["lens", name, str(tokenizer), "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert missing_keys(schema(sketches[-1]), data) == [], name


def test_the_layout_names_every_module_of_the_library_and_the_app() -> None:
    # core/analysis/ names its modules by what they hold ("corpus and vocab stats", "merge trees").
    layout = README.split("\n## Layout\n", 1)[1].split("```", 2)[1]
    described = {"vocab_stats", "merge_tree", "corpus_stats", "script_mix"}
    unnamed = [path.relative_to(ROOT).as_posix() for folder in ("core", "bpe_tui")
               for path in sorted((ROOT / folder).glob("*.py" if folder == "bpe_tui" else "**/*.py"))
               if path.stem not in ("__init__", "__main__") and "lenses" not in path.parts and "cli" not in path.parts
               and path.stem not in described and not re.search(rf"\b{path.stem}\b", layout)]
    assert unnamed == []


def test_the_commands_said_to_take_force_are_those_that_do() -> None:
    sentence = re.search(r"`--force` lets (.*?) replace an existing output file", README, flags=re.DOTALL)
    assert sentence is not None
    named = {span.split()[0] for span in re.findall(r"`([^`]+)`", sentence.group(1))}
    assert named == {name for name, parser in subcommands().items() if "--force" in options_of(parser)}
