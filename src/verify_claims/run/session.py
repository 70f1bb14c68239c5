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

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..model.result import Problem, Result, describe
from ..model.status import Status
from .certificates import FILENAME as CERT_FILE
from .certificates import Certificates
from .fingerprint import content_fingerprint, digest, directory_digest, engine_fingerprint
from .settings import Settings
from .store import Store, now_utc
from .supervise import run_supervised

__all__ = ["RunOptions", "RunOutcome", "ClaimVerifier", "run_directory", "listing", "select", "wanted_ids",
           "claim_keywords", "uncheckable_chosen", "check_only", "UnknownIds", "last_failed", "remember_failed"]


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
    import_wall: float | None = None     # wall seconds per import (None: 10 x import_timeout)
    keyword: object = None              # a run.keywords.Keywords (-k), or None
    last_failed: tuple | None = None    # --lf: the ids not as expected last time (None: no --lf)
    exitfirst: bool = False             # -x: stop at the first claim not as expected
    mutate: bool = False                # --mutate: after verifying, run every established claim's mutants
    draw: tuple = ()                    # figures drawn beside the loading, in these formats ("svg", "pdf")


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
    not_run: list = field(default_factory=list)        # -x: ids left unverified after the first failure
    mutation: dict | None = None                       # --mutate: claim id -> mutation record
    mutation_failed: list = field(default_factory=list)  # --mutate: [claim id, why] whose mutation run failed
    drawings: dict = field(default_factory=dict)       # the figures drawn beside (report.plots.provide)


def _warn(msg):
    print(f"verify-claims: warning: {msg}", file=sys.stderr)


def run_keys(options: RunOptions) -> tuple:
    """(engine+settings key, directory key): what a snapshot of this run depends on."""
    base = digest(engine_fingerprint(), options.settings.key(), f"certificates={options.certificates}")
    folder = directory_digest(options.derivations, extra=[Path(options.derivations) / CERT_FILE])
    run = digest(base, folder, content_fingerprint())
    if options.mutate:
        from .mutation import VERSION
        run = digest(run, VERSION)  # a snapshot with the mutation records is a different snapshot
    return base, run


def listing(derivations, store: Store | None, import_timeout: float = 60.0, import_wall: float | None = None) -> dict:
    """What `--list` prints: modules, claims (id, ref, kind, source, expectation),
    statements not checkable and problems -- from the store when no file changed."""
    key = digest(engine_fingerprint(), "listing", directory_digest(derivations), content_fingerprint())
    if store is not None:
        got = store.get("listings", key)
        if got is not None:
            return got["listing"]
    from .collect import load_derivations

    def work(emit, guard):
        return _listing_of(load_derivations(derivations, import_timeout=import_timeout, guard=guard,
                                            import_wall=import_wall))

    data = run_supervised(work, import_timeout=import_timeout, import_wall=import_wall)
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


def run_directory(options: RunOptions, on_result=None, on_start=None, on_running=None,
                  on_mutated=None, beside=None) -> RunOutcome:
    """Verify every claim of the derivations directory (or the --only / -k / --lf selection).

    on_start(total, from_store), on_result(result, done, total) and on_running(ids) (the
    claims being verified right now) report progress as it happens; with --mutate,
    on_mutated(claim id, record, done, total) each claim's mutation record.  `beside`:
    started in this process when the verification's child is forked (run_supervised); not
    for a run answered from the store."""
    store = options.store
    base_key, run_key = run_keys(options)
    if store is not None and not options.recheck:
        snap = store.get("runs", run_key)
        if snap is not None:
            return _from_snapshot(snap, options, on_start, on_result, on_mutated)

    def work(emit, guard):
        return _load_and_verify(options, base_key, run_key, guard,
                                on_start=lambda *a: emit("start", *a), on_result=lambda *a: emit("result", *a),
                                on_running=lambda *a: emit("running", *a),
                                on_mutated=lambda *a: emit("mutated", *a))

    return run_supervised(work, import_timeout=options.import_timeout, import_wall=options.import_wall,
                          handlers={"start": on_start or _ignore, "result": on_result or _ignore,
                                    "running": on_running or _ignore, "mutated": on_mutated or _ignore},
                          beside=beside)


