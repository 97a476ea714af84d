"""Run the doctests in the protocol and referee packages (examples in docstrings must work)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import summon.protocol as protocol
import summon.referee as referee


def _modules():
    for pkg in (protocol, referee):
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            yield info.name


@pytest.mark.parametrize("name", sorted(_modules()))
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module)
    assert result.failed == 0
