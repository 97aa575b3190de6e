"""Debian's nginx in the foreground as a proxy in front of API replicas on loopback.

The configuration is generated into a folder of ours: every path nginx writes (pid file, error
and access logs, temporary files) is inside it, so it runs without root-only paths, and the
proxy rules are ``deploy/nginx/console-proxy.conf``, the file docker-compose.yml uses too.
Started with ``nginx -p <folder> -c <folder>/nginx.conf -e <folder>/error.log`` and
``daemon off``; stopped by its PID (SIGQUIT: graceful, then SIGKILL).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import httpx

from devstack.services import ROOT, free_port

PROXY_RULES = ROOT / "deploy" / "nginx" / "console-proxy.conf"


def nginx_binary() -> str:
    """``$NGINX``, else nginx on PATH or in /usr/sbin (Debian's package: ``make nginx``).

    Raises:
        RuntimeError: none found.
    """
    path = os.environ.get("NGINX") or shutil.which("nginx")
    if path is None and Path("/usr/sbin/nginx").exists():
        path = "/usr/sbin/nginx"
    if path is None:
        raise RuntimeError("nginx not found: run `make nginx` (Debian's package) or set NGINX")
    return path


def render_config(folder: Path, port: int, upstreams: list[int]) -> str:
    """nginx.conf: one worker, loopback ``port``, upstream ``console_api`` of ``upstreams``
    (loopback ports), every written path inside ``folder``."""
    servers = "\n".join(
        # A replica that refused a connection is skipped for 1 s, then tried again.
        f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=1s;"
        for p in upstreams
    )
    temp = "\n".join(
        f"    {kind}_temp_path {folder / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return f"""daemon off;
worker_processes 1;
pid {folder / "nginx.pid"};
error_log {folder / "error.log"} warn;
events {{
    worker_connections 1024;
}}
http {{
    access_log {folder / "access.log"};
{temp}
    upstream console_api {{
{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        include {PROXY_RULES};
    }}
}}
"""


class Nginx:
    """nginx proxying 127.0.0.1:``port`` to the replicas on ``upstreams``.

    Args:
        folder: where the configuration, logs and temporary files go (made world-readable:
            when run as root, nginx's workers run as ``nobody``).
        upstreams: the replicas' loopback ports.
    """

    def __init__(self, folder: Path, upstreams: list[int], port: int | None = None) -> None:
        self.folder = folder
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        folder.mkdir(parents=True, exist_ok=True)
        folder.chmod(0o755)
        self.config = folder / "nginx.conf"
        self.config.write_text(render_config(folder, self.port, upstreams))
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 10.0) -> None:
        """Check the configuration (``nginx -t``), start nginx, wait until it answers.

        Raises:
            RuntimeError: the configuration is refused or nginx does not answer in time
                (with its error log).
        """
        args = [nginx_binary(), "-p", str(self.folder), "-c", str(self.config)]
        args += ["-e", str(self.folder / "error.log")]
        check = subprocess.run([*args, "-t", "-q"], capture_output=True, text=True, check=False)
        if check.returncode != 0:
            raise RuntimeError(f"nginx -t refused {self.config}: {check.stderr}")
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx exited: {self.error_log()}")
            try:
                httpx.get(self.url + "/healthz", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError(f"nginx did not answer within {timeout_s:.0f}s: {self.error_log()}")

    def stop(self) -> None:
        """SIGQUIT (graceful) by PID, SIGKILL after 10 s."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGQUIT)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def error_log(self) -> str:
        """The end of nginx's error log."""
        path = self.folder / "error.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""
