#!/usr/bin/python3
"""Two `ksched apiserver` replicas on one 3-member etcd cluster, under the load of durable_sigkill:
16 clients (half on replica A, half on B) create 20,000 pods while ksched's kube-scheduler,
connected to B, binds them. Along the way replica A is SIGKILLed (its clients fail over to B),
restarted on the same port and data directory (its clients come back), and then the etcd leader is
SIGKILLed (writes stall for an election). Then:
  - every pod whose create was acknowledged, by either replica, exists on both replicas, and is in
    the first list either answers after a kill (lists without resourceVersion are consistent);
  - no pod is ever bound twice: a watcher that follows every pod across the replicas (resuming its
    watch on the other replica from the last resourceVersion it saw, relisting when told to) never
    sees a pod's nodeName change once set;
  - the scheduler, through B's informers, finishes binding all 20,000;
  - A and B end with the same pods, bindings and resourceVersions, and these are etcd's mod
    revisions of the pods' keys.
A create whose answer was lost (connection error or 5xx) is retried; its 409 AlreadyExists then
means the first attempt took effect. Exits 77 (skipped) without /usr/bin/etcd.
Usage: etcd_ha.py <ksched> <kube-scheduler>"""
import base64
import http.client
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import Conn, check, credentials, fail, free_port, pod_body  # noqa: E402

ETCD = os.environ.get("ETCD", "/usr/bin/etcd")
ETCDCTL = os.environ.get("ETCDCTL", "/usr/bin/etcdctl")
CLIENTS = 16
PODS = 20000
KILL_A_AFTER = 6000      # SIGKILL replica A
RESTART_A_AFTER = 9000   # start A again on its port and data directory
KILL_ETCD_AFTER = 12000  # SIGKILL the etcd leader
NODES = 200
PREFIX = "/registry"


def wait_until(pred, timeout, step=0.1):
    """Polls pred() until it returns something other than None or False, or timeout seconds pass;
    returns the last value."""
    deadline = time.time() + timeout
    while True:
        v = pred()
        if (v is not None and v is not False) or time.time() > deadline:
            return v
        time.sleep(step)


