"""Federated algorithms as pure ``init``/``step`` functions over explicit state (one module each)."""
