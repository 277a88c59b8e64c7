"""Old import path of :mod:`fairtheory.proofs.kernel.pep` (the trusted kernel lives in :mod:`fairtheory.proofs.kernel`).

Importing this module gives the kernel module itself (one module object under two names), so attributes, private
helpers and monkeypatches are shared.
"""

import sys

from fairtheory.proofs.kernel import pep as _kernel_module

sys.modules[__name__] = _kernel_module
