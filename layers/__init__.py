"""Layers and models (Layer, Parameter, Model, Linear, ...)."""