def _ignore(*_args) -> None:
    pass


class ClaimVerifier:
    """One claim's verdict, cheapest way first: the store, a replay, a search.  What a
    whole run (`_load_and_verify`) and the pytest plugin share, so that both read and
    write the same proof store entries under the same keys."""

    def __init__(self, options: RunOptions, base_key: str | None = None):
        self.options = options
        self.store = options.store
        self.base_key = base_key or run_keys(options)[0]
        self.committed = (Certificates.load(options.derivations, warn=_warn) if options.certificates
                          else Certificates())
        self.decl: dict = {}      # claim id -> declaration key
        self.keys: dict = {}      # claim id -> store key
        self.replays: dict = {}   # claim id -> certificate to replay (or None: search)
        self.claims_by_id: dict = {}

    def lookup(self, claim) -> Result | None:
        """The stored result of an identical claim, or None (then `replays` says what to
        replay when it is verified)."""
        from .keys import declaration_key
        decl = self.decl[claim.id] = declaration_key(claim)
        self.claims_by_id[claim.id] = claim
        rec = self.committed.lookup(claim.id, decl) if self.options.certificates else None
        self.keys[claim.id] = digest(self.base_key, decl, _record_digest(rec))
        entry = self.store.get("claims", self.keys[claim.id]) if self.store is not None else None
        if entry is not None and not self.options.recheck:
            res = _reuse(entry, claim)
            if entry.get("notation") != notation_digest(claim):  # statement re-rendered: keep it
                self._put(res)
            return res
        self.replays[claim.id] = (_stored_certificate(entry) if self.options.recheck and entry is not None
                                  else rec)
        return None

    def stale(self, claim_id) -> bool:
        return self.committed.state(claim_id, self.decl[claim_id]) == "stale"

    def finish(self, res, replay_failures=None) -> None:
        """A result fresh from a worker: its origin, and into the store."""
        rep = (res.evidence or {}).get("replay") or {}
        res.origin = "replayed" if rep.get("result") in ("replayed", "search skipped") else "searched"
        if rep.get("result") == "failed" and replay_failures is not None:
            replay_failures.append((res.id, rep.get("reason", "")))
        res.established_at = now_utc()
        if res.status not in (Status.ERROR, Status.TIMEOUT):
            self._put(res)

    def _put(self, res) -> None:
        if self.store is not None and res.id in self.keys:
            claim = self.claims_by_id.get(res.id)
            self.store.put("claims", self.keys[res.id], {
                "id": res.id, "established_at": res.established_at,
                "notation": notation_digest(claim) if claim is not None else None, "result": res.to_json()})


def _load_and_verify(options, base_key, run_key, guard, on_start, on_result, on_running=None,
                     on_mutated=None) -> RunOutcome:
    """Everything that needs the claims themselves (run in the supervised child)."""
    beside = None
    if options.draw and options.figures and not _selects(options):
        from .figures_beside import FiguresBeside
        beside = FiguresBeside.start(options, base_key, options.draw, skip=guard.skip if guard is not None else ())
    try:
        return _load_and_verify_with(options, base_key, run_key, guard, on_start, on_result, on_running,
                                     on_mutated, beside)
    finally:
        if beside is not None:
            beside.abandon()


def _selects(options) -> bool:
    """Does the run verify a selection (--only, -k, --lf)?  Then it computes no figures."""
    return bool(options.only) or options.keyword is not None or options.last_failed is not None


