"""Optimizers (SGD, Adam, ...) and their hooks."""
