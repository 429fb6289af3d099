"""The hall's configuration files, checked without starting anything: HAProxy accepts the one
`make hall` renders and the one deploy/ uses (both from one template), and the compose file
wires its services as the README says (no container runtime runs here)."""

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from hall import haproxy
from hall.run import STREAMLIT_FLAGS

pytestmark = pytest.mark.hall

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
LOOPBACK_HALL = [haproxy.Backend("lab1", "127.0.0.1", 8511), haproxy.Backend("lab2", "127.0.0.1", 8512)]


def haproxy_check(path: Path) -> subprocess.CompletedProcess:
    if shutil.which("haproxy") is None:
        pytest.skip("haproxy is not installed (Debian package haproxy; `make system` installs it)")
    return subprocess.run(["haproxy", "-c", "-f", str(path)], capture_output=True, text=True, timeout=30)


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"))


def test_haproxy_accepts_the_configuration_make_hall_renders(tmp_path):
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(haproxy.render(LOOPBACK_HALL, "0.0.0.0", 8501))
    check = haproxy_check(cfg)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "Warnings were found" not in check.stdout + check.stderr


def test_haproxy_accepts_deploys_configuration(tmp_path):
    check = haproxy_check(DEPLOY / "haproxy.cfg")
    # Here lab1..lab3 do not resolve (no compose network): HAProxy says so and starts them as down.
    assert check.returncode == 0, check.stdout + check.stderr


def test_deploys_configuration_is_the_template_rendered_for_its_lab_services():
    labs = sorted(name for name in compose()["services"] if name.startswith("lab"))
    assert (DEPLOY / "haproxy.cfg").read_text() == haproxy.deploy_config(len(labs)), \
        "deploy/haproxy.cfg is stale: python -m hall.haproxy --deploy N > deploy/haproxy.cfg"
    assert f"server {labs[-1]} {labs[-1]}:8501" in haproxy.deploy_config(len(labs))


@pytest.mark.parametrize("directive", [
    "cookie SERVERID insert indirect nocache",  # without it media 404 and websockets land elsewhere
    "timeout tunnel 1h",
    "option redispatch 1",
    "http-check send meth GET uri /_stcore/health",
    "on-marked-down shutdown-sessions",
    "http-request deny deny_status 403 if { path,url_dec -m reg -i ^/+_stcore/+metrics }",
])
def test_both_configurations_carry_the_halls_rules(directive):
    for text in (haproxy.render(LOOPBACK_HALL), haproxy.deploy_config(3)):
        assert directive in text


def test_neither_configuration_has_a_stats_page_or_socket():
    for text in (haproxy.render(LOOPBACK_HALL), haproxy.deploy_config(3)):
        directives = [line.split()[0] for line in text.splitlines() if line.strip() and not line.strip()[0] == "#"]
        assert "stats" not in directives


@pytest.mark.parametrize("name, host, port", [
    ("lab1\n    stats enable", "127.0.0.1", 8511),
    ("lab1", "127.0.0.1 backup", 8511),
    ("lab1", "evil;host", 8511),
    ("lab1", "127.0.0.1", 0),
    ("lab1", "127.0.0.1", "8511\nlisten x"),
])
def test_the_renderer_refuses_anything_but_plain_names_hosts_and_ports(name, host, port):
    with pytest.raises(ValueError):
        haproxy.Backend(name, host, port)


def test_compose_publishes_only_the_proxy_and_keeps_redis_private():
    services = compose()["services"]
    published = {name for name, s in services.items() if s.get("ports")}
    assert published == {"proxy"} and services["proxy"]["ports"] == ["8501:8501"]
    assert "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in services["proxy"]["volumes"]
    redis = services["redis"]
    assert "ports" not in redis and "requirepass" in " ".join(redis["command"])
    assert "--save ''" in redis["command"][-1] and "--appendonly no" in redis["command"][-1]


def test_every_lab_and_render_worker_shares_one_media_volume_and_the_redis_url():
    services = compose()["services"]
    workers = [name for name in services if name.startswith("lab") or name == "render"]
    assert len([w for w in workers if w.startswith("lab")]) >= 2
    for name in workers:
        env = services[name]["environment"]
        assert f"media:{env['ATTENTION_LAB_MEDIA']}" in services[name]["volumes"], name
        assert env["ATTENTION_LAB_REDIS_URL"].startswith("redis://:${REDIS_PASSWORD:?"), name
        assert env["ATTENTION_LAB_REDIS_URL"].endswith("@redis:6379/0"), name
        assert env["STREAMLIT_SERVER_COOKIE_SECRET"].startswith("${COOKIE_SECRET:?"), "one secret for all replicas"
        assert env["ATTENTION_LAB_PROCESS"] in (name, "render")
        # the labs believe X-Forwarded-For from the proxy alone, at the fixed address it has on the network
        assert env["ATTENTION_LAB_TRUSTED_PROXIES"] == services["proxy"]["networks"]["default"]["ipv4_address"]
    assert set(compose()["volumes"]) == {"media"}


def test_the_image_serves_the_lab_with_make_halls_streamlit_flags():
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    cmd = next(line for line in dockerfile.replace("\\\n", " ").splitlines() if line.startswith("CMD "))
    argv = yaml.safe_load(cmd.removeprefix("CMD "))  # a JSON list
    assert argv[:3] == ["python", "-m", "dashboard.serve"], "the lab as make hall starts it (dashboard/serve.py)"
    flags = shlex.join(argv[3:])
    assert "--server.address 0.0.0.0 --server.port 8501" in flags and shlex.join(STREAMLIT_FLAGS) in flags


def test_compose_runs_the_render_workers_by_default_with_the_command_make_hall_runs():
    from hall.run import WORKER_ARGV

    render = compose()["services"]["render"]
    assert "profiles" not in render, "render workers are part of the hall, not an opt-in profile"
    assert render["command"] == ["python", *WORKER_ARGV]
    assert render["deploy"]["replicas"] >= 1 and not render.get("ports")
