"""The static checks CI runs with the tests: import-linter contracts, ruff, vulture, basedpyright.

Their configuration is in pyproject.toml; each runs over the repository as a
developer would run it by hand, and its report is the failure message.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

LINT_IMPORTS = ("import sys; from importlinter.cli import lint_imports; "
                "sys.exit(lint_imports(no_cache=True))")

CHECKS = {
    # The dependency direction (explorer never imports screens or textual; screens never a compiler).
    "import-linter": [sys.executable, "-c", LINT_IMPORTS],
    "ruff": [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
    "vulture": [sys.executable, "-m", "vulture"],
}


@pytest.mark.parametrize("name", CHECKS)
def test_static_check_passes(name):
    result = subprocess.run(CHECKS[name], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{name} failed:\n{result.stdout}\n{result.stderr}"


def test_basedpyright_finds_no_type_errors_in_the_core():
    """basedpyright in basic mode ([tool.basedpyright] in pyproject.toml: explorer/) reports no error."""
    result = _basedpyright()
    assert result.stdout.strip(), f"basedpyright wrote no report (exit {result.returncode}):\n{result.stderr}"
    report = json.loads(result.stdout)
    errors = [d for d in report["generalDiagnostics"] if d["severity"] == "error"]
    assert report["summary"]["errorCount"] == 0 and errors == [], (
        f"basedpyright: {report['summary']['errorCount']} errors, the first:\n"
        + "\n".join(_diagnostic(d) for d in errors[:20]))
    assert report["summary"]["filesAnalyzed"] > 100, report["summary"]  # it read the core, not an empty list


def _basedpyright() -> subprocess.CompletedProcess[str]:
    """The venv's basedpyright console script (it brings its own Node) over the project, as JSON.

    Its settings named outright: pyright takes a `pyrightconfig.json` in any folder above the
    project over the project's own pyproject.toml (one left in /tmp checked an empty list)."""
    script = Path(sys.executable).with_name("basedpyright")
    command = [str(script), "--outputjson", "--project", str(ROOT / "pyproject.toml")]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def _diagnostic(found: dict) -> str:
    where = Path(found["file"]).relative_to(ROOT) if Path(found["file"]).is_relative_to(ROOT) else found["file"]
    line = found["range"]["start"]["line"] + 1
    return f"{where}:{line}: {found['message'].splitlines()[0]} ({found.get('rule', '')})"


def test_import_linter_catches_a_function_level_import_of_the_ui(tmp_path):
    """The contract sees an import inside a function (which a sys.modules probe cannot)."""
    package = tmp_path / "explorer"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "sneaky.py").write_text("def show():\n    import screens.app\n")
    (tmp_path / "screens").mkdir()
    (tmp_path / "screens" / "__init__.py").write_text("")
    (tmp_path / "screens" / "app.py").write_text("")
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.importlinter]\nroot_packages = ["explorer", "screens"]\n\n'
                      + _contract_text("The core never imports the UI"))
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from importlinter.cli import lint_imports; "
            "sys.exit(lint_imports(config_filename=sys.argv[2], no_cache=True))")
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path), str(config)], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "explorer.sneaky -> screens.app" in result.stdout


def _contract_text(name: str) -> str:
    """The named contract as written in the project's pyproject.toml (one definition, reused)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["name"] == name]
    contract = {**contract, "forbidden_modules": ["screens"]}  # the sample has no textual installed here
    lines = ["[[tool.importlinter.contracts]]"]
    for key, value in contract.items():
        lines.append(f"{key} = {value!r}".replace("'", '"'))
    return "\n".join(lines) + "\n"


# An import kept inside a function carries a PLC0415 noqa with a reason in parentheses: ruff (RUF100)
# checks that the import really is inside a function; the reason tells a reader why it cannot move up.
PLC0415_NOQA = re.compile(r"#\s*noqa:[A-Z0-9, ]*\bPLC0415\b(?P<rest>.*)$")
REASON = re.compile(r"^[A-Z0-9, ]*\s*\(\S[^)]*\)")


def test_every_import_kept_inside_a_function_says_why():
    unexplained = []
    for package in ("explorer", "screens", "sample_models"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                found = PLC0415_NOQA.search(line)
                if found and not REASON.match(found["rest"]):
                    unexplained.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert unexplained == [], "each needs a reason in parentheses after the code:\n" + "\n".join(unexplained)
