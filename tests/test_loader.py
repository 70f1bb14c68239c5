"""Discovery of derivation modules: every problem names its file (and claim) and cause,
and one broken module never stops the others from loading."""

from __future__ import annotations

import sys

import pytest

from verify_claims.run.collect import Loaded, Problem, load_derivations

GOOD = '''
    """Good module: two claims."""
    import sympy as sp
    from verify_claims import Identity
    x = sp.Symbol("x")
    CLAIMS = [
        Identity(id="good-one", title="t", ref="1", lhs=x + x, rhs=2 * x, domain={x: sp.Interval(0, 1)}),
        Identity(id="good-two", title="t", ref="1", lhs=x * x, rhs=x ** 2, domain={x: sp.Interval(0, 1)}),
    ]
'''


def ids(loaded: Loaded):
    return [c.id for c in loaded.claims]


def only_problem(loaded: Loaded) -> Problem:
    assert len(loaded.problems) == 1, [str(p) for p in loaded.problems]
    return loaded.problems[0]


def test_good_module_loads(write_modules):
    d = write_modules({"good.py": GOOD})
    loaded = load_derivations(d)
    assert ids(loaded) == ["good-one", "good-two"]
    assert loaded.problems == []
    assert loaded.modules == [("good.py", "Good module: two claims.", 2)]
    assert all(c.source == "good.py" for c in loaded.claims)
    assert loaded.directory == str(d.resolve())


def test_modules_load_in_file_name_order(write_modules):
    one = '''
        import sympy as sp
        from verify_claims import Identity
        x = sp.Symbol("x")
        CLAIMS = [Identity(id="{id}", title="t", ref="1", lhs=x, rhs=x, domain={{x: sp.Interval(0, 1)}})]
    '''
    d = write_modules({"b_mod.py": one.format(id="from-b"), "a_mod.py": one.format(id="from-a"),
                       "c_mod.py": one.format(id="from-c")})
    assert ids(load_derivations(d)) == ["from-a", "from-b", "from-c"]


def test_module_raising_at_import_is_a_problem(write_modules):
    d = write_modules({"good.py": GOOD, "broken.py": '''
        import sympy as sp
        x = sp.Symbol("x")
        raise RuntimeError("derivation exploded")
        CLAIMS = []
    '''})
    loaded = load_derivations(d)
    assert ids(loaded) == ["good-one", "good-two"]
    p = only_problem(loaded)
    assert p.file == "broken.py" and p.claim is None
    assert "failed to import: RuntimeError: derivation exploded" in p.cause
    assert "line 4" in p.cause  # the line of the derivation file that raised
    assert str(p).startswith("broken.py: ")


def test_module_with_syntax_error_is_a_problem(write_modules):
    d = write_modules({"good.py": GOOD, "typo.py": "CLAIMS = [\n    Identity(id='x'\n"})
    loaded = load_derivations(d)
    assert ids(loaded) == ["good-one", "good-two"]
    p = only_problem(loaded)
    assert p.file == "typo.py"
    assert p.cause.startswith("syntax error:")


def test_module_importing_a_missing_name_is_a_problem(write_modules):
    d = write_modules({"good.py": GOOD, "missing.py": "from verify_claims import NoSuchKind\nCLAIMS = []\n"})
    loaded = load_derivations(d)
    p = only_problem(loaded)
    assert p.file == "missing.py" and "ImportError" in p.cause and "NoSuchKind" in p.cause
    assert ids(loaded) == ["good-one", "good-two"]


def test_module_without_claims(write_modules):
    d = write_modules({"good.py": GOOD, "helperish.py": "VALUE = 3\n"})
    loaded = load_derivations(d)
    p = only_problem(loaded)
    assert p.file == "helperish.py" and p.claim is None
    assert "defines no CLAIMS list" in p.cause
    assert ids(loaded) == ["good-one", "good-two"]


def test_claims_not_a_list_and_non_claim_entries(write_modules):
    d = write_modules({"notlist.py": "CLAIMS = 'nope'\n", "mixed.py": GOOD.replace(
        "CLAIMS = [", "CLAIMS = [42,")})
    loaded = load_derivations(d)
    causes = {p.file: p.cause for p in loaded.problems}
    assert causes["notlist.py"] == "CLAIMS must be a list of claims"
    assert causes["mixed.py"].startswith("CLAIMS contains int 42")
    assert ids(loaded) == ["good-one", "good-two"]


