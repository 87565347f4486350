"""Shared fixtures for the end-to-end tests: a real `depthbook serve` on a free loopback port with its own
data directory, and headless Chromium sessions driven through Selenium (Debian's chromium + chromium-driver).

The binary comes from DEPTHBOOK_BIN (scripts/test.sh sets it to the release build). Without it every test
that needs the server is skipped with that reason; with it set to a missing file they fail.
Fixtures here are meant to be shared: add new ones rather than changing these.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
PHOTOS_DIR = REPO_ROOT.parent / "shared" / "photos"
ARTIFACTS_DIR = REPO_ROOT / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SERVER_START_TIMEOUT_S = 60
# Every test has a time limit (pytest-timeout): a bug fails its test instead of hanging the run. A test that
# needs longer says so with its own `@pytest.mark.timeout(...)`.
DEFAULT_TEST_TIMEOUT_S = 240
# Under CI a missing binary, photo or tool fails the run; only a developer's ad-hoc run may skip.
ON_CI = os.environ.get("CI", "").lower() not in ("", "0", "false")
# Every server this run starts (they inherit the variable) keeps its generated samples in one directory, so each
# sample is traced once per run instead of once per server: seconds of both cores each time, most of a minute
# under ThreadSanitizer. scripts/test.sh sets it for both of its passes; an ad-hoc run gets its own.
os.environ.setdefault("DEPTHBOOK_SAMPLES", tempfile.mkdtemp(prefix="depthbook-samples-"))


def pytest_collection_modifyitems(config, items):
    # Without the plugin the timeout markers below would be ignored, and a hang would hang the run.
    if not config.pluginmanager.hasplugin("timeout"):
        raise pytest.UsageError("pytest-timeout is not installed: pip install -r Tests/requirements.txt")
    for item in items:
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(DEFAULT_TEST_TIMEOUT_S))


@dataclass
class RunningServer:
    """A `depthbook serve` process started for a test module."""

    base_url: str
    port: int
    data_dir: Path
    log_path: Path
    process: subprocess.Popen

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def free_port() -> int:
    """A port the system just handed out on loopback (closed again, so a tiny race is possible)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_depthbook(binary: str, data_dir: Path, log_path: Path, port: int | None = None) -> RunningServer:
    """Starts `depthbook serve` from the repository root (so it finds Public/ and Notebooks/) and waits
    until /healthz answers. `port` reuses a port (to restart a server in place)."""
    port = port or free_port()
    log = open(log_path, "ab")
    process = subprocess.Popen(
        [binary, "serve", "--port", str(port), "--data", str(data_dir)],
        cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT,
    )
    log.close()
    server = RunningServer(f"http://127.0.0.1:{port}", port, data_dir, log_path, process)
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"depthbook serve exited with {process.returncode}:\n{server.log_tail()}")
        try:
            with urllib.request.urlopen(f"{server.base_url}/healthz", timeout=1) as reply:
                if reply.status == 200:
                    return server
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    stop_depthbook(server)
    raise RuntimeError(f"depthbook serve did not answer /healthz within {SERVER_START_TIMEOUT_S} s:\n{server.log_tail()}")


