#!/usr/bin/env python3
"""Drive one page in headless Chromium through the DevTools protocol over a pipe
(--remote-debugging-pipe: JSON messages ending in NUL on fds 3 and 4), with Debian's chromium and
python3 only: no websocket library, no Playwright.

usage: cdp_page.py CHROMIUM STEP...   where the steps run in order, in one page:
  --open URL          navigate and wait for the load event
  --wait JS           poll (every 100 ms, 20 s at most) until the expression is truthy
  --expect JS         the expression must be truthy now
  --eval JS           evaluate (awaiting a promise); an exception fails
  --print JS          evaluate and print the value as JSON on stdout (for measurements)
  --type TEXT         type into the focused element, as a keyboard would
  --key NAME          press a key (Escape, Enter, "/")
  --sh CMD            run a shell command; a non-zero exit fails
  --screenshot PATH   write a PNG of the viewport (1280x900)
An uncaught exception in the page fails the run. On failure: the step, and the page's text.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

WAIT_SECONDS = 20


class Browser:
    def __init__(self, chromium, profile):
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        # Chromium reads commands on fd 3 and writes replies on fd 4.
        def child_fds():
            r, w = os.dup(to_chrome_r), os.dup(from_chrome_w)  # above 4 first: the pipes may be 3 or 4
            os.dup2(r, 3)
            os.dup2(w, 4)
        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             "--remote-debugging-pipe", "--user-data-dir=" + profile, "--window-size=1280,900", "about:blank"],
            # close_fds would close 3 and 4 after preexec_fn; Python's own fds are close-on-exec anyway.
            preexec_fn=child_fds, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(profile, "chromium.log"), "wb"))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._next = 0
        self._replies = {}
        self._cv = threading.Condition()
        self.exceptions = []
        threading.Thread(target=self._read, daemon=True).start()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime"):
            self.call(domain + ".enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=True)

    def _read(self):
        buf = b""
        while True:
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                with self._cv:
                    self._replies[None] = "chromium closed the pipe"
                    self._cv.notify_all()
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                with self._cv:
                    if "id" in msg:
                        self._replies[msg["id"]] = msg
                    elif msg.get("method") == "Runtime.exceptionThrown":
                        d = msg["params"]["exceptionDetails"]
                        self.exceptions.append(d.get("exception", {}).get("description") or d.get("text"))
                    elif msg.get("method") == "Page.loadEventFired":
                        self._replies["load"] = msg
                    self._cv.notify_all()

    def call(self, method, params=None, session=False, timeout=WAIT_SECONDS):
        with self._cv:
            self._next += 1
            mid = self._next
            msg = {"id": mid, "method": method, "params": params or {}}
            if session:
                msg["sessionId"] = self.session
            os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
            deadline = time.monotonic() + timeout
            while mid not in self._replies:
                if None in self._replies:
                    raise RuntimeError(self._replies[None])
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(method + ": no reply in %ds" % timeout)
                self._cv.wait(left)
            reply = self._replies.pop(mid)
        if "error" in reply:
            raise RuntimeError(method + ": " + reply["error"].get("message", str(reply["error"])))
        return reply["result"]

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True},
                      session=True)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise RuntimeError("exception: " + (d.get("exception", {}).get("description") or d.get("text", "")))
        return r["result"].get("value")

    def open(self, url):
        with self._cv:
            self._replies.pop("load", None)
        self.call("Page.navigate", {"url": url}, session=True)
        with self._cv:
            if not self._cv.wait_for(lambda: "load" in self._replies, WAIT_SECONDS):
                raise RuntimeError("no load event for " + url)

    def key(self, name):
        code = {"Escape": ("Escape", 27), "Enter": ("Enter", 13), "/": ("Slash", 191)}[name]
        for kind in ("keyDown", "keyUp"):
            params = {"type": kind, "key": name, "code": code[0], "windowsVirtualKeyCode": code[1]}
            if kind == "keyDown" and len(name) == 1:
                params["text"] = name
            self.call("Input.dispatchKeyEvent", params, session=True)

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except RuntimeError:
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def main(argv):
    if len(argv) < 3 or len(argv) % 2 == 0:
        sys.exit(__doc__)
    chromium, steps = argv[0], list(zip(argv[1::2], argv[2::2]))
    with tempfile.TemporaryDirectory(prefix="ksched-cdp.") as profile:
        b = Browser(chromium, profile)
        step = None
        try:
            for step in steps:
                kind, arg = step
                if kind == "--open":
                    b.open(arg)
                elif kind == "--wait":
                    deadline = time.monotonic() + WAIT_SECONDS
                    while not b.evaluate("!!(" + arg + ")"):
                        if time.monotonic() > deadline:
                            raise RuntimeError("still false after %ds" % WAIT_SECONDS)
                        time.sleep(0.1)
                elif kind == "--expect":
                    if not b.evaluate("!!(" + arg + ")"):
                        raise RuntimeError("false")
                elif kind == "--eval":
                    b.evaluate(arg)
                elif kind == "--print":
                    print(json.dumps(b.evaluate(arg)), flush=True)
                elif kind == "--type":
                    b.call("Input.insertText", {"text": arg}, session=True)
                elif kind == "--key":
                    b.key(arg)
                elif kind == "--sh":
                    r = subprocess.run(arg, shell=True, capture_output=True, text=True, timeout=60)
                    if r.returncode != 0:
                        raise RuntimeError("exit %d: %s%s" % (r.returncode, r.stdout, r.stderr))
                elif kind == "--screenshot":
                    png = b.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
                    with open(arg, "wb") as f:
                        f.write(base64.b64decode(png))
                else:
                    raise RuntimeError("unknown step")
                if b.exceptions:
                    raise RuntimeError("the page threw: " + "; ".join(b.exceptions))
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            print("FAIL at %s %r: %s" % (step[0], step[1], e), file=sys.stderr)
            try:
                print("page text:\n" + str(b.evaluate("document.body.innerText"))[:3000], file=sys.stderr)
            except RuntimeError:
                pass
            b.close()
            return 1
        b.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
