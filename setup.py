"""The one compiled part of Summon: card play for the Dragon's search bots, in C.

Why a setup.py beside pyproject.toml: setuptools declares C extensions here (its
pyproject table for them is still experimental).  ``optional=True``: a machine without a
C compiler still installs Summon -- the bots then search with the pure-Python twin
(referee/games/dragon/fast.py, clients/bots/dragon_pimc.py), slower but identical
(tests/clients/test_dragon_native.py holds both to the same answers).
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("summon.clients.bots._dragonplay", ["clients/bots/_dragonplay.c"], optional=True,
              extra_compile_args=["-O2", "-std=c99"]),
])
