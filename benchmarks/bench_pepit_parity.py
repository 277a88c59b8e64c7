"""PEPit parity table: our builder on PEPit 0.5.1's examples vs their documented tight values (and PEPit itself).

For every example of :data:`fairtheory.worstcase.pepit_examples.EXAMPLES` at its published parameters (``--full``:
also the full-mode parameters): our worst case (``PEP.solve``, Clarabel, tolerance ``1e-8``), the theoretical value
the example documents as tight (for the three examples whose paper proves an upper bound only, ``Example.kind ==
"bound"``, that bound: "agrees" then means ``ours <= bound``), their relative difference and our wall time (build +
solve).  When the optional ``PEPit`` package is importable, the same example is also solved by PEPit itself
(``wrapper="cvxpy"``, solver Clarabel through cvxpy) and its value and wall time are reported side by side, measured
in the same run.  The project does not depend on PEPit; install it for this run only (``pip install
pepit-0.5.1-py3-none-any.whl``; ``pip install --target DIR --no-deps pepit==0.5.1`` and ``PYTHONPATH=DIR`` works too).

Run: ``python benchmarks/bench_pepit_parity.py [--full] [--no-pepit]`` (prints a Markdown table).
"""

from __future__ import annotations

import argparse
import importlib
import platform
import time
import warnings
from typing import Any

from fairtheory.worstcase.pepit_examples import EXAMPLES, REL_TOL


def _pepit(path: str, fn: str, params: dict[str, Any]) -> tuple[float, float] | None:
    """PEPit's own value and wall time for one example (``None`` when PEPit is not importable)."""
    try:
        mod = importlib.import_module(path)
    except ImportError:
        return None
    if not hasattr(mod, fn):
        return None  # an example this PEPit version does not have
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        try:
            tau, _ = getattr(mod, fn)(**params, wrapper="cvxpy", solver="CLARABEL", verbose=-1)
        except Exception:  # noqa: BLE001 - PEPit's own failure (solver, signature of another version): no value
            return None
        return float(tau), time.perf_counter() - t0


def _fmt(p: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in p.items())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="also the full-mode parameters")
    ap.add_argument("--no-pepit", action="store_true", help="do not run PEPit even when it is installed")
    args = ap.parse_args()
    use_pepit = not args.no_pepit
    if use_pepit:
        try:
            import PEPit  # noqa: F401
        except ImportError:
            use_pepit = False
    head = "| example | parameters | ours | PEPit documented (theory) | rel. diff | agrees (1e-6) | ours s |"
    sep = "|---|---|---|---|---|---|---|"
    if use_pepit:
        head += " PEPit value | PEPit s |"
        sep += "---|---|"
    lines = [head, sep]
    n_ok = n_all = 0
    for name, ex in EXAMPLES.items():
        for p in (ex.quick + ex.full if args.full else ex.quick):
            r = ex.run(**p)
            n_all += 1
            n_ok += r.agrees
            row = (f"| {name} | {_fmt(p)} | {r.ours:.9g} | {r.theory:.9g} | {r.rel_diff:.2e} | "
                   f"{('yes' if r.agrees else 'NO') + (' (<= bound)' if ex.kind == 'bound' else '')} | {r.seconds:.3f} |")
            if use_pepit:
                got = _pepit(*ex.pepit, p) if ex.pepit else None
                row += f" {got[0]:.9g} | {got[1]:.3f} |" if got else " - | - |"
            lines.append(row)
    print("\n".join(lines))
    print(f"\n{n_ok}/{n_all} agree to {REL_TOL:g} relative; Python {platform.python_version()}, "
          f"{platform.machine()}; PEPit {'run side by side' if use_pepit else 'not run'}")


if __name__ == "__main__":
    main()
