"""Render a kustomization the way ``kubectl kustomize`` does, for the subset deploy/k8s uses.

kubectl is not installed here (and nothing may be downloaded at run time), so the manifests'
tests render overlays with this: ``resources`` (files, or folders holding a
kustomization.yaml), ``namespace``, ``images`` (``name`` -> ``newName``/``newTag``) and
``patches`` given by ``path`` (strategic merge: a patch applies to the resource of the same
kind and name; maps merge key by key; lists of maps that all carry ``name`` merge item by item
on it, as Kubernetes' containers, env, volumes and ports do; other lists are replaced).
Any other kustomization key is refused, so an overlay can never mean something here that it
does not mean to kustomize.
"""

from __future__ import annotations

from copy import deepcopy
from pathlib import Path
from typing import Any

import yaml

Resource = dict[str, Any]
SUPPORTED = {"apiVersion", "kind", "resources", "namespace", "images", "patches"}


def render(folder: Path) -> list[Resource]:
    """The resources of the kustomization in ``folder``, in order.

    Raises:
        ValueError: an unsupported key, a patch without a target, or a patch that is not a
            file path.
    """
    kustomization = yaml.safe_load((folder / "kustomization.yaml").read_text())
    unsupported = set(kustomization) - SUPPORTED
    if unsupported:
        raise ValueError(f"{folder}: unsupported kustomization keys {sorted(unsupported)}")
    resources: list[Resource] = []
    for entry in kustomization.get("resources", []):
        path = folder / entry
        if path.is_dir():
            resources.extend(render(path))
        else:
            resources.extend(d for d in yaml.safe_load_all(path.read_text()) if d)
    for patch_entry in kustomization.get("patches", []):
        if set(patch_entry) != {"path"}:
            raise ValueError(f"{folder}: only `patches: - path: <file>` is supported")
        for patch in yaml.safe_load_all((folder / patch_entry["path"]).read_text()):
            target = _find(resources, patch["kind"], patch["metadata"]["name"])
            if target is None:
                raise ValueError(f"{folder}: patch for missing {patch['kind']}/{patch['metadata']}")
            resources[resources.index(target)] = merge(target, patch)
    if "namespace" in kustomization:
        for resource in resources:
            resource["metadata"]["namespace"] = kustomization["namespace"]
    for image in kustomization.get("images", []):
        for container in _containers(resources):
            name, _, tag = container["image"].partition(":")
            if name == image["name"]:
                container["image"] = f"{image.get('newName', name)}:{image.get('newTag', tag)}"
    return resources


def merge(base: Any, patch: Any) -> Any:
    """Strategic merge of ``patch`` onto ``base`` (see the module docstring); new objects."""
    if isinstance(base, dict) and isinstance(patch, dict):
        merged = deepcopy(base)
        for key, value in patch.items():
            merged[key] = merge(base[key], value) if key in base else deepcopy(value)
        return merged
    if isinstance(base, list) and isinstance(patch, list) and _named(base) and _named(patch):
        merged_list = deepcopy(base)
        for item in patch:
            match = next((i for i, b in enumerate(merged_list) if b["name"] == item["name"]), None)
            if match is None:
                merged_list.append(deepcopy(item))
            else:
                merged_list[match] = merge(merged_list[match], item)
        return merged_list
    return deepcopy(patch)


def _named(items: list[Any]) -> bool:
    return bool(items) and all(isinstance(i, dict) and "name" in i for i in items)


def _find(resources: list[Resource], kind: str, name: str) -> Resource | None:
    return next((r for r in resources if r["kind"] == kind and r["metadata"]["name"] == name), None)


def _containers(resources: list[Resource]) -> list[dict[str, Any]]:
    pods = [r["spec"]["template"]["spec"] for r in resources if r["kind"] in {"Deployment", "Job"}]
    return [c for pod in pods for c in pod.get("initContainers", []) + pod["containers"]]
