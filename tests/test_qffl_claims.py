"""Helpers behind the q-FFL claims: Lemma 8 derivative routes agree; Lemmas 6-7 on a fixed instance."""

from __future__ import annotations

import numpy as np

from fairtheory.exact.qffl import solve_qffl
from fairtheory.metrics import angle_cosine, variance
from verify.claims.qffl import convex_instance, lemma8_derivative


def test_lemma8_fd_matches_implicit_function_derivative():
    P = convex_instance(np.random.default_rng(3), 5, 3)
    fd, ift, gpol = lemma8_derivative(P, 2.0)
    assert gpol < 1e-10
    assert abs(fd - ift) <= 1e-3 * max(1e-3, abs(ift))


def test_lemmas_6_7_on_fixed_instance():
    P = convex_instance(np.random.default_rng(11), 6, 3)
    F0 = solve_qffl(P, 0.0, form="unweighted").extra["losses"]
    F1 = solve_qffl(P, 1.0, form="unweighted").extra["losses"]
    assert variance(F1) <= variance(F0)
    assert angle_cosine(F1) >= angle_cosine(F0)
    # the two facts the proofs use: mean F rises, mean F^2 falls from w*_0 to w*_1
    assert F1.mean() >= F0.mean() - 1e-12 and (F1**2).mean() <= (F0**2).mean() + 1e-12
