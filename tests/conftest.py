"""Test isolation shared by every test file."""

import os

import pytest


@pytest.fixture(autouse=True)
def _no_phyground_prompt_set():
    """No PhyGround prompt set in the environment before or after a test: a CLI test that names one (``--prompts``
    or ``LAWFUL_PHYGROUND_PROMPTS``) in this process must not change the cases a later test's run builds (a
    module-scoped run fixture is built before any function-scoped fixture of its first test)."""
    os.environ.pop("LAWFUL_PHYGROUND_PROMPTS", None)
    yield
    os.environ.pop("LAWFUL_PHYGROUND_PROMPTS", None)