def _load_and_verify_with(options, base_key, run_key, guard, on_start, on_result, on_running, on_mutated,
                          beside) -> RunOutcome:
    from .collect import load_derivations
    store = options.store
    loaded = load_derivations(options.derivations, import_timeout=options.import_timeout, guard=guard,
                              import_wall=options.import_wall)
    wanted = wanted_ids(loaded.claims, options)
    claims = list(loaded.claims) if wanted is None else [c for c in loaded.claims if c.id in wanted]
    verifier = ClaimVerifier(options, base_key)
    out = RunOutcome(results=[], problems=list(loaded.problems), figures=[],
                     uncheckable=[u.to_json() for u in loaded.uncheckable if uncheckable_chosen(u, wanted, options)],
                     modules=[list(m) for m in loaded.modules], slow_modules=loaded.slow_modules(),
                     directory=str(Path(options.derivations).resolve()))

    # what the store already knows, and what each remaining claim replays
    results: list = [None] * len(claims)
    todo = []
    for i, c in enumerate(claims):
        if c.kind == "summary":
            continue
        results[i] = verifier.lookup(c)
        if results[i] is None:
            todo.append(i)
    out.certificates = dict(verifier.decl)
    out.stale_certificates = [i for i in verifier.decl if verifier.stale(i)]
    if on_start:
        on_start(len(claims), len(claims) - len(todo) - sum(1 for c in claims if c.kind == "summary"))
    done = 0
    total = len(claims)
    stop = {"now": False}
    for i, r in enumerate(results):
        if r is not None:
            done += 1
            if on_result:
                on_result(r, done, total)
            if options.exitfirst and not r.as_expected:
                stop["now"] = True

    def progress(res, _done, _total):
        nonlocal done
        done += 1
        verifier.finish(res, out.replay_failures)
        if on_result:
            on_result(res, done, total)
        if options.exitfirst and not res.as_expected:
            stop["now"] = True

    from .schedule import judge_summaries, run_claims
    sub = [claims[i] for i in todo]
    if not stop["now"]:
        for i, res in zip(todo, run_claims(sub, options.settings, jobs=options.jobs, on_result=progress,
                                           certificates=lambda c: verifier.replays.get(c.id),
                                           should_stop=lambda: stop["now"], on_running=on_running)):
            results[i] = res
    summaries = [i for i, c in enumerate(claims) if c.kind == "summary"]

    def summary_done(res):
        nonlocal done
        done += 1
        res.origin = "judged"  # from the results of the claims it uses
        res.established_at = now_utc()
        if on_result:
            on_result(res, done, total)

    if stop["now"]:
        # -x: what was not run is not reported, and a summary is judged only from complete evidence
        verified = {claims[i].id for i, r in enumerate(results) if r is not None}
        summaries = [i for i in summaries
                     if all(c.id in verified for c in select(claims, [claims[i].id]) if c.kind != "summary")]
    judge_summaries(claims, summaries, results, summary_done)
    out.not_run = [c.id for c, r in zip(claims, results) if r is None]
    if options.mutate and not stop["now"]:
        from .mutation import run_mutation
        mutated = run_mutation(claims, [r for r in results if r is not None], options.settings, options.jobs,
                               store=store, keys=verifier.keys, on_result=on_mutated)
        out.mutation, out.mutation_failed = mutated.records, [list(f) for f in mutated.failed]
    out.results = [r for r in results if r is not None] + [_problem_result(p) for p in loaded.problems
                                                            if p.claim and (wanted is None or p.claim in wanted)]
    if options.figures and wanted is None:
        # --recheck trusts nothing stored: a figure's agreement is evidence too
        out.figures, out.drawings = _figures(loaded.figures, store, base_key, not options.recheck, beside)
    elif wanted is not None:
        out.figures_note = "Figures are not computed on a run of selected claims."
    complete = wanted is None and not out.not_run and not any(
        r.status in (Status.ERROR, Status.TIMEOUT) for r in out.results if r.kind != "?") and not out.mutation_failed
    if store is not None and complete:
        store.put("runs", run_key, _snapshot(out))
    return out


