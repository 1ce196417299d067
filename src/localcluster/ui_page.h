// The page UiServer serves: one HTML document with its style and script, no external assets.
// It fetches /api/cluster (nodes, pods per node, pending pods) and, for the pod named by ?pod=
// (or clicked), /api/explain?pod=namespace/name; the explanation's tables are built in the DOM.
#pragma once

namespace ksched::localcluster {

inline constexpr const char* kUiPage = R"HTML(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>ksched: local cluster</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; margin: 0 0 .2em; } h2 { font-size: 1.1em; margin: 1.2em 0 .4em; }
table { border-collapse: collapse; margin-bottom: 1em; } td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; } .bar { display: inline-block; height: 8px; background: #4a8; vertical-align: middle; }
.rej { color: #b22; } .ok { color: #282; } .chosen { background: #e8f6e8; } a { color: #25a; cursor: pointer; }
.muted { color: #777; } code { font-size: 12px; }
</style>
</head>
<body>
<h1>ksched: local cluster</h1>
<div id="status" class="muted">loading&hellip;</div>
<div id="explanation"></div>
<h2>Nodes</h2>
<table id="nodes"><thead><tr><th>node</th><th>cpu requested</th><th>memory requested</th><th>pods</th></tr></thead><tbody></tbody></table>
<h2>Pending pods</h2>
<table id="pending"><thead><tr><th>pod</th><th>why it waits</th></tr></thead><tbody></tbody></table>
<script>
"use strict";
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}
function pct(used, of) { return of > 0 ? Math.round(100 * used / of) : 0; }
function bar(p) { return el("span", {}, el("span", {class: "bar", style: "width:" + Math.min(p, 100) + "px"}), " " + p + "%"); }
function podLink(key) {
  const a = el("a", {href: "?pod=" + encodeURIComponent(key), class: "pod"}, key);
  a.addEventListener("click", ev => { ev.preventDefault(); history.pushState(null, "", a.getAttribute("href")); explain(key); });
  return a;
}
async function getJson(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(url + ": " + r.status + " " + (await r.text()));
  return r.json();
}
async function loadCluster() {
  const c = await getJson("/api/cluster");
  const body = document.querySelector("#nodes tbody");
  body.replaceChildren();
  for (const n of c.nodes) {
    const pods = el("span", {});
    n.pods.forEach((p, i) => { if (i) pods.append(", "); pods.append(podLink(p)); });
    body.append(el("tr", {class: "node", "data-name": n.name}, el("td", {}, n.name),
      el("td", {}, bar(pct(n.milliCPU, n.milliCPUAllocatable))), el("td", {}, bar(pct(n.memory, n.memoryAllocatable))),
      el("td", {}, n.pods.length + " / " + n.podsAllocatable + " ", pods)));
  }
  const pend = document.querySelector("#pending tbody");
  pend.replaceChildren();
  for (const p of c.pending) pend.append(el("tr", {class: "pending"}, el("td", {}, podLink(p.pod)), el("td", {}, p.reason || "not tried yet")));
  if (!c.pending.length) pend.append(el("tr", {}, el("td", {colspan: 2, class: "muted"}, "none")));
  document.getElementById("status").textContent = c.nodes.length + " nodes, " + c.pods + " pods, " + c.pending.length + " pending";
}
async function explain(key) {
  const box = document.getElementById("explanation");
  box.replaceChildren(el("p", {class: "muted"}, "explaining " + key + "…"));
  let e;
  try { e = await getJson("/api/explain?pod=" + encodeURIComponent(key)); }
  catch (err) { box.replaceChildren(el("p", {class: "rej"}, String(err))); return; }
  box.setAttribute("data-pod", e.pod);
  box.setAttribute("data-chosen", e.chosen);
  const title = e.boundTo ? "Where " + e.pod + " would go now" + (e.chosen ? ": " + e.chosen : ": nowhere")
                          : "Why " + e.pod + (e.chosen ? " goes to " + e.chosen : " fits nowhere");
  const head = el("div", {}, el("h2", {}, title),
                  el("p", {id: "summary"}, e.summary),
                  e.boundTo ? el("p", {class: "muted"}, "Bound to " + e.boundTo + ": explained as if it were pending now (it is still counted there).") : "");
  const plugins = [];
  for (const n of e.nodes) for (const s of (n.scores || [])) if (!plugins.includes(s.plugin)) plugins.push(s.plugin);
  const scores = el("table", {id: "scores"}, el("tr", {}, el("th", {}, "node"), el("th", {}, "total"),
                    ...plugins.map(p => el("th", {}, p))));
  for (const n of e.nodes) {
    if (!n.scores) continue;
    const by = Object.fromEntries(n.scores.map(s => [s.plugin, s]));
    scores.append(el("tr", {class: n.name === e.chosen ? "chosen" : ""}, el("td", {}, n.name), el("td", {}, n.total),
      ...plugins.map(p => el("td", {title: by[p] ? "raw " + by[p].raw + ", normalized " + by[p].normalized + " x " + by[p].weight : ""},
                             by[p] ? by[p].weighted : "-"))));
  }
  const filters = el("table", {id: "filters"}, el("tr", {}, el("th", {}, "node"), el("th", {}, "verdict"), el("th", {}, "every Filter plugin")));
  for (const n of e.nodes) {
    const each = el("td", {});
    n.filters.forEach((f, i) => { if (i) each.append(", "); each.append(el("span", {class: f.code === "Success" ? "ok" : "rej", title: f.reason || ""}, f.plugin)); });
    filters.append(el("tr", {class: "verdict", "data-node": n.name},
      el("td", {}, n.name), el("td", {class: n.feasible ? "ok" : "rej"}, n.feasible ? "fits" : "rejected by " + n.rejected), each));
  }
  box.replaceChildren(head, e.feasible ? el("h2", {}, "Scores (weighted)") : "", e.feasible ? scores : "", el("h2", {}, "Filters"), filters);
}
async function main() {
  try { await loadCluster(); } catch (err) { document.getElementById("status").textContent = String(err); }
  const pod = new URLSearchParams(location.search).get("pod");
  if (pod) await explain(pod);
}
main();
window.addEventListener("popstate", () => { const p = new URLSearchParams(location.search).get("pod"); if (p) explain(p); });
</script>
</body>
</html>
)HTML";

}  // namespace ksched::localcluster
