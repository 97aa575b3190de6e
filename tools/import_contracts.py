"""A contract type of our own for import-linter: every domain's repository is its own.

``lint-imports`` loads it from ``pyproject.toml`` (``contract_types``; the Makefile's ``lint``
runs it with the repository root on ``PYTHONPATH``). One contract then states, for every
domain at once, what ten ``protected`` and ten ``forbidden`` contracts used to state one domain
at a time (docs/contributors/code-layout.md):

- ``<domain>.repository`` is imported only from inside ``<domain>`` (and by the importers
  ``allowed_importers`` names, as ``"<repository> -> <importer>"``);
- it imports, of the project, only ``may_import`` and its own domain (a repository is SQL over
  the tables; ``exceptions`` lists the few other imports a repository has by design, as
  ``"<repository> -> <imported>"``).

A domain is any package that holds a ``repository`` module under one of ``containers``, so a
new domain is covered the day it has a repository, with no list to extend.
"""

from __future__ import annotations

from typing import Any, cast

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _pairs(entries: list[str]) -> set[tuple[str, str]]:
    pairs = set()
    for entry in entries:
        left, _, right = entry.partition("->")
        pairs.add((left.strip(), right.strip()))
    return pairs


class OwnRepositoriesContract(Contract):
    """Each domain's ``repository`` module is read by its domain only and reads only the
    tables (``may_import``). Broken imports are reported as ``importer -> imported`` lines
    with their line numbers."""

    containers = fields.ListField(subfield=fields.StringField())
    may_import = fields.ListField(subfield=fields.StringField())
    allowed_importers = fields.ListField(subfield=fields.StringField(), required=False, default=[])
    exceptions = fields.ListField(subfield=fields.StringField(), required=False, default=[])

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        # The fields hold the parsed lists once the contract is built (Contract.__init__).
        containers = cast(list[str], self.containers)
        may_import = cast(list[str], self.may_import)
        allowed_in = _pairs(cast(list[str], self.allowed_importers))
        allowed_out = _pairs(cast(list[str], self.exceptions))
        project = {m.split(".")[0] for m in containers}
        repositories = sorted(
            module
            for container in containers
            for module in graph.find_descendants(container) | {container}
            if module.endswith(".repository")
        )
        broken: list[dict[str, Any]] = []
        for repository in repositories:
            domain = repository.rsplit(".", 1)[0]
            for importer in sorted(graph.find_modules_that_directly_import(repository)):
                if _within(importer, domain) or (repository, importer) in allowed_in:
                    continue
                broken.append(self._detail(graph, importer, repository, "reads"))
            for imported in sorted(graph.find_modules_directly_imported_by(repository)):
                if imported.split(".")[0] not in project or _within(imported, domain):
                    continue
                if any(_within(imported, m) for m in may_import):
                    continue
                if (repository, imported) in allowed_out:
                    continue
                broken.append(self._detail(graph, repository, imported, "imports"))
        return ContractCheck(
            kept=not broken, metadata={"broken": broken, "checked": len(repositories)}
        )

    @staticmethod
    def _detail(graph: ImportGraph, importer: str, imported: str, how: str) -> dict[str, Any]:
        details = graph.get_import_details(importer=importer, imported=imported)
        lines = ", ".join(str(d["line_number"]) for d in details)
        return {"importer": importer, "imported": imported, "how": how, "lines": lines}

    def render_broken_contract(self, check: ContractCheck) -> None:
        for item in check.metadata["broken"]:
            if item["how"] == "reads":
                output.print_error(
                    f"{item['importer']} reads {item['imported']}, another domain's "
                    f"repository (l.{item['lines']})"
                )
            else:
                output.print_error(
                    f"{item['importer']} imports {item['imported']}: a repository imports only "
                    f"the tables, the database and its own domain (l.{item['lines']})"
                )
            output.new_line()
