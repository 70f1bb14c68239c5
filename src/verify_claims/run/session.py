"""One run over a derivations directory: collect, reuse what the store holds, verify the
rest in workers, judge the summaries, compute the figures.

Three ways a claim's verdict is obtained, cheapest first:

1. **the store**: an identical claim (same declaration, engine, versions, settings,
   committed certificate) was verified before: its result is reused as it was, and says
   so (``origin="store"``, with the time it was established).  When no file of the
   derivations directory changed, the whole run comes from one stored snapshot and no
   derivation module is even imported.
2. **replay**: a certificate (committed beside the derivations, or the stored trace with
   ``--recheck``) is re-checked step by step, without searching (``origin="replayed"``).
3. **search**: falsify first, then proofs and certificates, cheapest method first
   (``origin="searched"``).

Errors and timeouts are never stored (they may be transient); everything else is.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..model.result import Problem, Result, describe
from ..model.status import Status
from .certificates import FILENAME as CERT_FILE
from .certificates import Certificates
from .fingerprint import digest, directory_digest, engine_fingerprint
from .settings import Settings
from .store import Store, now_utc
from .supervise import run_supervised

__all__ = ["RunOptions", "RunOutcome", "run_directory", "listing", "select", "check_only", "UnknownIds"]


class UnknownIds(ValueError):
    """--only named ids that no claim has (the message suggests close ones)."""


@dataclass
class RunOptions:
    derivations: Path
    settings: Settings = field(default_factory=Settings)
    jobs: int | None = None
    only: tuple = ()
    store: Store | None = None          # None: no proof store at all
    recheck: bool = False               # replay stored certificates instead of trusting stored results
    certificates: bool = True           # replay committed certificates (False: search from scratch)
    figures: bool = True
    import_timeout: float = 60.0


@dataclass
class RunOutcome:
    results: list                       # Result per claim (declaration order), then malformed claims
    problems: list                      # Problem(file, claim, cause)
    uncheckable: list                   # Uncheckable.to_json() dicts
    figures: list                       # computed figure data (empty on --only runs)
    figures_note: str = ""
    modules: list = field(default_factory=list)
    from_snapshot: bool = False         # nothing changed: answered from the store, nothing imported
    slow_modules: list = field(default_factory=list)
    certificates: dict = field(default_factory=dict)   # claim id -> declaration key (for --update-certificates)
    stale_certificates: list = field(default_factory=list)
    replay_failures: list = field(default_factory=list)
    directory: str = ""


def _warn(msg):
    print(f"verify-claims: warning: {msg}", file=sys.stderr)


def run_keys(options: RunOptions) -> tuple:
    """(engine+settings key, directory key): what a snapshot of this run depends on."""
    base = digest(engine_fingerprint(), options.settings.key(), f"certificates={options.certificates}")
    folder = directory_digest(options.derivations, extra=[Path(options.derivations) / CERT_FILE])
    return base, digest(base, folder)


def listing(derivations, store: Store | None, import_timeout: float = 60.0) -> dict:
    """What `--list` prints: modules, claims (id, ref, kind, source, expectation),
    statements not checkable and problems -- from the store when no file changed."""
    key = digest(engine_fingerprint(), "listing", directory_digest(derivations))
    if store is not None:
        got = store.get("listings", key)
        if got is not None:
            return got["listing"]
    from .collect import load_derivations

    def work(emit, guard):
        return _listing_of(load_derivations(derivations, import_timeout=import_timeout, guard=guard))

    data = run_supervised(work, import_timeout=import_timeout)
    if store is not None:
        store.put("listings", key, {"listing": data})
    return data


def _listing_of(loaded) -> dict:
    return {"modules": [list(m) for m in loaded.modules],
            "claims": [{"id": c.id, "ref": str(c.ref), "kind": c.kind, "source": c.source,
                        "expect_holds": c.expect.holds, "uses": list(c.uses)} for c in loaded.claims],
            "uncheckable": [u.to_json() for u in loaded.uncheckable],
            "problems": [[p.file, p.claim, p.cause] for p in loaded.problems],
            "slow_modules": loaded.slow_modules()}


def run_directory(options: RunOptions, on_result=None, on_start=None) -> RunOutcome:
    """Verify every claim of the derivations directory (or the --only selection)."""
    store = options.store
    base_key, run_key = run_keys(options)
    if store is not None and not options.recheck:
        snap = store.get("runs", run_key)
        if snap is not None:
            return _from_snapshot(snap, options, on_start, on_result)

    def work(emit, guard):
        return _load_and_verify(options, base_key, run_key, guard,
                                on_start=lambda *a: emit("start", *a), on_result=lambda *a: emit("result", *a))

    return run_supervised(work, import_timeout=options.import_timeout,
                          handlers={"start": on_start or _ignore, "result": on_result or _ignore})


def _ignore(*_args) -> None:
    pass


def _load_and_verify(options, base_key, run_key, guard, on_start, on_result) -> RunOutcome:
    """Everything that needs the claims themselves (run in the supervised child)."""
    from .collect import load_derivations
    from .keys import declaration_key
    store = options.store
    loaded = load_derivations(options.derivations, import_timeout=options.import_timeout, guard=guard)
    if options.only:
        check_only(options.only, {c.id for c in loaded.claims})
    claims = select(loaded.claims, options.only) if options.only else list(loaded.claims)
    committed = Certificates.load(options.derivations, warn=_warn) if options.certificates else Certificates()
    decl = {c.id: declaration_key(c) for c in claims if c.kind != "summary"}
    out = RunOutcome(results=[], problems=list(loaded.problems), figures=[],
                     uncheckable=[u.to_json() for u in loaded.uncheckable
                                  if not options.only or u.id in set(options.only)],
                     modules=[list(m) for m in loaded.modules], slow_modules=loaded.slow_modules(),
                     certificates=decl, directory=str(Path(options.derivations).resolve()))
    out.stale_certificates = [i for i, k in decl.items() if committed.state(i, k) == "stale"]

    # what the store already knows, and what each remaining claim replays
    results: list = [None] * len(claims)
    keys, replays, todo = {}, {}, []
    for i, c in enumerate(claims):
        if c.kind == "summary":
            continue
        rec = committed.lookup(c.id, decl[c.id]) if options.certificates else None
        keys[c.id] = digest(base_key, decl[c.id], _record_digest(rec))
        entry = store.get("claims", keys[c.id]) if store is not None else None
        if entry is not None and not options.recheck:
            results[i] = _reuse(entry, c)
            continue
        replay = _stored_certificate(entry) if options.recheck and entry is not None else rec
        replays[c.id] = replay
        todo.append(i)
    if on_start:
        on_start(len(claims), len(claims) - len(todo) - sum(1 for c in claims if c.kind == "summary"))
    done = 0
    total = len(claims)
    for i, r in enumerate(results):
        if r is not None:
            done += 1
            if on_result:
                on_result(r, done, total)

    def progress(res, _done, _total):
        nonlocal done
        done += 1
        _finish(res, keys, replays, store, out)
        if on_result:
            on_result(res, done, total)

    from .schedule import judge_summaries, run_claims
    sub = [claims[i] for i in todo]
    for i, res in zip(todo, run_claims(sub, options.settings, jobs=options.jobs, on_result=progress,
                                       certificates=lambda c: replays.get(c.id))):
        results[i] = res
    summaries = [i for i, c in enumerate(claims) if c.kind == "summary"]

    def summary_done(res):
        nonlocal done
        done += 1
        res.origin = "judged"  # from the results of the claims it uses
        res.established_at = now_utc()
        if on_result:
            on_result(res, done, total)

    judge_summaries(claims, summaries, results, summary_done)
    out.results = results + [_problem_result(p) for p in loaded.problems if p.claim]
    if options.figures and not options.only:
        out.figures = compute_figures(loaded.figures)
    elif options.only:
        out.figures_note = "Figures are not computed on an --only run."
    complete = not options.only and not any(r.status in (Status.ERROR, Status.TIMEOUT) for r in out.results
                                            if r.kind != "?")
    if store is not None and complete:
        store.put("runs", run_key, _snapshot(out))
    return out


def select(claims, only) -> list:
    """The --only selection, plus what its summaries use (their verdict is made of theirs).
    Works on claims and on results alike (both have id, kind and uses)."""
    by_id = {c.id: c for c in claims}
    wanted = set(only)
    todo = [i for i in wanted if i in by_id and by_id[i].kind == "summary"]
    while todo:
        for u in by_id[todo.pop()].uses:
            if u not in wanted and u in by_id:
                wanted.add(u)
                if by_id[u].kind == "summary":
                    todo.append(u)
    return [c for c in claims if c.id in wanted]


def check_only(only, known) -> None:
    import difflib
    unknown = [i for i in only if i not in known]
    if unknown:
        hints = []
        for u in unknown:
            close = difflib.get_close_matches(u, known, n=3)
            hints.append(f"{u}" + (f" (did you mean {', '.join(close)}?)" if close else ""))
        raise UnknownIds("unknown claim id(s): " + "; ".join(hints) + ". Run `verify-claims --list` to see the ids.")


def _record_digest(rec) -> str:
    import json
    return "none" if rec is None else digest(json.dumps(rec, sort_keys=True))


def _stored_certificate(entry) -> dict | None:
    res = entry.get("result") or {}
    status = res.get("status")
    if status in ("proved", "certified"):
        return {"status": status, "decisions": (res.get("evidence") or {}).get("trace") or {}}
    if status in ("checked", "undecided"):
        return {"status": status}
    return None


def _reuse(entry, claim) -> Result:
    """A stored result, with today's descriptive fields (title, reference, module)."""
    res = Result.from_json(entry["result"])
    for k, v in describe(claim).items():
        setattr(res, k, v)
    res.as_expected = Result.judge(res.status, claim.expect.holds)
    res.origin = "store"
    res.established_at = entry.get("established_at", "")
    return res


