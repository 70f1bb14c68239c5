"""Shared checks for the per-module derivation tests: find a claim, break it in one
deliberate way (`variant`), and assert the engine refutes the broken copy with a
counterexample while the original is established.

The bundled paper's claims are verified by replaying their committed certificates
(derivations/certificates.json): every step of the proof is done again, nothing is trusted,
but no time goes into searching; a certificate that does not replay makes the claim
searched again.  A wrong variant has another id and declaration, so it has no certificate:
it is falsified first, as any new claim."""

import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT / "src", ROOT / "derivations"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import _paper_run  # noqa: E402
from verify_claims import HOLDS  # noqa: E402
from verify_claims.engine.verify import verify as _verify  # noqa: E402
from verify_claims.run.certificates import Certificates  # noqa: E402
from verify_claims.run.keys import declaration_key  # noqa: E402
from verify_claims.run.settings import Settings  # noqa: E402

SETTINGS = Settings(seed=0, samples=100, precision=30)
CERTIFICATES = Certificates.load(ROOT / "derivations")


def verify(c, settings=SETTINGS):
    """verify(), replaying the committed certificate of a bundled claim (None for others).

    When the session also runs the bundled paper's tests, a bundled claim's result is that
    whole-paper run's (tests/_paper_run.py: read from its proof store under the claim's
    key), not a second verification of the same claim -- if these settings ask for no more
    than the CLI's defaults: another seed, at most as many points (the modules sample fewer
    for speed).  An edited claim, a wrong variant or other settings (budgets, precision)
    miss and are verified here."""
    if _within_defaults(settings):
        shared = _paper_run.stored_result(c)
        if shared is not None:
            return shared
    replay = CERTIFICATES.lookup(c.id, declaration_key(c))
    res = _verify(c, settings, certificate=replay)
    assert (res.evidence.get("replay") or {}).get("result") != "failed", (c.id, res.evidence.get("replay"))
    return res


def _within_defaults(settings) -> bool:
    default = Settings()
    return settings.samples <= default.samples and \
        dataclasses.replace(settings, seed=default.seed, samples=default.samples) == default


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
