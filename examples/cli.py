"""The command line every example shares: --help says what the script does, with defaults.

`example_parser(__doc__, __file__, "the figure")` gives an ArgumentParser whose --help
prints the script's whole docstring (its maths) and, after every option's description,
its default.  It already has `--out`: the directory the script writes into, by default
`out/<script name>/` under the working directory, so that every example writes to one
git-ignored place (`out/` in .gitignore).
"""

import argparse
import os

OUT_ROOT = "out"


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults after each option's help; the docstring's own line breaks kept."""


def default_out_dir(script_file: str) -> str:
    """`out/<script name>`: where the script `script_file` writes when --out is not given."""
    return os.path.join(OUT_ROOT, os.path.splitext(os.path.basename(script_file))[0])


def example_parser(doc: str, script_file: str, writes: str = "the figure") -> argparse.ArgumentParser:
    """An ArgumentParser for the example `script_file`, with --out (directory for `writes`) added.

    Parameters
    ----------
    doc : str
        The script's docstring, shown as the description of --help.
    script_file : str
        The script's `__file__`; names the program and the default output directory.
    writes : str
        What the script writes, for the help of --out ("the figure").
    """
    parser = argparse.ArgumentParser(
        prog=f"python examples/{os.path.basename(script_file)}",
        description=doc.strip(),
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--out", default=default_out_dir(script_file), help=f"directory for {writes}")
    return parser


def add_device_option(parser: argparse.ArgumentParser) -> None:
    """--device cpu|gpu: where the example trains (gpu: through CuPy, on a CUDA GPU)."""
    parser.add_argument("--device", choices=("cpu", "gpu"), default="cpu",
                        help="where to train: gpu needs CuPy and a CUDA GPU "
                             "(pip install -e '.[gpu-cuda13]', or gpu-cuda12)")


def check_device(parser: argparse.ArgumentParser, device: str) -> None:
    """Exit with the reason (no CuPy, or no GPU) when --device gpu cannot run here."""
    if device == "gpu":
        from variable import backend

        try:
            backend.gpu_module("--device gpu")
        except (ImportError, RuntimeError) as error:
            parser.error(str(error))