def _finish(res, keys, replays, store, out) -> None:
    """A result fresh from a worker: its origin, and into the store."""
    rep = (res.evidence or {}).get("replay") or {}
    res.origin = "replayed" if rep.get("result") in ("replayed", "search skipped") else "searched"
    if rep.get("result") == "failed":
        out.replay_failures.append((res.id, rep.get("reason", "")))
    res.established_at = now_utc()
    if store is not None and res.id in keys and res.status not in (Status.ERROR, Status.TIMEOUT):
        store.put("claims", keys[res.id], {"id": res.id, "established_at": res.established_at,
                                           "result": res.to_json()})


def _problem_result(p) -> Result:
    return Result(id=p.claim, title="(malformed declaration)", ref="", kind="?", source=p.file,
                  expected="holds", expected_reason="", paper_error=False, status=Status.ERROR,
                  message=p.cause, as_expected=False)


def compute_figures(figures) -> list:
    """The declared figures' data; a figure that cannot be computed is reported, not fatal."""
    from ..report.figures import compute_figure
    out = []
    for f in figures:
        try:
            data = compute_figure(f)
        except Exception as exc:  # noqa: BLE001 - a broken figure is reported, not fatal
            data = {"id": f.id, "title": f.title, "ref": str(f.ref), "caption": f.caption, "source": f.source,
                    "uses": list(f.uses), "agrees": False, "curves": [], "max_abs_diff": float("nan"),
                    "tolerance": 0, "method": "", "closed_form": "", "stationarity": "", "seconds": 0,
                    "problems": [f"could not be computed: {type(exc).__name__}: {exc}"]}
        out.append(data)
    return out