def test_malformed_claim_is_a_problem_naming_the_claim(write_modules):
    d = write_modules({"good.py": GOOD, "bad_claim.py": '''
        import sympy as sp
        from verify_claims import Identity, Inequality
        x, y = sp.symbols("x y")
        CLAIMS = [
            Identity(id="no-domain", title="t", ref="1", lhs=x + y, rhs=y + x, domain={x: sp.Interval(0, 1)}),
            Inequality(id="bad-op", title="t", ref="1", lhs=x, op="=<", rhs=x, domain={x: sp.Interval(0, 1)}),
            Identity(id="fine", title="t", ref="1", lhs=x, rhs=x, domain={x: sp.Interval(0, 1)}),
        ]
    '''})
    loaded = load_derivations(d)
    assert ids(loaded) == ["fine", "good-one", "good-two"]
    by_claim = {p.claim: p for p in loaded.problems}
    assert set(by_claim) == {"no-domain", "bad-op"}
    assert all(p.file == "bad_claim.py" for p in loaded.problems)
    assert "symbol(s) y have no domain" in by_claim["no-domain"].cause
    assert "op '=<' is not one of" in by_claim["bad-op"].cause
    assert str(by_claim["bad-op"]).startswith("bad_claim.py [bad-op]: ")


def test_non_sympy_expression_is_a_problem_naming_the_claim(write_modules):
    d = write_modules({"strexpr.py": '''
        import sympy as sp
        from verify_claims import Identity
        x = sp.Symbol("x")
        CLAIMS = [Identity(id="string-lhs", title="t", ref="1", lhs="x + 1", rhs=x + 1,
                           domain={x: sp.Interval(0, 1)})]
    '''})
    loaded = load_derivations(d)
    p = only_problem(loaded)
    assert (p.file, p.claim) == ("strexpr.py", "string-lhs")
    assert "x + 1" in p.cause
    assert loaded.claims == []


def test_duplicate_ids_across_modules(write_modules):
    d = write_modules({"a_first.py": GOOD, "b_second.py": GOOD.replace('"good-two"', '"other-two"')})
    loaded = load_derivations(d)
    assert ids(loaded) == ["good-one", "good-two", "other-two"]
    p = only_problem(loaded)
    assert (p.file, p.claim) == ("b_second.py", None)  # the first declaration keeps the id
    assert p.cause == "duplicate claim id 'good-one': already declared in a_first.py"
    assert next(c for c in loaded.claims if c.id == "good-one").source == "a_first.py"


UNUSED = '''
    import sympy as sp
    from verify_claims import Identity
    x = sp.Symbol("x")
    D = {{x: sp.Interval(0, 1)}}
    CLAIMS = [
{claims}
    ]
'''


def _claims_module(*specs):
    """specs: (id, uses tuple) -> module source."""
    lines = "\n".join(f'        Identity(id="{i}", title="t", ref="1", lhs=x, rhs=x, domain=D, uses={u!r}),'
                      for i, u in specs)
    return UNUSED.format(claims=lines)


def test_unknown_uses_id(write_modules):
    d = write_modules({"m.py": _claims_module(("base", ()), ("derived", ("base", "no-such-claim")))})
    loaded = load_derivations(d)
    p = only_problem(loaded)
    assert (p.file, p.claim) == ("m.py", "derived")
    assert p.cause == "`uses` names unknown claim id(s): no-such-claim"
    assert ids(loaded) == ["base"]


def test_uses_across_modules_is_fine(write_modules):
    d = write_modules({"a.py": _claims_module(("base", ())), "b.py": _claims_module(("derived", ("base",)))})
    loaded = load_derivations(d)
    assert loaded.problems == []
    assert ids(loaded) == ["base", "derived"]
    assert loaded.claims[1].uses == ("base",)


def test_self_use(write_modules):
    d = write_modules({"m.py": _claims_module(("selfish", ("selfish",)), ("other", ()))})
    loaded = load_derivations(d)
    p = only_problem(loaded)
    assert (p.claim, p.cause) == ("selfish", "a claim cannot use itself")
    assert ids(loaded) == ["other"]


def test_uses_cycle(write_modules):
    d = write_modules({"m.py": _claims_module(("c-one", ("c-two",)), ("c-two", ("c-three",)),
                                              ("c-three", ("c-one",)), ("free", ()))})
    loaded = load_derivations(d)
    # every claim on the cycle is reported and left out; the others are still verified
    assert sorted(p.claim for p in loaded.problems) == ["c-one", "c-three", "c-two"]
    assert all(p.file == "m.py" and p.cause == "`uses` forms a cycle: c-one -> c-two -> c-three -> c-one"
               for p in loaded.problems)
    assert ids(loaded) == ["free"]


def test_helpers_are_importable_and_not_scanned(write_modules):
    d = write_modules({
        "_shared.py": '''
            """A helper: no CLAIMS, never scanned."""
            import sympy as sp
            x = sp.Symbol("x")
            def double(e):
                return 2 * e
        ''',
        "_broken_helper.py": "raise RuntimeError('helpers must not be imported unless used')\n",
        "uses_helper.py": '''
            import sympy as sp
            from _shared import double, x
            from verify_claims import Identity
            CLAIMS = [Identity(id="helped", title="t", ref="1", lhs=double(x), rhs=x + x,
                               domain={x: sp.Interval(0, 1)})]
        ''',
    })
    loaded = load_derivations(d)
    assert loaded.problems == []
    assert ids(loaded) == ["helped"]
    assert [m[0] for m in loaded.modules] == ["uses_helper.py"]
    assert str(d.resolve()) not in sys.path  # the directory is only on sys.path while loading


