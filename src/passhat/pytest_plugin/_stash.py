"""Where the plugin keeps its state on pytest's objects (one place, so no module imports
another's internals)."""

from __future__ import annotations

import pytest

__all__ = ["ATTRIBUTE", "MARKER", "RAISED", "SPEC"]

#: The marker's name: ``@pytest.mark.reliability(...)``.
MARKER = "reliability"

#: The attribute of the final call report that carries the verdict and the runs (a dict of
#: plain values, so pytest-xdist sends it from a worker to the controller with the report).
ATTRIBUTE = "passhat_reliability"

#: The exception the call phase of the latest run raised (None when it passed).
RAISED = pytest.StashKey[BaseException | None]()


#: A marked test's checked spec (a ReliabilitySpec), or the OptionError saying what is wrong.
SPEC = pytest.StashKey[object]()
