"""Users' own papers: the `grpo_formulas` package and the `examples/dpo` directory.

The README's "Write your own derivations" path must work from a fresh clone without the
bundled paper's private helpers (derivations/_*.py):

- examples/dpo (a second paper, DPO) verifies with every claim as expected;
- `grpo_formulas` imports with no derivations directory on sys.path, and the example
  modules import nothing but verify_claims, sympy and grpo_formulas;
- the bundled helpers re-export the package's objects instead of redefining them;
- the engine (src/verify_claims) never imports the content package.

Each check that scans source is also run on a planted violation, so that it can fail.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import inspect
import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from verify_claims.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "dpo"
DERIVATIONS = ROOT / "derivations"
ENGINE = ROOT / "src" / "verify_claims"

GRPO_MODULES = ("advantage", "groups", "preference", "divergence", "objective", "closed_forms", "dynamics")
HELPERS = ("_grpo", "_s1_helpers", "_s2_helpers", "_s23_helpers", "_s231_helpers", "_s3_helpers")

# every claim of examples/dpo and the status it must get (the strongest the engine reaches)
EXPECTED_DPO = {
    "rlhf-objective-gap": "proved",
    "rlhf-gibbs-maximiser": "certified",
    "reward-reparametrisation-a": "proved",
    "reward-reparametrisation-c": "proved",
    "gibbs-not-stationary-reverse-kl": "refuted",
    "bradley-terry-partition-cancels": "proved",
    "dpo-gradient-weight-tw": "proved",
    "dpo-gradient-weight-tl": "proved",
    "dpo-gradient-weight-tm": "proved",
}


# ---------------------------------------------------------------- examples/dpo verifies

def test_dpo_example_verifies_with_expected_statuses(tmp_path):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["--derivations", str(EXAMPLE), "--report-dir", str(tmp_path / "r"),
                     "--no-pdf", "--no-html", "--no-cache", "-q"])
    report = json.loads((tmp_path / "r" / "claims.json").read_text())
    assert code == 0, out.getvalue()
    assert report["problems"] == [], report["problems"]
    got = {c["id"]: c["status"] for c in report["claims"]}
    assert got == EXPECTED_DPO, out.getvalue()
    assert all(c["as_expected"] for c in report["claims"]), out.getvalue()
    wrong = next(c for c in report["claims"] if c["id"] == "gibbs-not-stationary-reverse-kl")
    assert wrong["expected"] != "holds" and "reverse KL" in wrong["expected_reason"]
    assert wrong["counterexample"], "a refutation names its counterexample"


# ---------------------------------------------------------------- imports of the example and the package

ALLOWED_IN_EXAMPLES = {"verify_claims", "sympy", "grpo_formulas"}


def _imported_roots(source: str) -> set:
    """Top-level names of every module a source file imports (relative imports as '.')."""
    roots = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            roots.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            roots.add("." if node.level else node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                "import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
            roots.add(str(node.args[0].value).split(".")[0])
    return roots


def test_import_scanner_sees_every_form_of_import():
    src = "import a.b\nfrom c.d import e\nfrom . import f\nimport importlib\nimportlib.import_module('g.h')\n"
    assert _imported_roots(src) == {"a", "c", ".", "importlib", "g"}


def test_example_modules_import_only_the_public_surface():
    modules = sorted(EXAMPLE.glob("*.py"))
    assert len(modules) >= 2
    bad = {p.name: sorted(_imported_roots(p.read_text()) - ALLOWED_IN_EXAMPLES) for p in modules}
    assert not any(bad.values()), f"example modules import more than {sorted(ALLOWED_IN_EXAMPLES)}: {bad}"
    assert any("grpo_formulas" in _imported_roots(p.read_text()) for p in modules), \
        "the example should show grpo_formulas in use"


def test_grpo_formulas_imports_without_the_derivations_directory(tmp_path):
    """In a fresh interpreter whose path has the installed packages but no derivations
    directory (no _grpo.py findable), every module of grpo_formulas imports and computes."""
    import grpo_formulas
    import verify_claims
    paths = {str(Path(m.__file__).resolve().parents[1]) for m in (grpo_formulas, verify_claims)}
    code = textwrap.dedent(f"""
        import importlib, importlib.util, sys
        assert importlib.util.find_spec("_grpo") is None, "a derivations directory is on sys.path"
        mods = [importlib.import_module("grpo_formulas." + m) for m in {GRPO_MODULES!r}]
        import sympy as sp
        from grpo_formulas.closed_forms import closed_form_g2, closed_form_large
        from grpo_formulas.advantage import advantage_with_ties
        from grpo_formulas.divergence import kl, k3
        assert closed_form_g2(sp.S(1), sp.S(1), sp.Rational(1, 4)) == sp.Rational(1, 2)   # sqrt(ref) at beta = gamma
        assert closed_form_large(0, sp.Rational(1, 3)) == 1
        assert advantage_with_ties([1, 1], 0) == 0
        half = sp.Rational(1, 2)
        assert kl({{"a": half, "b": half}}, {{"a": half, "b": half}}) == 0
        assert k3(1, 1) == 0
        helpers = [m for m in sys.modules if m.startswith("_s") and m.endswith("_helpers") or m == "_grpo"]
        assert not helpers, helpers
        print("ok", len(mods))
    """)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sorted(paths)), "PYTHONNOUSERSITE": "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"ok {len(GRPO_MODULES)}"


def _readme_minimal_module() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Write your own derivations")
    start = text.index("```python\n", start) + len("```python\n")
    return text[start:text.index("```", start)]


def test_readme_minimal_module_verifies(tmp_path):
    """The module the README's "Write your own derivations" shows works as written."""
    source = _readme_minimal_module()
    assert "grpo_formulas" in _imported_roots(source)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "kl_penalty.py").write_text(source, encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["--derivations", str(tmp_path / "mine"), "--report-dir", str(tmp_path / "r"),
                     "--no-pdf", "--no-html", "--no-cache", "-q"])
    report = json.loads((tmp_path / "r" / "claims.json").read_text())
    assert code == 0 and report["problems"] == [], out.getvalue()
    assert [c["status"] for c in report["claims"]] == ["proved"], out.getvalue()


