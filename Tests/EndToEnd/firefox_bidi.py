"""Headless Firefox driven through WebDriver BiDi, with no geckodriver.

Debian 12 ships `firefox-esr` but no geckodriver, and Selenium's Python bindings reach BiDi only through a
classic WebDriver session (which needs geckodriver). Firefox ESR speaks BiDi itself when started with
`--remote-debugging-port`: this module starts it on a free loopback port with a throwaway profile, opens the
BiDi session over the `websockets` package and offers the few commands the page tests need.

`execute_script` / `execute_async_script` take the same function bodies (reading `arguments`) as
Selenium's, so the helpers in page_support.py that only run scripts work on both browsers.
"""
from __future__ import annotations

import base64
import itertools
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from selenium.common.exceptions import JavascriptException
from websockets.sync.client import connect

FIREFOX = "/usr/bin/firefox-esr"
START_TIMEOUT_S = 60
COMMAND_TIMEOUT_S = 120

# Keep a test browser quiet and offline: no update checks, telemetry, remote settings or first-run pages.
PROFILE_PREFS = {
    "app.update.disabledForTesting": True,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.aboutwelcome.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.enabled": False,
    "network.connectivity-service.enabled": False,
    "network.captive-portal-service.enabled": False,
    "services.settings.server": "http://127.0.0.1:9/",
    "extensions.update.enabled": False,
    "browser.safebrowsing.update.enabled": False,
    "browser.safebrowsing.downloads.remote.enabled": False,
    "dom.disable_open_during_load": False,
    # An export's download link saves into the profile, without asking where.
    "browser.download.folderList": 2,
    "browser.download.useDownloadDir": True,
    "browser.download.always_ask_before_handling_new_types": False,
}

# WebDriver key codes (the same private-use characters Selenium's Keys uses).
KEYS = {"ArrowLeft": "\ue012", "ArrowUp": "\ue013", "ArrowRight": "\ue014", "ArrowDown": "\ue015",
        "Enter": "\ue007", "Escape": "\ue00c", "Shift": "\ue008", "Tab": "\ue004"}


class BiDiError(RuntimeError):
    """A BiDi command answered with an error."""


