"""Example fairtheory plugin: PropFair and mean + lambda std as aggregators of the client losses."""

from fairtheory_propfair.aggregators import MeanStd, PropFair

__all__ = ["PropFair", "MeanStd"]
