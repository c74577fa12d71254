"""Figures and graph pictures for the examples, with graceful fallbacks.

matplotlib is optional: `pyplot()` imports it lazily on the non-interactive Agg backend
(files only, no display) and returns None with a one-line notice when it is missing.
Graphviz is optional too: `write_graph` always writes the DOT text of a graph and renders
it as PNG only when the `dot` program is on PATH.
"""

import os
import shutil

import variable as V

FIGURE_DPI = 80  # small PNGs (well under 150 KB) that still read well on screen


def pyplot():
    """matplotlib.pyplot on the Agg backend, or None (after a one-line notice) if missing."""
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: skipping the figure (pip install matplotlib)")
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(plt, fig, path):
    """Save `fig` as a PNG at `path`, close it and say where it went."""
    fig.tight_layout()
    fig.savefig(path, dpi=FIGURE_DPI)
    plt.close(fig)
    print(f"figure written to {path}")
    return path


def write_graph(output, out_dir, stem, verbose=False):
    """Write the DOT text of the graph behind `output`; render `<stem>.png` if Graphviz is there.

    Returns the path of the PNG, or None when `dot` is not on PATH.
    """
    dot_path = os.path.join(out_dir, f"{stem}.dot")
    with open(dot_path, "w") as handle:
        handle.write(V.get_dot_graph(output, verbose=verbose))
    print(f"graph written to {dot_path}")
    if shutil.which("dot") is None:
        print("Graphviz 'dot' not found: install it to render the graph as PNG")
        return None
    png = V.plot_dot_graph(output, verbose=verbose, to_file=os.path.join(out_dir, f"{stem}.png"))
    print(f"graph rendered to {png}")
    return png


def count_functions(output):
    """Number of Functions (ops) in the graph that produced `output`."""
    return len(V.graph_functions(output))