class FirefoxBiDi:
    """One headless Firefox with one top-level browsing context."""

    def __init__(self, port: int, width: int = 1280, height: int = 1600, profile: Path | None = None):
        """`profile`: a profile directory to start on and keep after `quit` (a browser restarted on the same
        storage); without it a throwaway one."""
        self.keep_profile = profile is not None
        self.profile = Path(profile) if profile is not None else Path(tempfile.mkdtemp(prefix="depthbook-firefox-"))
        self.profile.mkdir(parents=True, exist_ok=True)
        prefs = {**PROFILE_PREFS, "browser.download.dir": str(self.profile / "downloads")}
        (self.profile / "user.js").write_text(
            "".join(f'user_pref("{name}", {json.dumps(value)});\n' for name, value in prefs.items()))
        self.log_path = self.profile / "firefox.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [FIREFOX, "--headless", "--no-remote", f"--remote-debugging-port={port}",
                 "--profile", str(self.profile), "about:blank"],
                stdout=log, stderr=subprocess.STDOUT)
        self.ids = itertools.count(1)
        self.socket = self._connect(port)
        self.command("session.new", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": True}}})
        contexts = self.command("browsingContext.getTree", {})["contexts"]
        if not contexts:
            raise BiDiError("Firefox has no browsing context")
        self.context = contexts[0]["context"]
        self.command("browsingContext.setViewport", {"context": self.context, "viewport": {"width": width, "height": height}})

    def _connect(self, port: int):
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BiDiError(f"firefox exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                return connect(f"ws://127.0.0.1:{port}/session", compression=None, max_size=None, open_timeout=5, legacy=True)
            except Exception:  # not listening yet, or refusing the handshake while it starts
                time.sleep(0.2)
        self.quit()
        raise BiDiError(f"firefox's BiDi endpoint did not open within {START_TIMEOUT_S} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def command(self, method: str, params: dict) -> dict:
        """Sends one command and returns its result; events arriving meanwhile are skipped."""
        command_id = next(self.ids)
        self.socket.send(json.dumps({"id": command_id, "method": method, "params": params}))
        deadline = time.monotonic() + COMMAND_TIMEOUT_S
        while time.monotonic() < deadline:
            message = json.loads(self.socket.recv(timeout=max(0.1, deadline - time.monotonic())))
            if message.get("id") != command_id:
                continue
            if message.get("type") == "error":
                raise BiDiError(f"{method}: {message.get('error')}: {message.get('message')}")
            return message["result"]
        raise BiDiError(f"{method}: no answer within {COMMAND_TIMEOUT_S} s")

    # Navigation and scripts.

    def get(self, url: str) -> None:
        self.command("browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"})

    def execute_script(self, body: str, *args):
        """Runs a function body (reading `arguments`) in the page and returns its value, as Selenium does."""
        return self._call(f"function() {{ {body} }}", args)

    def execute_async_script(self, body: str, *args):
        """Runs a function body whose last argument is a callback, and returns what it is called with."""
        wrapper = ("function(...given) { return new Promise((done) => { "
                   f"(function() {{ {body} }}).apply(this, [...given, done]); }}); }}")
        return self._call(wrapper, args)

    def _call(self, declaration: str, args) -> object:
        result = self.command("script.callFunction", {
            "functionDeclaration": declaration, "target": {"context": self.context}, "awaitPromise": True,
            "arguments": [to_local_value(arg) for arg in args], "resultOwnership": "none",
        })
        if result.get("type") == "exception":
            details = result.get("exceptionDetails", {})
            raise JavascriptException(details.get("text", "script error"))
        return from_remote_value(result["result"])

    # Input and pictures.

    def press(self, *keys: str) -> None:
        """Types keys into the focused element as real key events (names from KEYS, or characters)."""
        actions = []
        for key in keys:
            value = KEYS.get(key, key)
            actions += [{"type": "keyDown", "value": value}, {"type": "keyUp", "value": value}]
        self.command("input.performActions", {"context": self.context, "actions": [
            {"type": "key", "id": "keyboard", "actions": actions}]})
        self.command("input.releaseActions", {"context": self.context})

    def click_at(self, x: float, y: float) -> None:
        """A real mouse click at viewport coordinates (CSS pixels)."""
        self.command("input.performActions", {"context": self.context, "actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [
                {"type": "pointerMove", "x": int(x), "y": int(y)},
                {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]})
        self.command("input.releaseActions", {"context": self.context})

    def set_files(self, selector: str, paths: list[str]) -> None:
        """Chooses files in the page's `<input type=file>` matching `selector`, as its file picker would
        (BiDi's input.setFiles, which fires the input's change event)."""
        found = self.command("script.callFunction", {
            "functionDeclaration": "function(selector) { return document.querySelector(selector); }",
            "target": {"context": self.context}, "awaitPromise": False, "resultOwnership": "root",
            "arguments": [to_local_value(selector)]})["result"]
        if found.get("type") != "node":
            raise BiDiError(f"no element matches {selector!r}")
        self.command("input.setFiles", {"context": self.context, "element": {"sharedId": found["sharedId"]},
                                        "files": [str(path) for path in paths]})

    def save_screenshot(self, path: str) -> None:
        data = self.command("browsingContext.captureScreenshot", {"context": self.context, "origin": "viewport"})["data"]
        Path(path).write_bytes(base64.b64decode(data))

    def quit(self) -> None:
        try:
            if getattr(self, "socket", None) is not None:
                try:
                    self.command("browser.close", {})
                except Exception:
                    pass
                self.socket.close()
                self.socket = None
                # A clean exit writes the profile's storage out: let it finish before anything harsher.
                try:
                    self.process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            if self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait(timeout=10)
            if not self.keep_profile:
                shutil.rmtree(self.profile, ignore_errors=True)


def to_local_value(value) -> dict:
    """A Python value as a BiDi LocalValue (the primitives, lists and string-keyed dicts)."""
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool):
        return {"type": "boolean", "value": value}
    if isinstance(value, (int, float)):
        return {"type": "number", "value": value}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    if isinstance(value, (list, tuple)):
        return {"type": "array", "value": [to_local_value(item) for item in value]}
    if isinstance(value, dict):
        return {"type": "object", "value": [[str(key), to_local_value(item)] for key, item in value.items()]}
    raise TypeError(f"cannot pass {type(value).__name__} to the page")


def from_remote_value(remote: dict):
    """A BiDi RemoteValue as Python: primitives, arrays and plain objects; anything else as its type name."""
    kind = remote.get("type")
    if kind in ("undefined", "null"):
        return None
    if kind == "number":
        value = remote["value"]
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf"), "-0": -0.0}.get(value, value) \
            if isinstance(value, str) else value
    if kind in ("string", "boolean"):
        return remote["value"]
    if kind == "bigint":
        return int(remote["value"])
    if kind in ("array", "set"):
        return [from_remote_value(item) for item in remote.get("value", [])]
    if kind in ("object", "map"):
        return {(key if isinstance(key, str) else str(from_remote_value(key))): from_remote_value(item)
                for key, item in remote.get("value", [])}
    return {"type": kind}
