"""A throwaway PostgreSQL server from Debian's `postgresql` package: initdb into a temporary directory, started
on a free loopback port, trusting local connections, database and user `depthbook`. PostgreSQL refuses to run
as root, so under root it runs as the package's `postgres` user."""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from nginx_support import free_port
from test_server_support import stop_process


def _binaries() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(Path(p).parts[-3]), reverse=True)
    if not found:
        pytest.fail("PostgreSQL is not installed: scripts/install-deps.sh test installs Debian's postgresql")
    return Path(found[0]).parent


class Postgres:
    def __init__(self):
        self.bin = _binaries()
        # Directly under /tmp: the postgres user must reach it, and pytest's own folders are private to root.
        root = Path(tempfile.mkdtemp(prefix="depthbook-pg-"))
        self.root = root
        self.port = free_port()
        self.user = "postgres" if os.geteuid() == 0 else None
        if self.user:
            shutil.chown(root, self.user)
        self._run("initdb", "-D", str(root / "data"), "-U", "depthbook", "--auth=trust", "-E", "UTF8")
        self.log = open(root / "server.log", "wb")
        self.process = subprocess.Popen(self._command("postgres", "-D", str(root / "data"), "-p", str(self.port), "-k", str(root),
                                                      "-c", "listen_addresses=127.0.0.1"),
                                        stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while subprocess.run([str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port), "-q"]).returncode != 0:
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("PostgreSQL did not start:\n" + (root / "server.log").read_text())
            time.sleep(0.2)
        subprocess.run([str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "depthbook", "depthbook"],
                       check=True, capture_output=True, timeout=60)

    @property
    def url(self) -> str:
        return f"postgres://depthbook@127.0.0.1:{self.port}/depthbook"

    def query(self, sql: str) -> str:
        return subprocess.run([str(self.bin / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "depthbook", "-d", "depthbook",
                               "-tA", "-c", sql], check=True, capture_output=True, text=True, timeout=60).stdout.strip()

    def stop(self) -> None:
        stop_process(self.process)
        self.log.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def _command(self, tool: str, *args: str) -> list[str]:
        command = [str(self.bin / tool), *args]
        return ["runuser", "-u", self.user, "--", *command] if self.user else command

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run(self._command(tool, *args), check=True, capture_output=True, timeout=120)
