"""Known limits shared by tests (imported as ``from known_limits import ...``; the tests folder is on sys.path)."""


#: why a few --full tests are expected to fail on some machines: a status or route that depends on timing or on the
#: last bits of a float solve (tracked as an open issue, "exact at every scale"); each failed in a fresh-clone
#: ``--full`` run on a 2-core machine and on a second machine of the same kind at an earlier commit.  They still run
#: (``strict=False``: a pass is reported as XPASS), and the closing note of the session that marked them lists them.
MACHINE_DEPENDENT = "machine-dependent: a status or route that depends on timing or on the last bits of a float solve"
