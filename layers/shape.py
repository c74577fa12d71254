"""Layers that only reshape: Flatten, for a step of L.Sequential between convolutions and Linear."""

import variable as V

from .layer import Layer


class Flatten(Layer):
    """Keep the batch axis and flatten the rest: (N, C, H, W) -> (N, C * H * W) (`V.flatten`),
    as PyTorch's nn.Flatten() with its defaults."""

    def forward(self, x):
        """Apply V.flatten."""
        return V.flatten(x)
