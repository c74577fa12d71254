"""The toy data sets and loaders now live in `layers`: `L.datasets`, `L.DataLoader`.

This module only re-exports them, so that older code importing `examples.datasets`
keeps working; new code should write `import layers as L` and use `L.DataLoader`,
`L.SeqDataLoader`, `L.datasets.spiral` and `L.datasets.sine_curve`.
"""

from layers.dataloader import DataLoader, SeqDataLoader
from layers.datasets import sine_curve, spiral

__all__ = ["DataLoader", "SeqDataLoader", "sine_curve", "spiral"]
