"""Benchmarks: gengrad next to hand-written NumPy (and PyTorch when installed), as ratios."""