def wanted_ids(claims, options) -> set | None:
    """The ids a run verifies: --only, -k and --lf narrow it down (each of them, together:
    their intersection), plus what the chosen summaries use.  None: every claim."""
    chosen = None
    if options.only:
        check_only(options.only, {c.id for c in claims})
        chosen = set(options.only)
    if options.keyword is not None:
        hits = {c.id for c in claims if options.keyword.matches(claim_keywords(c))}
        chosen = hits if chosen is None else chosen & hits
    if options.last_failed is not None:
        chosen = set(options.last_failed) if chosen is None else chosen & set(options.last_failed)
    if chosen is None:
        return None
    return {c.id for c in select(claims, chosen)}


def claim_keywords(c) -> tuple:
    """What -k matches against: the id, the kind, the module (file and name), the paper
    reference (so `-k "2.3.1"` or `-k "Eq. (14)"` select a section or an equation)."""
    return _keywords(c.id, c.kind, c.source, c.ref)


def _keywords(cid, kind, source, ref) -> tuple:
    return (cid, kind, str(source), Path(str(source)).stem, str(ref))


def uncheckable_chosen(u, wanted, options) -> bool:
    """Whether a statement listed as not checkable (object or JSON) belongs to the
    selection: named by --only, or matched by -k alone (it has no --lf history)."""
    get = (lambda k: u.get(k, "")) if isinstance(u, dict) else (lambda k: getattr(u, k, ""))
    if wanted is None or get("id") in wanted:
        return True
    if options.keyword is None or options.only or options.last_failed is not None:
        return False
    return options.keyword.matches(_keywords(get("id"), "uncheckable", get("source"), get("ref")))


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


def notation_digest(claim) -> str:
    """What the stored statement was rendered with (the module's notation)."""
    from .keys import Hasher
    # a Hasher per named quantity: its Dummy symbols are numbered within it alone
    return claim.notation.digest(lambda e: Hasher().expr(e)) if claim.notation else ""


def _reuse(entry, claim) -> Result:
    """A stored result, with today's descriptive fields (title, reference, module).  Its
    statement (and a chain's steps) are rendered again when the notation changed."""
    res = Result.from_json(entry["result"])
    same = entry.get("notation") == notation_digest(claim)
    for k, v in describe(claim, statement=(res.statement, res.expanded) if same else None).items():
        setattr(res, k, v)
    if not same and res.steps and getattr(claim, "steps", None):
        for row, step in zip(res.steps, claim.steps):
            row["latex"] = claim.latex(step.expr)
    res.as_expected = Result.judge(res.status, claim.expect.holds)
    res.origin = "store"
    res.established_at = entry.get("established_at", "")
    return res


def _problem_result(p) -> Result:
    return Result(id=p.claim, title="(malformed declaration)", ref="", kind="?", source=p.file,
                  expected="holds", expected_reason="", paper_error=False, status=Status.ERROR,
                  message=p.cause, as_expected=False)


def figure_key(fig, base_key: str) -> str:
    """What a figure's data depends on: every field of its declaration (the descriptive
    ones too: they are copied into the data), the notation its stationarity condition is
    printed with, the engine and settings (base_key), and the code that computes it
    (report/figures.py, which the engine fingerprint leaves out as a renderer: the
    renderers' fingerprint, read once per process, has it)."""
    import dataclasses

    from ..report.artifacts import renderer_fingerprint
    from .keys import Hasher
    fields = tuple((f.name, getattr(fig, f.name)) for f in dataclasses.fields(fig))
    # str(ref): the Hasher leaves a Ref's note out (descriptive for a claim), the data has it
    return digest(base_key, "figure", Hasher().value(fields).hex(), str(fig.ref), notation_digest(fig),
                  renderer_fingerprint())


def _figures(figures, store, base_key: str, reuse: bool, beside) -> tuple:
    """(the figures' data, their drawings): from the process beside the loading
    (run/figures_beside.py) each figure it computed under the key this run gives it, the
    others computed here."""
    done = beside.take() if beside is not None else {}
    data, drawn = [], {}
    for f in figures:
        got = done.get(figure_key(f, base_key)) if done else None
        if got is None:
            data += compute_figures([f], store, base_key, reuse)
        else:
            data.append(got[0])
            drawn.update(got[1])
    return data, drawn


