"""Helpers shared by the Python end-to-end tests that drive real processes over loopback HTTPS
(durable_sigkill.py, etcd_ha.py): ports, pass/fail lines with the processes' log tails, the
credentials of a kubeconfig the API server wrote, and one reconnecting keep-alive connection."""
import base64
import http.client
import json
import os
import socket
import ssl
import sys


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def fail(msg, tmp=None):
    """Prints FAIL and the last lines of every *.log in tmp, then exits 1."""
    print("FAIL:", msg, file=sys.stderr)
    if tmp and os.path.isdir(tmp):
        for name in sorted(os.listdir(tmp)):
            if not name.endswith(".log"):
                continue
            with open(os.path.join(tmp, name), errors="replace") as f:
                lines = f.readlines()
            print("---", name, file=sys.stderr)
            sys.stderr.writelines(lines[-25:])
    sys.exit(1)


def check(cond, what, tmp=None):
    if not cond:
        fail(what, tmp)
    print("ok:", what)


def credentials(kubeconfig):
    """(token, CA PEM) of a kubeconfig written by `ksched apiserver --kubeconfig-out`."""
    token, ca = None, None
    with open(kubeconfig) as f:
        for line in f:
            line = line.strip()
            if line.startswith("token:"):
                token = line.split(":", 1)[1].strip()
            if line.startswith("certificate-authority-data:"):
                ca = base64.b64decode(line.split(":", 1)[1].strip()).decode()
    return token, ca


class Conn:
    """One keep-alive HTTPS connection to 127.0.0.1:port that reconnects after any failure."""

    def __init__(self, port, token, ca):
        self.port, self.token = port, token
        self.ctx = ssl.create_default_context(cadata=ca)
        self.ctx.check_hostname = False
        self.c = None

    def connection(self, timeout=30):
        """A new connection of its own (for a watch stream)."""
        return http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx, timeout=timeout)

    def request(self, method, path, body=None, timeout=30):
        """(status, body), or (None, b"") when the connection failed."""
        if self.c is None:
            self.c = self.connection(timeout)
        headers = {"Authorization": "Bearer " + self.token}
        if body is not None:
            headers["Content-Type"] = "application/json"
        try:
            self.c.request(method, path, body=body, headers=headers)
            r = self.c.getresponse()
            return r.status, r.read()
        except (OSError, http.client.HTTPException):
            self.c.close()
            self.c = None
            return None, b""


def pod_body(name, app):
    return json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": app}},
        "spec": {"containers": [{"name": "c", "image": "busybox:1.36",
                                 "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}})
