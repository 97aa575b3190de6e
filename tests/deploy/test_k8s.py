"""deploy/k8s (README "Running replicas", "Background work"): every overlay renders, validates
against a pinned Kubernetes version (the monitoring custom resources against their CRDs'
schemas: tests/deploy/crds.py), and keeps what the replicas need (probes, shutdown timing,
non-root, every setting); the alerts parse and fire as promtool's rule tests expect."""

from __future__ import annotations

import copy
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml
from prometheus_client import CollectorRegistry

from api.app.jobs.metrics import WorkerMetrics
from api.kernel.config import Settings
from api.kernel.http.metrics import HttpMetrics, PoolCollector
from devstack.services import ROOT
from tests.deploy import crds
from tests.deploy.kustomize import merge, render

KUBERNETES_VERSION = "1.34.0"
OVERLAYS = sorted((ROOT / "deploy" / "k8s" / "overlays").iterdir())


def _one(resources: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    (found,) = [
        r
        for r in resources
        if r["kind"] == kind and (name is None or r["metadata"]["name"].endswith(name))
    ]
    return found


API, WORKER = "console-api", "console-worker"


@pytest.fixture(params=OVERLAYS, ids=lambda p: p.name)
def rendered(request: pytest.FixtureRequest) -> list[dict[str, Any]]:
    overlay: Path = request.param
    return render(overlay)


def test_there_are_overlays_per_environment() -> None:
    assert [p.name for p in OVERLAYS] == ["production", "staging"]


def test_every_resource_validates_strictly(rendered: list[dict[str, Any]]) -> None:
    kinds = sorted(r["kind"] for r in rendered)
    assert kinds == [
        "ConfigMap",
        "Deployment",
        "Deployment",
        "HorizontalPodAutoscaler",
        "Job",
        "PodDisruptionBudget",
        "PrometheusRule",
        "Service",
        "Service",
        "Service",
        "ServiceMonitor",
    ]
    for resource in rendered:
        if crds.is_custom(resource):
            crds.validate(resource)
        else:
            kubernetes_validate.validate(resource, KUBERNETES_VERSION, strict=True)


def test_every_setting_comes_from_the_config_map_or_the_secret(
    rendered: list[dict[str, Any]],
) -> None:
    config = _one(rendered, "ConfigMap")["data"]
    container = _one(rendered, "Deployment", API)["spec"]["template"]["spec"]["containers"][0]
    worker = _one(rendered, "Deployment", WORKER)["spec"]["template"]["spec"]["containers"][0]
    # The workers read the same settings as the API (they send its emails with its SMTP relay).
    assert (worker["envFrom"], worker["env"]) == (container["envFrom"], container["env"])
    secret = {
        e["name"]
        for e in container["env"]
        if e["valueFrom"]["secretKeyRef"]["name"] == "console-secrets"
    }
    fields = Settings.names()
    assert fields - set(config) - secret == set(), "settings missing from deploy/k8s"
    assert (set(config) | secret) - fields == set(), "deploy/k8s sets unknown settings"
    assert not set(config) & secret
    assert {"DATABASE_URL", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET"} <= secret
    # Every value parses as the API would read it.
    Settings(**{k.lower(): v for k, v in config.items() if not v.startswith("[")})


def test_replicas_probes_and_shutdown_timing(rendered: list[dict[str, Any]]) -> None:
    deployment = _one(rendered, "Deployment", API)
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    config = _one(rendered, "ConfigMap")["data"]
    assert deployment["spec"]["replicas"] >= 2
    assert _one(rendered, "HorizontalPodAutoscaler")["spec"]["minReplicas"] >= 2
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["command"][:3] == ["python", "-m", "api.app.commands.serve"]
    assert container["resources"]["requests"]["cpu"]
    pre_stop = int(container["lifecycle"]["preStop"]["exec"]["command"][1])
    needed = pre_stop + float(config["SHUTDOWN_DRAIN_S"]) + float(config["SHUTDOWN_GRACE_S"])
    # Enough for the whole shutdown, and not so much more that a hung pod lingers.
    assert needed < pod["terminationGracePeriodSeconds"] <= needed + 5


def test_workers_run_and_stop_in_time(rendered: list[dict[str, Any]]) -> None:
    deployment = _one(rendered, "Deployment", WORKER)
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert deployment["spec"]["replicas"] >= 2
    command = container["command"]
    assert command[:3] == ["python", "-m", "api.app.commands.worker"]
    grace = float(command[command.index("--shutdown-grace-s") + 1])
    assert grace < pod["terminationGracePeriodSeconds"] <= grace + 15


def test_pods_run_as_non_root_on_a_read_only_root(rendered: list[dict[str, Any]]) -> None:
    for kind, name in (("Deployment", API), ("Deployment", WORKER), ("Job", None)):
        pod = _one(rendered, kind, name)["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        for container in pod["containers"]:
            assert container["securityContext"]["readOnlyRootFilesystem"] is True
            assert container["securityContext"]["allowPrivilegeEscalation"] is False
            mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
            volumes = {v["name"]: v for v in pod["volumes"]}
            assert "emptyDir" in volumes[mounts["/tmp"]]  # noqa: S108 - the pod's mount
        assert _one(rendered, "Job")["spec"]["template"]["spec"]["containers"][0]["command"] == [
            "python",
            "-m",
            "api.app.commands.migrate",
        ]


def test_overlays_set_namespace_and_image() -> None:
    production = {r["kind"]: r for r in render(ROOT / "deploy/k8s/overlays/production")}
    assert {r["metadata"]["namespace"] for r in production.values()} == {"console"}
    pod = production["Deployment"]["spec"]["template"]["spec"]
    assert pod["containers"][0]["image"] == "registry.example.com/console-api:1.0.0"
    assert production["ConfigMap"]["data"]["WEB_DIST"] == ""
    assert production["ConfigMap"]["data"]["ENVIRONMENT"] == "production"  # from the base
    assert production["HorizontalPodAutoscaler"]["spec"]["minReplicas"] == 6


class TestMonitoring:
    def test_a_custom_resource_that_breaks_its_crd_schema_is_refused(
        self, rendered: list[dict[str, Any]]
    ) -> None:
        monitor = _one(rendered, "ServiceMonitor")
        unknown = copy.deepcopy(monitor)
        unknown["spec"]["endpoints"][0]["scrapeEvery"] = "30s"
        wrong = copy.deepcopy(monitor)
        wrong["spec"]["endpoints"][0]["interval"] = "30 seconds"
        rule = copy.deepcopy(_one(rendered, "PrometheusRule"))
        rule["spec"]["groups"][0]["rules"][0]["for"] = 5
        for broken in (unknown, wrong, rule):
            with pytest.raises(jsonschema.ValidationError):
                crds.validate(broken)
        with pytest.raises(KeyError):
            crds.validate({**monitor, "apiVersion": "monitoring.coreos.com/v2"})

    def test_metrics_ports_are_scraped_and_never_on_the_public_service(
        self, rendered: list[dict[str, Any]]
    ) -> None:
        api = _one(rendered, "Deployment", API)["spec"]["template"]["spec"]["containers"][0]
        worker = _one(rendered, "Deployment", WORKER)["spec"]["template"]["spec"]
        (worker_container,) = worker["containers"]
        for container in (api, worker_container):
            command = container["command"]
            port = int(command[command.index("--metrics-port") + 1])
            assert {"name": "metrics", "containerPort": port} in container["ports"]
        # The worker is ready when it reads its queue and is not stopping.
        assert worker_container["readinessProbe"]["httpGet"] == {
            "path": "/readyz",
            "port": "metrics",
        }
        services = {r["metadata"]["name"]: r for r in rendered if r["kind"] == "Service"}
        public = services[next(n for n in services if n.endswith(API))]
        assert [p["targetPort"] for p in public["spec"]["ports"]] == ["http"]
        monitor = _one(rendered, "ServiceMonitor")
        selected = [
            s
            for s in services.values()
            if monitor["spec"]["selector"]["matchLabels"].items() <= s["metadata"]["labels"].items()
        ]
        assert sorted(s["spec"]["selector"]["app.kubernetes.io/name"] for s in selected) == [
            API,
            WORKER,
        ]
        for service in selected:
            assert [p["name"] for p in service["spec"]["ports"]] == ["metrics"]
        assert [e["port"] for e in monitor["spec"]["endpoints"]] == ["metrics"]

    def test_the_alerts_name_metrics_the_console_exports(
        self, rendered: list[dict[str, Any]]
    ) -> None:
        registry = CollectorRegistry()
        HttpMetrics(registry)
        registry.register(PoolCollector(dict))
        WorkerMetrics(registry)
        # The series names each family gives, labelled children or not (OpenMetrics suffixes).
        suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum")}
        exported = {
            family.name + suffix
            for family in registry.collect()
            for suffix in suffixes.get(family.type, ("",))
        }
        rules = [r for g in _one(rendered, "PrometheusRule")["spec"]["groups"] for r in g["rules"]]
        alerts = {r["alert"] for r in rules}
        assert {
            "ConsoleJobQueueBacklog",
            "ConsoleJobAttemptsFailing",
            "ConsoleJobFailed",
            "ConsoleHigh5xxRate",
            "ConsoleSlowReads",
        } == alerts
        for rule in rules:
            used = {word for word in _words(rule["expr"]) if word.startswith("console_")}
            assert used and used <= exported, f"{rule['alert']}: {used - exported}"

    def test_the_alerts_fire_as_promtool_tests_expect(
        self, rendered: list[dict[str, Any]], tmp_path: Path
    ) -> None:
        promtool = shutil.which("promtool")
        assert promtool, "promtool is missing: `make promtool` installs Debian's prometheus"
        groups = _one(rendered, "PrometheusRule")["spec"]["groups"]
        (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": groups}))
        shutil.copy(ROOT / "tests" / "deploy" / "alerts_test.yaml", tmp_path)
        for command in (["check", "rules", "rules.yaml"], ["test", "rules", "alerts_test.yaml"]):
            done = subprocess.run(
                [promtool, *command], cwd=tmp_path, capture_output=True, text=True, check=False
            )
            assert done.returncode == 0, done.stdout + done.stderr


def _words(expr: str) -> list[str]:
    """The identifiers of a PromQL expression."""
    return "".join(c if c.isalnum() or c == "_" else " " for c in expr).split()


class TestRenderer:
    def test_lists_of_named_items_merge_by_name(self) -> None:
        base = {"containers": [{"name": "api", "image": "a", "ports": [1]}, {"name": "b"}]}
        patch = {"containers": [{"name": "api", "ports": [2]}, {"name": "c"}]}
        assert merge(base, patch) == {
            "containers": [
                {"name": "api", "image": "a", "ports": [2]},
                {"name": "b"},
                {"name": "c"},
            ]
        }

    def test_other_lists_and_scalars_are_replaced(self) -> None:
        assert merge({"args": ["a", "b"], "n": 1}, {"args": ["c"]}) == {"args": ["c"], "n": 1}

    def test_unsupported_keys_are_refused(self, tmp_path: Path) -> None:
        (tmp_path / "kustomization.yaml").write_text("resources: []\ncommonLabels: {a: b}\n")
        with pytest.raises(ValueError, match="commonLabels"):
            render(tmp_path)