def compute_figures(figures, store: Store | None = None, base_key: str = "", reuse: bool = True) -> list:
    """The declared figures' data; a figure that cannot be computed is reported, not fatal.
    With a store (and `reuse`), a figure whose declaration did not change is taken from it:
    computing the bundled paper's four cost about 1.2 s of every run that imports the modules."""
    from ..report.figures import compute_figure
    out = []
    for f in figures:
        key = figure_key(f, base_key) if store is not None else None
        stored = store.get("figures", key) if key is not None and reuse else None
        if isinstance(stored, dict) and isinstance(stored.get("data"), dict):
            out.append(stored["data"])
            continue
        try:
            data = compute_figure(f)
            if key is not None:
                # as it will come back from the store, so that a stored figure and a fresh
                # one render the same (tuples as lists, numbers as JSON has them)
                data = json.loads(json.dumps(data, ensure_ascii=False, default=str))
                store.put("figures", key, {"id": f.id, "data": data})
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
            "stale_certificates": out.stale_certificates, "directory": out.directory,
            "mutation": out.mutation}


def _from_snapshot(snap, options, on_start, on_result, on_mutated=None) -> RunOutcome:
    results = [Result.from_json(r) for r in snap["results"]]
    for r in results:
        r.origin = "store"
    out = RunOutcome(results=results, problems=[Problem(*p) for p in snap["problems"]],
                     uncheckable=snap["uncheckable"], figures=snap["figures"], modules=snap["modules"],
                     from_snapshot=True, slow_modules=snap.get("slow_modules", []),
                     certificates=snap.get("certificates", {}), stale_certificates=snap.get("stale_certificates", []),
                     directory=snap.get("directory", ""), mutation=snap.get("mutation"))
    wanted = wanted_ids(results, options)
    if wanted is not None:
        out.results = [r for r in results if r.id in wanted]
        out.uncheckable = [u for u in out.uncheckable if uncheckable_chosen(u, wanted, options)]
        out.figures, out.figures_note = [], "Figures are not computed on a run of selected claims."
    if options.exitfirst:
        first = next((k for k, r in enumerate(out.results) if not r.as_expected), None)
        if first is not None:
            out.not_run = [r.id for r in out.results[first + 1:]]
            out.results = out.results[:first + 1]
    if on_start:
        on_start(len(out.results), len(out.results))
    for k, r in enumerate(out.results, start=1):
        if on_result:
            on_result(r, k, len(out.results))
    if out.mutation is not None:
        kept = {r.id for r in out.results}
        out.mutation = {cid: rec for cid, rec in out.mutation.items() if cid in kept}
        for k, (cid, rec) in enumerate(out.mutation.items(), start=1):
            if on_mutated:
                on_mutated(cid, rec, k, len(out.mutation))
    return out


# ---------------------------------------------------------------- --lf
def _lf_key(derivations) -> str:
    return digest("last-failed", str(Path(derivations).resolve()))


def last_failed(store: Store | None, derivations) -> list:
    """The ids that were not as expected when this directory was last verified (--lf)."""
    if store is None:
        return []
    entry = store.get("lastfailed", _lf_key(derivations))
    return list(entry.get("ids", [])) if entry else []


def remember_failed(store: Store, derivations, results, file_problems=()) -> None:
    """Update the --lf record as pytest does: a claim verified now leaves it when it came
    out as expected and enters it when it did not; claims not verified now keep theirs."""
    before = set(last_failed(store, derivations))
    ran = {r.id for r in results}
    bad = {r.id for r in results if not r.as_expected}
    ids = sorted((before - ran) | bad)
    store.put("lastfailed", _lf_key(derivations), {"ids": ids,
                                                  "broken_files": sorted({p.file for p in file_problems})})
