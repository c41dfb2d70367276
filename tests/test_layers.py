"""The import contracts in pyproject.toml bite: a wrong import in a scratch copy of the code
breaks the contract that forbids it.

`make test` runs `lint-imports` on the real tree; these tests show that each contract can
fail, by adding one offending module to a copy of the packages (the working tree is never
touched) and running the same command there. (The copy may itself break a contract the
real tree keeps only if the tree is broken, which `make lint` reports first.)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PACKAGES = ("inferview", "questions", "calculators")


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """One copy of the packages for the module; each test adds and removes its scratch."""
    tmp_path = tmp_path_factory.mktemp("tree")
    for name in PACKAGES:
        shutil.copytree(
            ROOT / name,
            tmp_path / name,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=tree,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("where", "code", "broken"),
    [
        # content may not ask who is reading: the policy is a floor up
        ("questions/_scratch.py", "from inferview.access import policy\n", "Floors"),
        # the learner's activity may not reach the pages that compose it
        ("inferview/community/_scratch.py", "from inferview.pages import content\n", "Floors"),
        # kernels are NumPy only
        ("calculators/kernels/_scratch.py", "import django\n", "Calculator kernels import no"),
        # kernels sit below the rest of their app
        ("calculators/kernels/_scratch.py", "from calculators import presets\n", "sit below"),
        # a cycle between two modules of one package
        ("questions/_scratch.py", "from questions import _scratch2\n", "No import cycles"),
    ],
)
def test_a_wrong_import_breaks_its_contract(tree, where, code, broken):
    scratch = [tree / where]
    scratch[0].write_text(code)
    if "_scratch2" in code:
        scratch.append(tree / "questions/_scratch2.py")
        scratch[1].write_text("from questions import _scratch\n")
    try:
        result = _lint(tree)
    finally:
        for path in scratch:
            path.unlink()
    assert result.returncode != 0, result.stdout
    broken_section = result.stdout.split("Broken contracts")[1]
    assert broken in broken_section, result.stdout
