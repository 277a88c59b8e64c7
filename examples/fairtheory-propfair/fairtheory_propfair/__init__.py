"""Example fairtheory plugin: PropFair and mean + lambda std as aggregators of the client losses, and a
method of its own (FedAvg with server momentum) whose exact worst case comes from its ``make``."""

from fairtheory_propfair.aggregators import MeanStd, PropFair
from fairtheory_propfair.methods import fedavgm_make

__all__ = ["PropFair", "MeanStd", "fedavgm_make"]
