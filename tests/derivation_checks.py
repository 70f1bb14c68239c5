"""Shared checks for the per-module derivation tests: find a claim, break it in one
deliberate way (`variant`), and assert the engine refutes the broken copy with a
counterexample while the original is established."""

import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT / "src", ROOT / "derivations"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from verify_claims import HOLDS  # noqa: E402
from verify_claims.engine.verify import verify  # noqa: E402
from verify_claims.run.settings import Settings

SETTINGS = Settings(seed=0, samples=100, precision=30)


def claim(module, cid):
    found = [c for c in module.CLAIMS if c.id == cid]
    assert found, f"no claim {cid} in {module.__name__}"
    return found[0]


def variant(original, **changes):
    """A copy of a claim with some fields changed, expected (wrongly) to hold.  A `where`
    given without a `domain` is added to the original's relations."""
    return dataclasses.replace(original, id=original.id + "-wrong-variant", expect=HOLDS, uses=(),
                               **changes)


def assert_refuted(c, settings=SETTINGS):
    c.validate()
    res = verify(c, settings)
    assert res.status == "refuted", (c.id, res.status, res.message, res.evidence)
    assert isinstance(res.counterexample, dict) and res.counterexample
    return res


def assert_established(c, settings=SETTINGS):
    res = verify(c, settings)
    assert res.status in ("proved", "certified", "checked"), (c.id, res.status, res.message)
    return res
