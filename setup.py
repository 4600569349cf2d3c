"""Finds folkcards' packages: every folder under each top-level folder that ``package-dir`` maps.

The mapping itself (``envs`` → ``folkcards.envs`` …) and everything else lives in pyproject.toml;
setuptools' own discovery cannot prefix the packages it finds, so this file lists them.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import find_namespace_packages, setup

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent


def discover_packages() -> list[str]:
    """``folkcards.envs``, ``folkcards.envs.paston``, ``folkcards.agents.models`` … from the tree."""
    config = tomllib.loads((HERE / "pyproject.toml").read_text(encoding="utf-8"))
    package_dir: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    packages = []
    for package, folder in package_dir.items():
        packages.append(package)
        found = find_namespace_packages(str(HERE / folder), exclude=["*__pycache__*"])
        packages.extend(f"{package}.{sub}" for sub in found)
    return sorted(packages)


if __name__ == "__main__":  # setuptools runs this file as __main__; tests import it
    setup(packages=discover_packages())