# ---------------------------------------------------------------- snapshots
def _snapshot(out: RunOutcome) -> dict:
    return {"results": [r.to_json() for r in out.results],
            "problems": [[p.file, p.claim, p.cause] for p in out.problems],
            "uncheckable": out.uncheckable, "figures": out.figures, "modules": out.modules,
            "slow_modules": out.slow_modules, "certificates": out.certificates,
            "stale_certificates": out.stale_certificates, "directory": out.directory}


def _from_snapshot(snap, options, on_start, on_result) -> RunOutcome:
    results = [Result.from_json(r) for r in snap["results"]]
    for r in results:
        r.origin = "store"
    out = RunOutcome(results=results, problems=[Problem(*p) for p in snap["problems"]],
                     uncheckable=snap["uncheckable"], figures=snap["figures"], modules=snap["modules"],
                     from_snapshot=True, slow_modules=snap.get("slow_modules", []),
                     certificates=snap.get("certificates", {}), stale_certificates=snap.get("stale_certificates", []),
                     directory=snap.get("directory", ""))
    if options.only:
        check_only(options.only, {r.id for r in results})
        wanted = {r.id for r in select(results, options.only)}
        out.results = [r for r in results if r.id in wanted]
        out.uncheckable = [u for u in out.uncheckable if u["id"] in set(options.only)]
        out.figures, out.figures_note = [], "Figures are not computed on an --only run."
    if on_start:
        on_start(len(out.results), len(out.results))
    for k, r in enumerate(out.results, start=1):
        if on_result:
            on_result(r, k, len(out.results))
    return out
