"""The static claim-id scanner (``verify.plugins._claim_ids_in``): literal ids, computed ids declared by a literal
``CLAIM_IDS`` tuple, and computed ids without one (unknown: ``None``, the CLI then imports the modules)."""

from __future__ import annotations

from verify.plugins import _claim_ids_in


def test_literal_ids_are_read() -> None:
    src = 'from verify.core import claim\n@claim("a.b")\ndef f(ctx): ...\n@claim("a.c", citation="x")\ndef g(ctx): ...\n'
    assert _claim_ids_in(src) == {"a.b", "a.c"}


def test_computed_ids_without_declaration_are_unknown() -> None:
    src = 'from verify.core import claim\nfor n in ("x", "y"):\n    claim(f"a.{n}")(lambda ctx: None)\n'
    assert _claim_ids_in(src) is None


def test_computed_ids_are_read_from_the_declared_tuple() -> None:
    src = ('from verify.core import claim\nCLAIM_IDS = ("a.x", "a.y")\n@claim("a.z")\ndef f(ctx): ...\n'
           'for n in ("x", "y"):\n    claim(f"a.{n}")(lambda ctx: None)\n')
    assert _claim_ids_in(src) == {"a.x", "a.y", "a.z"}


def test_a_non_literal_declaration_does_not_count() -> None:
    src = 'from verify.core import claim\nCLAIM_IDS = tuple(f"a.{n}" for n in "xy")\nclaim(f"a.{1}")(None)\n'
    assert _claim_ids_in(src) is None