# ---------------------------------------------------------------- no duplicate definitions

def _load_helper(name: str):
    """A bundled helper loaded from its file under a private name (no sys.path change)."""
    spec = importlib.util.spec_from_file_location(f"_test_examples_{name}", DERIVATIONS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _package_functions() -> dict:
    """{name: function} for every public function of grpo_formulas."""
    out = {}
    for m in GRPO_MODULES:
        mod = importlib.import_module(f"grpo_formulas.{m}")
        for name in mod.__all__:
            obj = getattr(mod, name)
            if callable(obj):
                out.setdefault(name, obj)
    return out


def _body_dump(fn) -> str:
    """The function's AST without its name and docstring: equal for copies of one definition."""
    node = ast.parse(textwrap.dedent(inspect.getsource(inspect.unwrap(fn)))).body[0]
    body = node.body[1:] if (node.body and isinstance(node.body[0], ast.Expr)
                             and isinstance(node.body[0].value, ast.Constant)
                             and isinstance(node.body[0].value.value, str)) else node.body
    return ast.dump(node.args) + "".join(ast.dump(b) for b in body)


def _duplicates(module, package: dict, module_name: str) -> list:
    """Functions defined in `module` that redefine a package function: same name, or the
    same arguments and body under another name."""
    bodies = {_body_dump(f): n for n, f in package.items() if inspect.isfunction(inspect.unwrap(f))}
    out = []
    for name, obj in vars(module).items():
        if not inspect.isfunction(obj) or obj.__module__ != module_name:
            continue
        if name in package:
            out.append(f"{name} (same name as grpo_formulas' {name})")
        elif _body_dump(obj) in bodies:
            out.append(f"{name} (a copy of grpo_formulas' {bodies[_body_dump(obj)]})")
    return out


def test_duplicate_detector_finds_a_copied_definition(tmp_path):
    package = _package_functions()
    src = inspect.getsource(package["mean"]).replace("def mean(", "def group_average(")
    (tmp_path / "_planted.py").write_text("import sympy as sp\n\n\n" + src + "\n\ndef std(rs):\n    return rs\n")
    spec = importlib.util.spec_from_file_location("_planted_helper", tmp_path / "_planted.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    found = _duplicates(mod, package, "_planted_helper")
    assert any(f.startswith("group_average") for f in found) and any(f.startswith("std") for f in found), found


@pytest.mark.parametrize("helper", HELPERS)
def test_bundled_helpers_define_nothing_the_package_provides(helper):
    module = _load_helper(helper)
    package = _package_functions()
    assert _duplicates(module, package, module.__name__) == []


# names the derivation modules import from the helpers -> the package object they must be
REEXPORTS = {
    ("_grpo", "mean"): ("advantage", "mean"),
    ("_grpo", "std"): ("advantage", "std"),
    ("_grpo", "advantage"): ("advantage", "normalised_advantage"),
    ("_grpo", "advantage_with_ties"): ("advantage", "advantage_with_ties"),
    ("_s1_helpers", "advantage_pairwise"): ("advantage", "advantage_pairwise"),
    ("_s1_helpers", "clip_ppo"): ("advantage", "clip_ppo"),
    ("_s1_helpers", "kl"): ("divergence", "kl"),
    ("_s1_helpers", "gibbs"): ("closed_forms", "gibbs"),
    ("_s2_helpers", "adv"): ("advantage", "advantage_ties_structural"),
    ("_s2_helpers", "kl"): ("divergence", "kl"),
    ("_s2_helpers", "kl0"): ("divergence", "kl0"),
    ("_s2_helpers", "kl_rev"): ("divergence", "kl_rev"),
    ("_s2_helpers", "penalty_term"): ("divergence", "k3"),
    ("_s2_helpers", "penalty_def"): ("divergence", "penalty_def"),
    ("_s2_helpers", "expected_group_relative_preference"): ("preference", "expected_group_relative_preference"),
    ("_s2_helpers", "expected_preference_under"): ("preference", "expected_preference_under"),
    ("_s2_helpers", "reward_preference_def"): ("preference", "reward_preference_def"),
    ("_s2_helpers", "point_mass"): ("groups", "point_mass"),
    ("_s23_helpers", "objective"): ("objective", "grpo_objective"),
    ("_s23_helpers", "expected"): ("objective", "expected"),
    ("_s231_helpers", "closed_form_g2"): ("closed_forms", "closed_form_g2"),
    ("_s231_helpers", "closed_form_large"): ("closed_forms", "closed_form_large"),
    ("_s231_helpers", "esign"): ("preference", "expected_sign"),
    ("_s231_helpers", "win_prob"): ("preference", "win_probability"),
    ("_s231_helpers", "point_mass"): ("groups", "point_mass"),
    ("_s3_helpers", "closed_form_g2"): ("closed_forms", "closed_form_direct_kl_g2"),
    ("_s3_helpers", "gibbs"): ("closed_forms", "gibbs"),
    ("_s3_helpers", "win_prob"): ("preference", "win_probability"),
    ("_s3_helpers", "adv_shift"): ("advantage", "advantage_shift_only"),
    ("_s3_helpers", "expected_pref_shift"): ("preference", "expected_group_relative_preference_shift_only"),
    ("_s3_helpers", "kl_bern"): ("divergence", "kl_bern"),
}


def test_bundled_helpers_reexport_the_package_objects():
    helpers = {h: _load_helper(h) for h in HELPERS}
    wrong = {f"{h}.{n}": f"grpo_formulas.{m}.{a}" for (h, n), (m, a) in REEXPORTS.items()
             if getattr(helpers[h], n, None) is not getattr(importlib.import_module(f"grpo_formulas.{m}"), a)}
    assert not wrong, f"helper names that are not the package's objects: {wrong}"


# ---------------------------------------------------------------- the engine does not import the content

def _files_importing(root: Path, name: str) -> list:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                  if name in _imported_roots(p.read_text(encoding="utf-8")))


def test_engine_scan_finds_a_planted_import(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "ok.py").write_text("import sympy\n")
    (tmp_path / "pkg" / "bad.py").write_text("def f():\n    from grpo_formulas.divergence import kl\n")
    (tmp_path / "pkg" / "sneaky.py").write_text("import importlib\nm = importlib.import_module('grpo_formulas')\n")
    assert _files_importing(tmp_path / "pkg", "grpo_formulas") == ["bad.py", "sneaky.py"]


def test_engine_does_not_import_grpo_formulas(cli_env):
    assert _files_importing(ENGINE, "grpo_formulas") == []
    code = ("import sys, verify_claims.cli, verify_claims.engine.verify, verify_claims.run.session, "
            "verify_claims.run.collect, verify_claims.report.html, verify_claims.expectations\n"
            "assert 'grpo_formulas' not in sys.modules, 'the engine imported grpo_formulas'\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=cli_env, check=False)
    assert done.returncode == 0, done.stderr
