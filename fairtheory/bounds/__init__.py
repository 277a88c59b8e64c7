"""Theorem right-hand sides and constants as plain functions named after the result."""
