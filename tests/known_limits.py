"""Known limits shared by tests (imported as ``from known_limits import ...``; the tests folder is on sys.path).

None at present: no test is marked as expected to fail on some machines."""
