"""Every example's command line: --help describes each option and shows its default, and
the output goes under out/<script name>/ (git-ignored) unless --out says otherwise."""

import argparse
import importlib
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted(p.stem for p in (ROOT / "examples").glob("*.py") if "\ndef main(" in p.read_text())


def help_and_parser(name, monkeypatch, capsys):
    """What `python examples/<name>.py --help` prints, and the parser that printed it."""
    module = importlib.import_module(f"examples.{name}")
    parsers = []
    parse_args = argparse.ArgumentParser.parse_args

    def spy(self, *args, **kwargs):
        parsers.append(self)
        return parse_args(self, *args, **kwargs)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", spy)
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit) as exit_info:
        module.main(["--help"])
    assert exit_info.value.code == 0
    assert len(parsers) == 1, f"{name}: expected one parser, found {len(parsers)}"
    return capsys.readouterr().out, parsers[0]


def test_the_examples_with_a_command_line_are_found():
    assert {"demo", "spiral_mlp", "lstm_sine", "digits_mlp", "tanh_higher_order"} <= set(SCRIPTS)
    assert "mnist" not in SCRIPTS and "cli" not in SCRIPTS


@pytest.mark.parametrize("name", SCRIPTS)
def test_help_describes_every_option_with_its_default(name, monkeypatch, capsys):
    text, parser = help_and_parser(name, monkeypatch, capsys)
    flat = "".join(text.split())                    # wrapping may break a line anywhere
    module = importlib.import_module(f"examples.{name}")
    assert module.__doc__.strip().splitlines()[0] in text     # says what the script does
    options = [a for a in parser._actions if a.option_strings and not isinstance(a, argparse._HelpAction)]
    assert options, name
    for action in options:
        option = action.option_strings[-1]
        assert option in text, f"{name} --help does not list {option}"
        assert action.help, f"{name}: {option} has no description"
        default = "".join(str(action.default).split())
        assert f"(default:{default})" in flat, f"{name} --help does not show the default of {option}"


@pytest.mark.parametrize("name", SCRIPTS)
def test_output_goes_under_out_by_default(name, monkeypatch, capsys):
    _, parser = help_and_parser(name, monkeypatch, capsys)
    assert parser.get_default("out") == os.path.join("out", name)


def test_the_output_folder_is_ignored_by_git():
    assert "out/" in (ROOT / ".gitignore").read_text().splitlines()


def test_the_help_check_fails_on_an_option_without_its_default(monkeypatch, capsys):
    """The test above can fail: a parser with the plain formatter shows no defaults."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=7, help="passes over the data")
    parser.print_help()
    flat = "".join(capsys.readouterr().out.split())
    assert "--epochs" in flat and "(default:7)" not in flat