def test_helper_of_the_same_name_in_another_directory_is_not_stale(write_modules):
    mod = '''
        import sympy as sp
        from _h import CLAIM_ID
        from verify_claims import Identity
        x = sp.Symbol("x")
        CLAIMS = [Identity(id=CLAIM_ID, title="t", ref="1", lhs=x, rhs=x, domain={x: sp.Interval(0, 1)})]
    '''
    d1 = write_modules({"_h.py": "CLAIM_ID = 'from-first'\n", "m.py": mod}, sub="first")
    d2 = write_modules({"_h.py": "CLAIM_ID = 'from-second'\n", "m.py": mod}, sub="second")
    assert ids(load_derivations(d1)) == ["from-first"]
    assert ids(load_derivations(d2)) == ["from-second"]


def test_empty_directory_loads_nothing(write_modules):
    d = write_modules({"_only_helper.py": "X = 1\n"})
    loaded = load_derivations(d)
    assert loaded.claims == [] and loaded.problems == [] and loaded.modules == []


def test_missing_directory(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_derivations(tmp_path / "nope")


def test_module_whose_import_computes_for_ever_is_a_problem(write_modules):
    d = write_modules({"good.py": GOOD, "spins.py": "while True:\n    pass\nCLAIMS = []\n"})
    loaded = load_derivations(d, import_timeout=0.5)
    p = only_problem(loaded)
    assert p.file == "spins.py" and p.cause == "import did not finish within 0.5 s of CPU time"
    assert ids(loaded) == ["good-one", "good-two"]


def test_module_whose_import_blocks_is_a_problem(write_modules):
    # no CPU used: the wall-clock net (10 x the limit) stops it
    d = write_modules({"good.py": GOOD, "hangs.py": "import time\ntime.sleep(60)\nCLAIMS = []\n"})
    loaded = load_derivations(d, import_timeout=0.3)
    p = only_problem(loaded)
    assert p.file == "hangs.py" and p.cause == "import did not finish within 3 s (it blocks without computing)"
    assert ids(loaded) == ["good-one", "good-two"]
    # --wall-limit sets the net of an import too
    loaded = load_derivations(d, import_timeout=0.3, import_wall=0.5)
    assert only_problem(loaded).cause == "import did not finish within 0.5 s (it blocks without computing)"


def test_an_edit_of_the_same_length_in_the_same_second_is_loaded(write_modules, monkeypatch):
    # the import system trusts a .pyc whose source has the same size and mtime (whole
    # seconds): a scripted edit, or a checkout, within the second must still be what is
    # verified -- the module and the helper it imports are compiled from their source
    import os
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as on a machine that writes .pyc
    monkeypatch.setattr(sys, "pycache_prefix", None)  # beside the sources (the suite may set a prefix)
    d = write_modules({
        "_helper.py": "from sympy import Rational\nRHS = Rational(2)\n",
        "mod.py": '''
            import sympy as sp
            from verify_claims import Identity
            from _helper import RHS
            x = sp.Symbol("x")
            CLAIMS = [Identity(id="edited", title="t", ref="1", lhs=x + x, rhs=RHS * x,
                               domain={x: sp.Interval(0, 1)})]
        '''})
    first = load_derivations(d).claims[0]
    assert first.lhs == first.rhs
    for name, old, new in (("mod.py", "x + x", "x * x"), ("_helper.py", "Rational(2)", "Rational(3)")):
        f = d / name
        stat = f.stat()
        f.write_text(f.read_text().replace(old, new))
        os.utime(f, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # the same size and the same mtime
    again = load_derivations(d).claims[0]
    x = sorted(again.lhs.free_symbols, key=str)[0]
    assert (again.lhs, again.rhs) == (x * x, 3 * x)
    assert not (d / "__pycache__").exists()  # and nothing is written beside the derivations


def test_the_loader_leaves_the_import_system_as_it_found_it(write_modules):
    # a module that takes its directory off sys.path fails to load, and leaves no finder
    # behind; a file named like a built-in module does not replace it (as on sys.path)
    import importlib.machinery
    before = list(sys.meta_path)
    d = write_modules({"mod.py": "import os, sys\nsys.path.remove(os.path.dirname(__file__))\nCLAIMS = []\n"})
    load_derivations(d)
    assert sys.meta_path == before
    builtin = next((n for n in sys.builtin_module_names if n not in sys.modules and not n.startswith("_")), None)
    if builtin is None:
        pytest.skip("every built-in module is imported already")
    d2 = write_modules({f"_{builtin}_user.py": f"import {builtin}\nORIGIN = {builtin}.__spec__.origin\n",
                        f"{builtin}.py": "CLAIMS = []\n",
                        "user.py": f"from _{builtin}_user import ORIGIN\nCLAIMS = []\n"}, sub="d2")
    loaded = load_derivations(d2)
    assert sys.meta_path == before and not loaded.problems, [str(p) for p in loaded.problems]
    assert sys.modules[f"_{builtin}_user"].ORIGIN == "built-in"
    assert importlib.machinery.PathFinder in sys.meta_path
