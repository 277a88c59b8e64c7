"""Objective families as aggregators of the client-loss vector (one module per family)."""
