#!/usr/bin/python3
"""SIGKILL the embedded durable API server while 16 clients create 20,000 pods and ksched's
kube-scheduler binds them; restart it on the same data directory and port. Then:
  - every pod whose create was acknowledged before the kill exists after the restart;
  - no pod is ever bound twice: a watcher that follows every pod across the restart (relisting
    when its watch ends) never sees a pod's nodeName change once set, and never sees a binding
    the restarted server does not hold (watchers see durable changes only);
  - the scheduler, through its own informers, finishes binding all 20,000.
The clients keep going through the outage: a create whose answer was lost is retried, and its
409 AlreadyExists then means the first attempt was durable.
Usage: durable_sigkill.py <ksched> <kube-scheduler>"""
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import Conn, check, credentials, fail, free_port, pod_body  # noqa: E402

CLIENTS = 16
PODS = 20000
KILL_AFTER = 6000
NODES = 200


class Server:
    def __init__(self, ksched, tmp, port):
        self.ksched, self.tmp, self.port = ksched, tmp, port
        self.kubeconfig = os.path.join(tmp, "kubeconfig")
        self.proc = None
        self.starts = 0

    def start(self):
        self.starts += 1
        if os.path.exists(self.kubeconfig):
            os.remove(self.kubeconfig)
        log = open(os.path.join(self.tmp, "server-%d.log" % self.starts), "w")
        self.proc = subprocess.Popen(
            [self.ksched, "apiserver", "--listen", "127.0.0.1:%d" % self.port, "--kubeconfig-out", self.kubeconfig,
             "--data-dir", os.path.join(self.tmp, "data"), "--nodes", str(NODES),
             # Small segments: snapshots and segment removal happen under the load and the kill.
             "--wal-segment-bytes", str(4 << 20)],
            stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            if os.path.exists(self.kubeconfig) and os.path.getsize(self.kubeconfig) > 0:
                return
            if self.proc.poll() is not None:
                fail("apiserver exited early", self.tmp)
            time.sleep(0.05)
        fail("apiserver did not come up", self.tmp)

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


def main():
    ksched, kube_scheduler = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="ksched-durable-")
    server = Server(ksched, tmp, free_port())
    sched = None
    stop = threading.Event()
    try:
        server.start()
        token, ca = credentials(server.kubeconfig)
        sched_log = open(os.path.join(tmp, "scheduler.log"), "w")
        sched = subprocess.Popen([kube_scheduler, "--kubeconfig", server.kubeconfig, "--secure-port", "0",
                                  "--leader-elect=false", "--kube-api-qps", "10000", "--kube-api-burst", "10000"],
                                 stdout=sched_log, stderr=subprocess.STDOUT)

        lock = threading.Lock()
        acked = set()
        errors = []

        def creator(i):
            c = Conn(server.port, token, ca)
            names = ["c%02d-%05d" % (i, j) for j in range(PODS // CLIENTS)]
            deadline = time.time() + 240
            for name in names:
                attempts = 0
                while True:
                    if time.time() > deadline:
                        errors.append("creator %d timed out" % i)
                        return
                    status, body = c.request("POST", "/api/v1/namespaces/default/pods", pod_body(name, "durable"))
                    attempts += 1
                    # 409 only on a retry: the earlier attempt was durable, its answer lost.
                    if status == 201 or (status == 409 and attempts > 1):
                        with lock:
                            acked.add(name)
                        break
                    if status is not None and status not in (409, 429, 500, 503):
                        errors.append("create %s: %s %s" % (name, status, body[:200]))
                        return
                    time.sleep(0.05)

        # Every pod's nodeName as watchers saw it, across watch ends and the restart.
        seen_node = {}
        rebinds = []

        def watcher():
            c = Conn(server.port, token, ca)
            while not stop.is_set():
                status, body = c.request("GET", "/api/v1/namespaces/default/pods")
                if status != 200:
                    time.sleep(0.1)
                    continue
                lst = json.loads(body)
                observe = lambda p: note(p["metadata"]["name"], p.get("spec", {}).get("nodeName", ""))
                for p in lst["items"]:
                    observe(p)
                rv = lst["metadata"]["resourceVersion"]
                conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=c.ctx, timeout=30)
                try:
                    conn.request("GET", "/api/v1/namespaces/default/pods?watch=1&resourceVersion=%s&allowWatchBookmarks=true"
                                 % rv, headers={"Authorization": "Bearer " + token})
                    r = conn.getresponse()
                    if r.status != 200:
                        continue
                    while not stop.is_set():
                        line = r.readline()
                        if not line:
                            break
                        ev = json.loads(line)
                        if ev["type"] == "ERROR":
                            break  # 410: relist
                        if ev["type"] in ("ADDED", "MODIFIED"):
                            observe(ev["object"])
                except (OSError, http.client.HTTPException, ValueError):
                    pass
                finally:
                    conn.close()

        def note(name, node):
            with lock:
                old = seen_node.get(name, "")
                if old and node != old:
                    rebinds.append((name, old, node))
                if node or name not in seen_node:
                    seen_node[name] = node or old

        threads = [threading.Thread(target=creator, args=(i,), daemon=True) for i in range(CLIENTS)]
        w = threading.Thread(target=watcher, daemon=True)
        w.start()
        for t in threads:
            t.start()

        deadline = time.time() + 120
        while time.time() < deadline:
            with lock:
                if len(acked) >= KILL_AFTER:
                    break
            time.sleep(0.01)
        server.kill()
        with lock:
            acked_at_kill = set(acked)
            bound_at_kill = {n: v for n, v in seen_node.items() if v}
        print("killed the server with %d creates acknowledged and %d bindings seen by the watcher"
              % (len(acked_at_kill), len(bound_at_kill)))
        check(len(acked_at_kill) >= KILL_AFTER and len(acked_at_kill) < PODS, "killed mid-run", tmp)

        server.start()
        c = Conn(server.port, token, ca)
        status, body = c.request("GET", "/api/v1/namespaces/default/pods")
        check(status == 200, "the restarted server answers with the kubeconfig it handed out before", tmp)
        present = {p["metadata"]["name"]: p["spec"].get("nodeName", "") for p in json.loads(body)["items"]}
        missing = sorted(acked_at_kill - set(present))
        check(not missing, "every acknowledged create survived SIGKILL (%d acknowledged, %d missing%s)"
              % (len(acked_at_kill), len(missing), ": " + ", ".join(missing[:5]) if missing else ""), tmp)
        lost = [n for n, v in bound_at_kill.items() if present.get(n) != v]
        check(not lost, "every binding a watcher saw before the kill is on disk (%d lost%s)"
              % (len(lost), ": " + ", ".join(lost[:5]) if lost else ""), tmp)

        for t in threads:
            t.join(timeout=300)
        check(not errors, "the clients created every pod (%s)" % "; ".join(errors[:3]), tmp)
        check(len(acked) == PODS, "all %d creates acknowledged" % PODS, tmp)

        unbound = -1
        deadline = time.time() + 180
        while time.time() < deadline:
            status, body = c.request("GET", "/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3D")
            if status == 200:
                unbound = len(json.loads(body)["items"])
                if unbound == 0:
                    break
            time.sleep(0.5)
        status, body = c.request("GET", "/api/v1/namespaces/default/pods")
        items = json.loads(body)["items"]
        check(len(items) == PODS and unbound == 0,
              "the scheduler bound all %d pods after the restart (%d unbound)" % (len(items), unbound), tmp)
        check(sched.poll() is None, "the scheduler rode out the restart without exiting", tmp)
        # Let the watcher catch up with the last bindings, then compare.
        final = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in items}
        deadline = time.time() + 60
        while time.time() < deadline:
            with lock:
                if all(seen_node.get(n) == v for n, v in final.items()):
                    break
            time.sleep(0.2)
        with lock:
            check(not rebinds, "no pod was bound twice (%d rebinds%s)"
                  % (len(rebinds), ": %s" % (rebinds[:3],) if rebinds else ""), tmp)
            check(all(seen_node.get(n) == v for n, v in final.items()),
                  "the watcher, across the restart, ends with the server's bindings", tmp)
        with open(os.path.join(tmp, "server-2.log")) as f:
            log = f.read()
        check("durable store opened" in log, "the restarted server says what it recovered", tmp)
        data = os.listdir(os.path.join(tmp, "data"))
        snaps = [f for f in data if f.startswith("snap-") and f.endswith(".snap")]
        check(snaps, "snapshots were taken along the way (%s)" % ", ".join(sorted(data)), tmp)
    finally:
        stop.set()
        if sched and sched.poll() is None:
            sched.kill()
            sched.wait()
        if server.proc and server.proc.poll() is None:
            server.proc.send_signal(signal.SIGTERM)
            try:
                server.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.proc.kill()
        if not os.environ.get("KEEP_TMP"):
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept", tmp)


if __name__ == "__main__":
    main()
