"""The deploy example stays true: deploy/compose.yaml's replicas are configured with settings webreach accepts,
its balancer gets every address deploy/haproxy.cfg reads, and HAProxy itself accepts the file with them (the file
tests/state/test_replicas.py runs on loopback)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from webreach.config import Settings
from webreach.testing.balancer import binary

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    return loaded


def test_the_replicas_settings_are_settings_webreach_accepts(monkeypatch: pytest.MonkeyPatch) -> None:
    services = compose()["services"]
    replicas = [name for name in services if name.startswith("replica")]
    assert len(replicas) == 3 and all(services[name] == services["replica1"] for name in replicas)
    environment = services["replica1"]["environment"]
    for name, value in environment.items():
        # compose's ${VAR:?message} is filled by the operator; stand in a strong token
        monkeypatch.setenv(name, re.sub(r"\$\{[^}]*\}", "t" * 40, str(value)))
    monkeypatch.setenv("WEBREACH_CONFIG", os.devnull)
    settings = Settings()
    assert settings.state.backend == "redis" and settings.cache.backend == "redis"
    assert settings.accounts.enabled and str(settings.accounts.database).startswith("postgresql://")
    assert services["balancer"]["environment"]["WEBREACH_LB_HOST"] in settings.server.hosts()


def test_the_balancer_gets_every_address_its_configuration_reads() -> None:
    wanted = set(re.findall(r"\$\{(\w+)\}", (DEPLOY / "haproxy.cfg").read_text()))
    given = compose()["services"]["balancer"]["environment"]
    assert wanted == set(given), wanted ^ set(given)
    replicas = {value.split(":")[0] for name, value in given.items() if name.startswith("WEBREACH_REPLICA")}
    assert replicas == {name for name in compose()["services"] if name.startswith("replica")}


def test_haproxy_accepts_the_file_with_the_compose_addresses() -> None:
    found = binary()
    if found is None:
        if os.environ.get("CI"):
            raise AssertionError("haproxy is missing (scripts/setup-tests installs it)")
        pytest.skip("haproxy not installed (scripts/setup-tests installs it)")
    env = {"PATH": os.environ.get("PATH", "")} | compose()["services"]["balancer"]["environment"]
    env = {name: value.replace("replica", "127.0.0.") if name.startswith("WEBREACH_REPLICA") else value
           for name, value in env.items()}  # fmt: skip
    checked = subprocess.run([found, "-c", "-f", str(DEPLOY / "haproxy.cfg")], env=env, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def test_the_kubernetes_manifest_probes_readiness_and_liveness(monkeypatch: pytest.MonkeyPatch) -> None:
    deployment, service = yaml.safe_load_all((DEPLOY / "kubernetes.yaml").read_text())
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    for item in container["env"]:  # secrets stand in for what `kubectl create secret` holds
        monkeypatch.setenv(item["name"], item.get("value", "redis://r:6379/0"))
    monkeypatch.setenv("WEBREACH_ACCOUNTS__DATABASE", "postgresql://webreach@postgres/webreach")
    monkeypatch.setenv("WEBREACH_SERVER__ADMIN_TOKEN", "t" * 40)
    monkeypatch.setenv("WEBREACH_CONFIG", os.devnull)
    settings = Settings()
    probe_host = container["readinessProbe"]["httpGet"]["httpHeaders"][0]["value"]
    assert probe_host in settings.server.hosts() and "*" not in settings.server.hosts()
    assert service["spec"]["ports"][0]["targetPort"] == container["ports"][0]["containerPort"]