def stop_depthbook(server: RunningServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait(timeout=10)


@pytest.fixture(scope="session")
def depthbook_bin() -> str:
    binary = os.environ.get("DEPTHBOOK_BIN")
    if not binary:
        message = "DEPTHBOOK_BIN is not set: run scripts/test.sh, or point it at a built `depthbook`"
        if ON_CI:
            pytest.fail(message)
        pytest.skip(message)
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        pytest.fail(f"DEPTHBOOK_BIN={binary} is not an executable file")
    return binary


@pytest.fixture(scope="module")
def depthbook_server(depthbook_bin, tmp_path_factory) -> RunningServer:
    """One server per test module, with a fresh data directory."""
    root = tmp_path_factory.mktemp("depthbook")
    server = start_depthbook(depthbook_bin, root / "data", root / "serve.log")
    yield server
    stop_depthbook(server)
    if server.process.returncode not in (0, -15):
        print(f"depthbook serve ended with {server.process.returncode}:\n{server.log_tail()}")


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """Screenshots and logs worth looking at after a run (gitignored)."""
    ARTIFACTS_DIR.mkdir(exist_ok=True)
    return ARTIFACTS_DIR


def new_chromium(width: int = 1280, height: int = 1600, extra: tuple[str, ...] = ()):
    """A fresh headless Chromium (its own profile: no shared storage with other sessions)."""
    os.environ.setdefault("SE_OFFLINE", "true")
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        pytest.fail("chromium and chromium-driver are needed: apt-get install -y chromium chromium-driver")
    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={width},{height}", "--force-device-scale-factor=1", *extra):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    if width < 500:
        # Headless Chromium's window is never narrower than 500 px (a 390×844 window gave a 500×701 viewport):
        # a phone's viewport is emulated instead.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    return driver


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Remembers each phase's outcome on the test item, so fixtures can save evidence of a failure."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture
def browser_factory(request, artifacts_dir):
    """Makes fresh browser sessions; on a failure saves each one's screenshot and console log."""
    drivers = []

    def make(width: int = 1280, height: int = 1600, extra: tuple[str, ...] = ()):
        driver = new_chromium(width, height, extra)
        drivers.append(driver)
        return driver

    yield make
    failed = getattr(request.node, "report_call", None) is not None and request.node.report_call.failed
    for index, driver in enumerate(drivers):
        if failed:
            stem = f"FAILED-{request.node.name}-{index}".replace("/", "_")
            try:
                driver.save_screenshot(str(artifacts_dir / f"{stem}.png"))
                console = "\n".join(f"{e['level']} {e['message']}" for e in driver.get_log("browser"))
                (artifacts_dir / f"{stem}.console.txt").write_text(console)
                # Printed too: a CI run keeps its output, not the artifacts of the machine it ran on.
                statuses = driver.execute_script(
                    "return [...document.querySelectorAll('[role=status], .status, .cell-error')].map(e => e.textContent.trim()).filter(t => t)")
                print(f"browser {index} says: {statuses}\nits console (last 20 lines):\n" + "\n".join(console.splitlines()[-20:]))
            except Exception as error:  # the browser itself may be what broke
                print(f"could not save evidence from browser {index}: {error}")
        driver.quit()
    server = request.node.funcargs.get("depthbook_server") if failed else None
    if server is not None:
        print(f"the server's log (last 30 lines):\n{server.log_tail(30)}")


@pytest.fixture
def browser(browser_factory):
    return browser_factory()


@pytest.fixture
def firefox(request, artifacts_dir):
    """A fresh headless Firefox ESR driven over WebDriver BiDi (firefox_bidi.py); on a failure its
    screenshot and log are saved."""
    from firefox_bidi import FIREFOX, FirefoxBiDi

    if not shutil.which(FIREFOX):
        pytest.fail("firefox-esr is needed: apt-get install -y firefox-esr")
    browser = FirefoxBiDi(free_port())
    yield browser
    failed = getattr(request.node, "report_call", None) is not None and request.node.report_call.failed
    if failed:
        stem = f"FAILED-{request.node.name}-firefox".replace("/", "_")
        try:
            browser.save_screenshot(str(artifacts_dir / f"{stem}.png"))
            (artifacts_dir / f"{stem}.log.txt").write_text(browser.log_tail(200))
        except Exception as error:
            print(f"could not save evidence from firefox: {error}")
    browser.quit()


@pytest.fixture
def firefox_factory(request, artifacts_dir):
    """Makes headless Firefox ESR sessions (firefox_bidi.py), each on a throwaway profile or on `profile`, a
    directory kept after the browser quits (to start another on the same storage); on a failure saves each
    open one's screenshot and log. A test may quit one itself (a browser restart)."""
    from firefox_bidi import FIREFOX, FirefoxBiDi

    if not shutil.which(FIREFOX):
        pytest.fail("firefox-esr is needed: apt-get install -y firefox-esr")
    browsers = []

    def make(width: int = 1280, height: int = 1600, profile: Path | None = None):
        browser = FirefoxBiDi(free_port(), width, height, profile=profile)
        browsers.append(browser)
        return browser

    yield make
    failed = getattr(request.node, "report_call", None) is not None and request.node.report_call.failed
    for index, browser in enumerate(browsers):
        if failed and browser.process.poll() is None:
            stem = f"FAILED-{request.node.name}-firefox-{index}".replace("/", "_")
            try:
                browser.save_screenshot(str(artifacts_dir / f"{stem}.png"))
                (artifacts_dir / f"{stem}.log.txt").write_text(browser.log_tail(200))
            except Exception as error:
                print(f"could not save evidence from firefox {index}: {error}")
        browser.quit()


def require_person_matte_weights() -> None:
    """Skips a test that needs the person matte's network when its weights are not installed here; on CI, where
    `make test` installs them, their absence fails it instead."""
    directory = os.environ.get("DEPTHBOOK_MODELS") or str(REPO_ROOT / "models")
    if all(os.path.isfile(os.path.join(directory, name)) for name in ("modnet-portrait.onnx", "modnet-landscape.onnx")):
        return
    if ON_CI:
        pytest.fail("the person matte's weights are missing (scripts/install-models.sh)")
    pytest.skip("needs the person matte's weights in models/ (scripts/install-models.sh)")

