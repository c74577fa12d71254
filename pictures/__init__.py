"""Pictures of graphs and of the backward pass: text, Graphviz frames, an HTML page, Jupyter.

Nothing here is engine code: the engine (variable/) offers one observation point in its
queue (`V.record_backward()`), and this package draws what it records.

- text.py: `graph_text(y)`, a graph as a listing that needs nothing installed, and the
  table of a recorded backward (`print(steps)`);
- frames.py: one DOT picture per step (the popped op highlighted, the queued ones with
  their generation, the gradients on the edges they travel), rendered as SVG or PNG when
  Graphviz's `dot` is installed;
- page.py: one self-contained HTML page with every frame, a step slider, previous/next
  buttons and the current step's row of the table;
- notebook.py: what Jupyter shows for a Variable (its value and its graph) and for a
  recording (the page), through IPython's `_repr_*_` protocol, with no Jupyter import;
- recording.py: the recording itself (BackwardRecording, its Passes and Steps);
- render.py: running Graphviz.
"""

from .recording import BackwardRecording
from .text import graph_text

__all__ = ["BackwardRecording", "graph_text"]
