"""``python -m summon.clients.cli``: the same ``summon`` command as the console script.

The package is imported once, as ``summon.clients.cli``, before this runs: no second copy
of the group (as running a ``cli.py`` module as ``__main__`` would make).
"""

from summon.clients.cli import main

if __name__ == "__main__":  # run by -m; imported alone (tests/test_layers.py) it does nothing
    main()
