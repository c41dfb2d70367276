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
import tomllib
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
    ("scratch", "broken"),
    [
        # content may not ask who is reading: the policy is a floor up
        ({"questions/_scratch.py": "from inferview.access import policy\n"}, "Floors"),
        # the learner's activity may not reach the pages that compose it
        ({"inferview/community/_scratch.py": "from inferview.pages import content\n"}, "Floors"),
        # kernels are NumPy only
        ({"calculators/kernels/_scratch.py": "import django\n"}, "Calculator kernels import no"),
        # kernels sit below the rest of their app
        ({"calculators/kernels/_scratch.py": "from calculators import presets\n"}, "sit below"),
        # a cycle between two modules of one package
        (
            {
                "questions/_scratch.py": "from questions import _scratch2\n",
                "questions/_scratch2.py": "from questions import _scratch\n",
            },
            "No import cycles",
        ),
        # a cycle across the roots, through the shell: no-cycles looks only inside each
        # root package, so the shell contract is what catches it
        (
            {
                "questions/_scratch.py": "from inferview import cache\n",
                "inferview/cache.py": "from questions import _scratch\n",
            },
            "shell around the floors",
        ),
        # an error page reaching up into a page
        (
            {"inferview/views.py": "from inferview.pages import content\n"},
            "shell around the floors",
        ),
    ],
)
def test_a_wrong_import_breaks_its_contract(tree, scratch, broken):
    """Each path gets the code: a new file is created, an existing one has it appended;
    all are put back afterwards."""
    before = {}
    for where, code in scratch.items():
        path = tree / where
        before[path] = path.read_text() if path.exists() else None
        path.write_text((before[path] or "") + code)
    try:
        result = _lint(tree)
    finally:
        for path, text in before.items():
            if text is None:
                path.unlink()
            else:
                path.write_text(text)
    assert result.returncode != 0, result.stdout
    broken_section = result.stdout.split("Broken contracts")[1]
    assert broken in broken_section, result.stdout


def test_every_top_level_module_of_inferview_is_on_a_floor_or_in_the_shell():
    """A new module at the top of inferview must be placed: on a floor (the layers) or in
    the shell (forbidden to import any app); otherwise no contract would look at it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    contracts = {contract["id"]: contract for contract in config["contracts"]}
    placed = set(contracts["floors"]["layers"]) | set(contracts["shell"]["source_modules"])
    found = {
        f"inferview.{path.stem}"
        for path in (ROOT / "inferview").iterdir()
        if (path.suffix == ".py" and path.stem != "__init__")
        or (path.is_dir() and (path / "__init__.py").exists())
    }
    assert found - placed == set()
    # and the shell may import no floor
    assert set(contracts["shell"]["forbidden_modules"]) == set(contracts["floors"]["layers"]) - {
        "inferview.api"
    }