class Etcd:
    """A 3-member etcd cluster on loopback, each member with its own data directory."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.members = [{"name": "m%d" % (i + 1), "client": free_port(), "peer": free_port(), "proc": None}
                        for i in range(3)]

    def url(self, i):
        return "http://127.0.0.1:%d" % self.members[i]["client"]

    def urls(self, alive=False):
        return [self.url(i) for i, m in enumerate(self.members) if not alive or (m["proc"] and m["proc"].poll() is None)]

    def start(self):
        cluster = ",".join("%s=http://127.0.0.1:%d" % (m["name"], m["peer"]) for m in self.members)
        for m in self.members:
            peer = "http://127.0.0.1:%d" % m["peer"]
            client = "http://127.0.0.1:%d" % m["client"]
            log = open(os.path.join(self.tmp, "etcd-%s.log" % m["name"]), "w")
            m["proc"] = subprocess.Popen(
                [ETCD, "--name", m["name"], "--data-dir", os.path.join(self.tmp, "etcd-" + m["name"]),
                 "--listen-client-urls", client, "--advertise-client-urls", client,
                 "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                 "--initial-cluster", cluster, "--initial-cluster-state", "new",
                 "--initial-cluster-token", "ksched-e2e", "--logger", "zap", "--log-outputs", "stderr"],
                stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            for m in self.members:
                if m["proc"].poll() is not None:
                    fail("etcd member %s exited early" % m["name"], self.tmp)
            r = self.ctl("endpoint", "health", timeout=10)
            if r is not None and r.returncode == 0:
                return
            time.sleep(0.2)
        fail("the etcd cluster did not become healthy", self.tmp)

    def ctl(self, *args, endpoints=None, timeout=20):
        try:
            return subprocess.run([ETCDCTL, "--endpoints", ",".join(endpoints or self.urls()), "--command-timeout=5s"]
                                  + list(args), capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def status(self):
        """{member index: status} of the members that answer."""
        out = {}
        for i in range(len(self.members)):
            if not self.members[i]["proc"] or self.members[i]["proc"].poll() is not None:
                continue
            r = self.ctl("endpoint", "status", "-w", "json", endpoints=[self.url(i)])
            if r is None or r.returncode != 0:
                continue
            try:
                out[i] = json.loads(r.stdout)[0]["Status"]
            except (ValueError, LookupError):
                continue
        return out

    def leader(self):
        for i, st in self.status().items():
            if st.get("leader") and st["leader"] == st["header"]["member_id"]:
                return i
        return None

    def kill(self, i):
        p = self.members[i]["proc"]
        p.send_signal(signal.SIGKILL)
        p.wait()

    def stop(self):
        for m in self.members:
            if m["proc"] and m["proc"].poll() is None:
                m["proc"].kill()
                m["proc"].wait()


class Server:
    def __init__(self, name, ksched, tmp, etcd_urls, token_file):
        self.name, self.ksched, self.tmp = name, ksched, tmp
        self.etcd_urls, self.token_file = etcd_urls, token_file
        self.port = free_port()
        self.kubeconfig = os.path.join(tmp, "kubeconfig-" + name)
        self.data = os.path.join(tmp, "data-" + name)
        self.proc = None
        self.starts = 0
        self.ca = None

    def start(self, token):
        self.starts += 1
        if os.path.exists(self.kubeconfig):
            os.remove(self.kubeconfig)
        log = open(os.path.join(self.tmp, "apiserver-%s-%d.log" % (self.name, self.starts)), "w")
        self.proc = subprocess.Popen(
            [self.ksched, "apiserver", "--listen", "127.0.0.1:%d" % self.port, "--kubeconfig-out", self.kubeconfig,
             "--etcd-servers", ",".join(self.etcd_urls), "--data-dir", self.data, "--token-file", self.token_file,
             "--nodes", str(NODES),
             # Compactions (and the watch resumptions they cut short) happen under the load.
             "--etcd-compaction-interval", "20s"],
            stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                fail("apiserver %s exited early" % self.name, self.tmp)
            if os.path.exists(self.kubeconfig) and os.path.getsize(self.kubeconfig) > 0:
                admin, ca = credentials(self.kubeconfig)
                if admin and ca:
                    self.ca, self.admin = ca, admin
                    status, _ = Conn(self.port, token, ca).request("GET", "/readyz", timeout=5)
                    if status == 200:
                        return
            time.sleep(0.05)
        fail("apiserver %s did not come up" % self.name, self.tmp)

    def up(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.up():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def conn_to(server, token):
    return Conn(server.port, token, server.ca)


def list_pods(conn, query="", limit=500):
    """Every pod in pages of `limit`: (items, resourceVersion of the list), or (None, status)."""
    items, rv, cont = [], None, None
    while True:
        path = "/api/v1/namespaces/default/pods?limit=%d" % limit + query
        if cont:
            path += "&continue=" + urllib.parse.quote(cont)
        status, body = conn.request("GET", path)
        if status != 200:
            return None, status
        try:
            lst = json.loads(body)
        except ValueError:
            return None, status
        if rv is None:
            rv = lst["metadata"]["resourceVersion"]
        items.extend(lst["items"])
        cont = lst["metadata"].get("continue")
        if not cont:
            return items, rv


def pod_state(items):
    return {p["metadata"]["name"]: (p.get("spec", {}).get("nodeName", ""), p["metadata"]["resourceVersion"])
            for p in items}


def main():
    if len(sys.argv) != 3:
        print(__doc__.rsplit("\n", 1)[-1], file=sys.stderr)
        sys.exit(2)
    ksched, kube_scheduler = sys.argv[1], sys.argv[2]
    if not os.path.exists(ETCD) or not os.path.exists(ETCDCTL):
        print("SKIP: %s or %s is missing" % (ETCD, ETCDCTL))
        sys.exit(77)
    started = time.time()
    tmp = tempfile.mkdtemp(prefix="ksched-etcd-ha-")
    etcd = Etcd(tmp)
    servers = []
    sched = None
    stop = threading.Event()
    try:
        etcd.start()
        print("etcd: 3 members healthy (%s) after %.1fs" % (", ".join(etcd.urls()), time.time() - started))
        token = secrets.token_hex(16)
        token_file = os.path.join(tmp, "tokens.csv")
        with open(token_file, "w") as f:
            f.write('%s,admin,admin-uid,"system:masters"\n' % token)
        a = Server("A", ksched, tmp, etcd.urls(), token_file)
        b = Server("B", ksched, tmp, etcd.urls(), token_file)
        servers = [a, b]
        a.start(token)
        b.start(token)
        print("replicas: A on %d, B on %d" % (a.port, b.port))
        a_admin, a_ca = a.admin, a.ca
        sched_log = open(os.path.join(tmp, "scheduler.log"), "w")
        sched = subprocess.Popen([kube_scheduler, "--kubeconfig", b.kubeconfig, "--secure-port", "0",
                                  "--leader-elect=false", "--kube-api-qps", "10000", "--kube-api-burst", "10000"],
                                 stdout=sched_log, stderr=subprocess.STDOUT)

        lock = threading.Lock()
        acked = {}          # name -> index of the replica that acknowledged it
        a_restarted = threading.Event()
        acked_by_new_a = [0]
        failovers = [0]
        errors = []

        def creator(i):
            home = i % 2  # even clients on A, odd on B
            conns = [conn_to(s, token) for s in servers]
            cur, tried_home = home, time.time()
            names = ["c%02d-%05d" % (i, j) for j in range(PODS // CLIENTS)]
            deadline = time.time() + 270
            for name in names:
                attempts = 0
                while True:
                    if time.time() > deadline:
                        errors.append("creator %d timed out" % i)
                        return
                    # A client away from its replica goes back to it once it answers again.
                    if cur != home and time.time() - tried_home > 0.5:
                        cur, tried_home = home, time.time()
                    status, body = conns[cur].request("POST", "/api/v1/namespaces/default/pods", pod_body(name, "etcd-ha"))
                    attempts += 1
                    # 409 only on a retry: the earlier attempt took effect, its answer lost.
                    if status == 201 or (status == 409 and attempts > 1):
                        with lock:
                            acked[name] = cur
                            if cur == 0 and a_restarted.is_set():
                                acked_by_new_a[0] += 1
                        break
                    if status is None:
                        with lock:
                            failovers[0] += 1
                        cur = 1 - cur  # the replica is down: the other one
                    elif status not in (409, 429, 500, 503, 504):
                        errors.append("create %s on %s: %s %s" % (name, servers[cur].name, status, body[:200]))
                        return
                    time.sleep(0.05)

        # Every pod's nodeName as the watcher saw it, across watch ends, replicas and kills.
        seen_node = {}
        rebinds = []
        disorder = []
        watcher_stats = {"lists": 0, "watches": 0, "failovers": 0, "alternations": 0}

        def note(name, node):
            with lock:
                old = seen_node.get(name, "")
                if old and node != old:
                    rebinds.append((name, old, node))
                if node or name not in seen_node:
                    seen_node[name] = node or old

        def observe(p):
            note(p["metadata"]["name"], p.get("spec", {}).get("nodeName", ""))

        def watcher():
            try:
                follow()
            except Exception as e:  # a bug here must not pass for a watcher that saw nothing wrong
                errors.append("the watcher failed: %r" % e)

        def follow():
            conns = [conn_to(s, token) for s in servers]
            cur = 0  # starts on A, which is killed under it
            rv = None  # None: relist
            while not stop.is_set():
                if rv is None:
                    items, lrv = list_pods(conns[cur])
                    if items is None:
                        if lrv is None:
                            cur = 1 - cur
                            watcher_stats["failovers"] += 1
                        time.sleep(0.1)
                        continue
                    watcher_stats["lists"] += 1
                    for p in items:
                        observe(p)
                    rv = lrv
                conn = conns[cur].connection()
                got_event = False
                watcher_stats["watches"] += 1
                try:
                    # Short watches: each one ends after a few seconds and the next resumes on the
                    # other replica from the last resourceVersion seen.
                    conn.request("GET", "/api/v1/namespaces/default/pods?watch=1&resourceVersion=%s&allowWatchBookmarks=true"
                                 "&timeoutSeconds=5" % rv, headers={"Authorization": "Bearer " + token})
                    r = conn.getresponse()
                    if r.status != 200:
                        r.read()
                        if r.status in (410, 504):
                            rv = None  # expired, or this replica is behind: relist
                        else:
                            time.sleep(0.1)
                        continue
                    while not stop.is_set():
                        line = r.readline()
                        if not line:
                            cur = 1 - cur  # the watch timed out: resume on the other replica
                            watcher_stats["alternations"] += 1
                            break
                        ev = json.loads(line)
                        if ev["type"] == "ERROR":
                            rv = None  # 410: relist
                            break
                        obj = ev["object"]
                        erv = obj["metadata"]["resourceVersion"]
                        if int(erv) <= int(rv) and ev["type"] != "BOOKMARK":
                            disorder.append((obj["metadata"].get("name"), rv, erv, servers[cur].name))
                        if int(erv) > int(rv):
                            rv = erv
                        got_event = True
                        if ev["type"] in ("ADDED", "MODIFIED"):
                            observe(obj)
                except (OSError, http.client.HTTPException, ValueError):
                    # The replica went away: resume from the last resourceVersion on the other one.
                    if not servers[cur].up() or not got_event:
                        cur = 1 - cur
                        watcher_stats["failovers"] += 1
                finally:
                    conn.close()

        def wait_acked(n, what):
            deadline = time.time() + 150
            while time.time() < deadline:
                with lock:
                    if errors:
                        fail("a client failed before %s: %s" % (what, "; ".join(errors[:3])), tmp)
                    if len(acked) >= n:
                        return
                time.sleep(0.01)
            fail("%d creates were not acknowledged in time before %s (%d)" % (n, what, len(acked)), tmp)

        threads = [threading.Thread(target=creator, args=(i,), daemon=True) for i in range(CLIENTS)]
        w = threading.Thread(target=watcher, daemon=True)
        w.start()
        for t in threads:
            t.start()
        load_started = time.time()

        # --- 1. SIGKILL replica A.
        wait_acked(KILL_A_AFTER, "killing replica A")
        a.kill()
        with lock:
            acked_at_kill = set(acked)
            via_a = sum(1 for v in acked.values() if v == 0)
            bound_at_kill = {n: v for n, v in seen_node.items() if v}
        print("killed replica A at %.1fs with %d creates acknowledged (%d by A) and %d bindings seen by the watcher"
              % (time.time() - load_started, len(acked_at_kill), via_a, len(bound_at_kill)))
        check(KILL_A_AFTER <= len(acked_at_kill) < PODS and via_a > 0, "replica A killed mid-run, after it had acknowledged creates", tmp)
        cb = conn_to(b, token)
        # A list without resourceVersion is consistent: the first one that answers must hold every
        # acknowledged create, with no waiting for B's cache (only a failed request is retried).
        items = wait_until(lambda: list_pods(cb)[0], 30, 0.2)
        check(items is not None, "B answers a list after A's kill", tmp)
        present = pod_state(items)
        missing = sorted(acked_at_kill - set(present))
        check(not missing, "every create acknowledged before A's kill is on B's first list after it (%d acknowledged, "
              "%d missing%s)" % (len(acked_at_kill), len(missing), ": " + ", ".join(missing[:5]) if missing else ""), tmp)
        lost = [n for n, v in bound_at_kill.items() if present.get(n, ("", ""))[0] != v]
        check(not lost, "every binding the watcher saw before A's kill is on B (%d lost%s)"
              % (len(lost), ": " + ", ".join(lost[:5]) if lost else ""), tmp)

        # --- 2. Restart A on its port and data directory; its clients go back to it.
        wait_acked(RESTART_A_AFTER, "restarting replica A")
        t0 = time.time()
        a.start(token)
        a_restarted.set()
        print("restarted replica A at %.1fs (up in %.1fs) with %d creates acknowledged"
              % (time.time() - load_started, time.time() - t0, len(acked)))
        check(a.ca == a_ca and a.admin == a_admin, "the restarted replica A kept its CA and admin token (data dir)", tmp)
        a_old = conn_to(a, a_admin)
        status, _ = a_old.request("GET", "/api/v1/namespaces/default/pods?limit=1")
        check(status == 200, "the restarted replica A accepts the kubeconfig it handed out before", tmp)
        with open(os.path.join(tmp, "apiserver-A-2.log")) as f:
            log = f.read()
        check("etcd store opened" in log, "the restarted replica A loaded its cache from etcd", tmp)

        # --- 3. SIGKILL the etcd leader: the other two elect a new one while the writes wait.
        wait_acked(KILL_ETCD_AFTER, "killing the etcd leader")
        leader = wait_until(etcd.leader, 20, 0.2)
        check(leader is not None, "found the etcd leader", tmp)
        etcd.kill(leader)
        with lock:
            acked_at_etcd_kill = set(acked)
            bound_at_etcd_kill = {n: v for n, v in seen_node.items() if v}
        print("killed etcd leader %s at %.1fs with %d creates acknowledged and %d bindings seen by the watcher"
              % (etcd.members[leader]["name"], time.time() - load_started, len(acked_at_etcd_kill),
                 len(bound_at_etcd_kill)))
        check(len(acked_at_etcd_kill) < PODS, "the etcd leader killed mid-run", tmp)
        t0 = time.time()
        new_leader = wait_until(etcd.leader, 30, 0.1)  # among the live members only
        check(new_leader is not None, "the surviving etcd members elected %s in %.1fs"
              % (etcd.members[new_leader]["name"] if new_leader is not None else "no leader", time.time() - t0), tmp)
        for s in servers:
            c = conn_to(s, token)
            items = wait_until(lambda: list_pods(c)[0], 30, 0.2)
            check(items is not None, "%s answers a list after the etcd leader's kill" % s.name, tmp)
            have = pod_state(items)
            missing = sorted(acked_at_etcd_kill - set(have))
            check(not missing, "every create acknowledged before the etcd leader's kill is on %s (%d missing%s)"
                  % (s.name, len(missing), ": " + ", ".join(missing[:5]) if missing else ""), tmp)
            lost = [n for n, v in bound_at_etcd_kill.items() if have.get(n, ("", ""))[0] != v]
            check(not lost, "every binding the watcher saw before the etcd leader's kill is on %s (%d lost%s)"
                  % (s.name, len(lost), ": " + ", ".join(lost[:5]) if lost else ""), tmp)

        # --- 4. The end state.
        for t in threads:
            t.join(timeout=max(1, 280 - (time.time() - load_started)))
        check(not errors, "the clients created every pod (%s)" % "; ".join(errors[:3]), tmp)
        check(len(acked) == PODS, "all %d creates acknowledged in %.1fs (%d client failovers, %d by A after its restart)"
              % (PODS, time.time() - load_started, failovers[0], acked_by_new_a[0]), tmp)
        check(acked_by_new_a[0] > 0, "A's clients went back to it after its restart", tmp)

        unbound = -1
        deadline = time.time() + 150
        while time.time() < deadline:
            items, _ = list_pods(cb, "&fieldSelector=spec.nodeName%3D")
            if items is not None:
                unbound = len(items)
                if unbound == 0:
                    break
            time.sleep(0.5)
        check(unbound == 0, "the scheduler bound all %d pods through B (%d unbound) %.1fs after the load began"
              % (PODS, unbound, time.time() - load_started), tmp)
        check(sched.poll() is None, "the scheduler rode out both kills without exiting", tmp)

        # Both replicas hold every pod with the same binding and resourceVersion (their caches
        # may trail etcd by a watch event or two: bounded wait).
        ca_ = conn_to(a, token)
        states = {}

        def replicas_agree():
            for s, c in (("A", ca_), ("B", cb)):
                items, _ = list_pods(c)
                if items is None:
                    return False
                states[s] = pod_state(items)
            return states["A"] == states["B"] and len(states["B"]) == PODS

        wait_until(replicas_agree, 30, 0.5)
        for s in ("A", "B"):
            st = states.get(s, {})
            missing = sorted(set(acked) - set(st))
            check(not missing and len(st) == PODS, "replica %s lists all %d pods, every acknowledged one (%d listed, %d missing%s)"
                  % (s, PODS, len(st), len(missing), ": " + ", ".join(missing[:5]) if missing else ""), tmp)
            check(all(v[0] for v in st.values()), "replica %s shows every pod bound" % s, tmp)
        diff = sorted(n for n in set(states["A"]) | set(states["B"]) if states["A"].get(n) != states["B"].get(n))
        check(not diff, "replicas A and B list the same pods, nodeNames and resourceVersions (%d differ%s)"
              % (len(diff), ": %s" % [(n, states["A"].get(n), states["B"].get(n)) for n in diff[:3]] if diff else ""), tmp)
        r = etcd.ctl("get", PREFIX + "/pods/default/", "--prefix", "--keys-only", "-w", "json",
                     endpoints=etcd.urls(alive=True))
        check(r is not None and r.returncode == 0, "etcdctl reads the pods' keys from the surviving members", tmp)
        in_etcd = {}
        for kv in json.loads(r.stdout).get("kvs", []):
            key = base64.b64decode(kv["key"]).decode()
            in_etcd[key.rsplit("/", 1)[1]] = str(kv["mod_revision"])
        rv_diff = sorted(n for n in set(in_etcd) | set(states["B"])
                         if in_etcd.get(n) != states["B"].get(n, ("", None))[1])
        check(not rv_diff, "the replicas' resourceVersions are etcd's mod revisions of the %d pod keys (%d differ%s)"
              % (len(in_etcd), len(rv_diff), ": %s" % rv_diff[:3] if rv_diff else ""), tmp)
        revs = wait_until(lambda: (lambda st: st if len(st) == 2 and len({v["header"]["revision"] for v in st.values()}) == 1
                                   else None)(etcd.status()), 20, 0.2)
        check(revs is not None, "the two surviving etcd members agree on the revision (%s)"
              % (list(revs.values())[0]["header"]["revision"] if revs else "-"), tmp)

        # Let the watcher catch up with the last bindings, then compare.
        final = {n: v[0] for n, v in states["B"].items()}
        wait_until(lambda: all(seen_node.get(n) == v for n, v in final.items()), 60, 0.2)
        with lock:
            check(not rebinds, "no pod was bound twice (%d rebinds%s)"
                  % (len(rebinds), ": %s" % (rebinds[:3],) if rebinds else ""), tmp)
            check(all(seen_node.get(n) == v for n, v in final.items()),
                  "the watcher, across both replicas and the kills, ends with the replicas' bindings "
                  "(%d lists, %d watches, %d resumed on the other replica at a watch's timeout, %d failovers)"
                  % (watcher_stats["lists"], watcher_stats["watches"], watcher_stats["alternations"],
                     watcher_stats["failovers"]), tmp)
            check(not disorder, "every watch stream, also one resumed on the other replica, delivered events in "
                  "resourceVersion order (%d out of order%s)" % (len(disorder), ": %s" % disorder[:3] if disorder else ""), tmp)
        print("passed in %.1fs" % (time.time() - started))
    finally:
        stop.set()
        if sched and sched.poll() is None:
            sched.kill()
            sched.wait()
        for s in servers:
            s.stop()
        etcd.stop()
        if not os.environ.get("KEEP_TMP"):
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept", tmp)


if __name__ == "__main__":
    main()
