// The page UiServer serves: one HTML document with its style and script, no external assets, no
// build step. It opens one Server-Sent Events stream (/api/events): a snapshot of every node and
// pod, then deltas as the cluster changes (see UiState), applied in place; nothing is fetched again.
// For a pod it fetches /api/explain?pod=namespace/name on demand (a click, ?pod=).
//
// Cheap at 5,000 nodes and 10,000 pods: the node table is virtual (only the rows in view exist,
// between two spacer rows of the height of those that do not), each node's requested resources are
// summed incrementally from the pods' deltas, and a burst of deltas is rendered once per frame.
//
// URL: ?q=search ?node=name ?pod=namespace/name restore the search and the open panels.
// For tests and tools: <body data-rev> is the revision of the last snapshot or delta applied,
// data-live is "true" while the stream is open, data-snapshots counts the snapshots received (1
// unless the stream reconnected); window.kschedPage.visibleNodes() is the node names the search
// keeps, in the table's order, window.kschedPage.search(text) searches as typing does, and
// window.kschedPage.renders() is {count, lastMs, maxMs} of the frames drawn.
#pragma once

namespace ksched::localcluster {

inline constexpr const char* kUiPage = R"HTML(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ksched: local cluster</title>
<style>
:root { --fg: #1b1f24; --muted: #59636e; --line: #d1d9e0; --head: #f3f5f7; --link: #0b57b0; --ok: #1a7f37;
        --bad: #b42318; --bar: #2f855a; --barbg: #e3e8ec; --chip: #eef2f6; --taint: #fff1e6; --sel: #e8f0fb; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: var(--fg); background: #fff; }
header { padding: .8em 1.5em .7em; border-bottom: 1px solid var(--line); }
.top { display: flex; flex-wrap: wrap; gap: .3em 1.2em; align-items: baseline; }
h1 { font-size: 1.3em; margin: 0; }
h2 { font-size: 1.1em; margin: 1em 0 .4em; }
h3 { font-size: 1em; margin: .9em 0 .3em; }
#conn { font-weight: 600; } #conn.live { color: var(--ok); } #conn.down { color: var(--bad); }
.muted { color: var(--muted); }
.controls { display: flex; flex-wrap: wrap; gap: .5em 1em; align-items: center; margin-top: .6em; }
#search { width: min(38em, 90vw); padding: .35em .5em; font: inherit; border: 1px solid #8c959f; border-radius: 4px; }
select { font: inherit; padding: .2em; }
.layout { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0 1.5em; padding: 0 1.5em 1.5em; }
.layout.with-panels { grid-template-columns: minmax(0, 1fr) minmax(320px, 32%); }
#panels { align-self: start; position: sticky; top: 0; max-height: 100vh; overflow-y: auto; padding-bottom: 1em; }
.panel { border: 1px solid var(--line); border-radius: 6px; padding: .2em 1em 1em; margin-top: 1em; background: #fff; }
.panel-head { display: flex; justify-content: space-between; align-items: start; gap: 1em; }
.panel-head h2 { outline: none; overflow-wrap: anywhere; }
.close { font: inherit; font-size: 1.2em; line-height: 1; margin-top: .7em; border: 1px solid var(--line); background: #fff;
         border-radius: 4px; cursor: pointer; padding: .15em .45em; }
.close:hover, .close:focus-visible { background: var(--head); }
table { border-collapse: collapse; width: 100%; }
td, th { border-bottom: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--head); font-weight: 600; }
.scroll { max-height: max(320px, calc(100vh - 230px)); overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
#nodes { table-layout: fixed; min-width: 760px; }
#nodes thead th { position: sticky; top: 0; z-index: 1; }
#nodes tr.node { height: 30px; }
#nodes tr.node td { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; vertical-align: middle; padding-top: 0; padding-bottom: 0; }
#nodes tr.node[aria-current="true"] { background: var(--sel); }
#nodes td.spacer { padding: 0; border: 0; }
.link { font: inherit; color: var(--link); background: none; border: 0; padding: 0; cursor: pointer; text-decoration: underline; text-align: left; }
.chip { font: inherit; font-size: 12px; background: var(--chip); border: 1px solid var(--line); border-radius: 10px; padding: 0 .5em;
        margin-right: .3em; cursor: pointer; color: var(--fg); }
.chip.taint { background: var(--taint); }
.chip:hover, .chip:focus-visible { border-color: var(--link); }
.bar { display: inline-block; width: 28px; height: 8px; background: var(--barbg); border-radius: 4px; vertical-align: middle; margin-right: .4em; overflow: hidden; }
.bar > span { display: block; height: 100%; background: var(--bar); }
.bar.full > span { background: var(--bad); }
.num { font-variant-numeric: tabular-nums; }
.ok { color: var(--ok); } .rej, .bad { color: var(--bad); }
.chosen { background: #e7f5ea; }
code, .mono { font-family: ui-monospace, monospace; font-size: 12px; }
.kv { display: flex; flex-wrap: wrap; gap: .3em 0; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
</style>
</head>
<body data-rev="-1" data-live="false" data-snapshots="0">
<header>
  <div class="top">
    <h1>ksched: local cluster</h1>
    <span id="conn" role="status">connecting&hellip;</span>
    <span id="counts" class="muted"></span>
  </div>
  <div class="controls" role="search">
    <label for="search">Search</label>
    <input id="search" type="search" autocomplete="off" spellcheck="false"
           placeholder="node, label (zone=zone-a), taint (NoSchedule), pod (namespace/name)"
           aria-describedby="search-help">
    <label for="sort">Sort nodes by</label>
    <select id="sort">
      <option value="name">name</option>
      <option value="cpu">CPU requested (share)</option>
      <option value="memory">memory requested (share)</option>
      <option value="pods">pods</option>
    </select>
  </div>
  <p id="search-help" class="muted" style="margin:.4em 0 0">Every word must match a node&rsquo;s name, one of its labels
    (<code>key=value</code>), taints (<code>key=value:Effect</code>), <code>notready</code>, <code>cordoned</code>,
    one of its DRA devices (<code>driver/pool/device</code>) or one of its pods (<code>namespace/name</code>); pending pods match by name or reason. Press <kbd>/</kbd> to search,
    <kbd>Esc</kbd> to close a panel.</p>
</header>
<div id="layout" class="layout">
  <main>
    <h2 id="nodes-title">Nodes <span id="nodes-count" class="muted"></span></h2>
    <p id="nodes-help" class="muted" style="margin-top:0">CPU, memory and pods: requested by the pods bound there / allocatable
      (the bar: the share). Labels on every node come last.</p>
    <div id="node-scroll" class="scroll" tabindex="0" aria-labelledby="nodes-title" aria-describedby="nodes-help">
      <table id="nodes" aria-labelledby="nodes-title">
        <colgroup><col style="width:15%"><col style="width:78px"><col style="width:136px"><col style="width:178px">
          <col style="width:78px"><col><col style="width:17%"></colgroup>
        <thead><tr><th scope="col">node</th><th scope="col">status</th><th scope="col">CPU</th>
          <th scope="col">memory</th><th scope="col">pods</th><th scope="col">labels</th><th scope="col">taints</th></tr></thead>
        <tbody></tbody>
      </table>
    </div>
    <h2 id="pending-title">Pending pods <span id="pending-count" class="muted"></span></h2>
    <table id="pending" aria-labelledby="pending-title">
      <thead><tr><th scope="col">pod</th><th scope="col">priority</th><th scope="col">why it waits (the scheduler&rsquo;s words)</th></tr></thead>
      <tbody></tbody>
    </table>
    <p id="pending-more" class="muted"></p>
    <section id="groups-section" aria-labelledby="groups-title" hidden>
      <h2 id="groups-title">Pod groups <span id="groups-count" class="muted"></span></h2>
      <p id="groups-help" class="muted" style="margin-top:0">Pods placed together (a PodGroup,
        <code>spec.schedulingGroup</code>, or a Workload&rsquo;s pod group, <code>spec.workloadRef</code>): a gang is
        bound whole or not at all.</p>
      <table id="groups" aria-labelledby="groups-title" aria-describedby="groups-help">
        <thead><tr><th scope="col">group</th><th scope="col">bound</th><th scope="col">pending</th>
          <th scope="col">why its pending members wait</th></tr></thead>
        <tbody></tbody>
      </table>
    </section>
  </main>
  <aside id="panels" aria-label="Details" hidden>
    <section id="node-panel" class="panel" aria-labelledby="node-panel-title" hidden></section>
    <section id="explanation" class="panel" aria-labelledby="explanation-title" hidden></section>
  </aside>
</div>
<script>
"use strict";
const ROW = 30;             // px: a node row's height (the table is virtual)
const OVERSCAN = 8;         // rows drawn beyond the visible ones
const PENDING_SHOWN = 200;  // pending pods listed at most (the count says how many match)
const collator = new Intl.Collator(undefined, {numeric: true});
const NONE = {cpu: 0, memory: 0, pods: 0};

// ---- the cluster as the stream told it
const S = {
  nodes: new Map(),   // name -> node record (+ hay: its searchable text)
  pods: new Map(),    // namespace/name -> pod record (+ lkey)
  req: new Map(),     // node name -> {cpu, memory, pods} summed from the pods bound there
  podsOn: new Map(),  // node name -> Set of pod keys
  pending: new Set(), // keys of pods without a node
  groups: new Map(),  // pod group -> {bound, pending: Set of keys}
};
let byName = [], rank = new Map(), namesDirty = true;  // node names in name order
let labelNodes = new Map(), labelsDirty = true;       // "key=value" -> how many nodes have it
let view = [], hits = new Map();                      // names the search keeps; pods that matched
let terms = [], sortKey = "name";
let dirty = true, frame = 0, openNode = null, openPod = null;
const panelOrder = [];  // open panels, last opened last (Esc closes it)

const $ = sel => document.querySelector(sel);
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v);
  for (const c of children) if (c !== undefined && c !== null && c !== "") e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}
function cores(m) { return m > 0 && m < 1000 ? m + "m" : String(parseFloat((m / 1000).toFixed(2))); }
function bytes(b) {
  if (b === 0) return "0";
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let i = 0;
  while (Math.abs(b) >= 1024 && i < units.length - 1) { b /= 1024; i++; }
  return parseFloat(b.toFixed(1)) + " " + units[i];
}
function pct(used, of) { return of > 0 ? Math.round(100 * used / of) : 0; }
function usage(used, of, fmt) {
  const p = pct(used, of);
  return el("span", {title: p + "% of allocatable requested"},
    el("span", {class: p >= 100 ? "bar full" : "bar", "aria-hidden": "true"}, el("span", {style: "width:" + Math.min(p, 100) + "%"})),
    el("span", {class: "num"}, fmt(used) + " / " + fmt(of)));
}
function labelText(k, v) { return v === "" ? k : k + "=" + v; }
function taintText(t) { return (t.value ? t.key + "=" + t.value : t.key) + ":" + t.effect; }
function nodeStatus(n) { return (n.ready ? "Ready" : "NotReady") + (n.unschedulable ? ", cordoned" : ""); }

// ---- applying the stream
function ungroup(p) {
  const g = p.group && S.groups.get(p.group);
  if (!g) return;
  if (p.node) g.bound--; else g.pending.delete(p.key);
  if (g.bound <= 0 && !g.pending.size) S.groups.delete(p.group);
}
function group(p) {
  if (!p.group) return;
  let g = S.groups.get(p.group);
  if (!g) S.groups.set(p.group, g = {bound: 0, pending: new Set()});
  if (p.node) g.bound++; else g.pending.add(p.key);
}
function unplace(p) {
  ungroup(p);
  if (!p.node) { S.pending.delete(p.key); return; }
  const r = S.req.get(p.node);
  if (r) { r.cpu -= p.cpu; r.memory -= p.memory; r.pods--; if (r.pods <= 0) S.req.delete(p.node); }
  const on = S.podsOn.get(p.node);
  if (on) { on.delete(p.key); if (!on.size) S.podsOn.delete(p.node); }
}
function place(p) {
  group(p);
  if (!p.node) { S.pending.add(p.key); return; }
  let r = S.req.get(p.node);
  if (!r) S.req.set(p.node, r = {cpu: 0, memory: 0, pods: 0});
  r.cpu += p.cpu; r.memory += p.memory; r.pods++;
  let on = S.podsOn.get(p.node);
  if (!on) S.podsOn.set(p.node, on = new Set());
  on.add(p.key);
}
function setPod(p) {
  p.lkey = p.key.toLowerCase();
  const old = S.pods.get(p.key);
  if (old) unplace(old);
  S.pods.set(p.key, p);
  place(p);
}
function deletePod(key) {
  const old = S.pods.get(key);
  if (old) { unplace(old); S.pods.delete(key); }
}
function setNode(n) {
  if (!S.nodes.has(n.name)) namesDirty = true;
  labelsDirty = true;
  n.devices = n.devices || [];
  n.hay = [n.name, ...Object.entries(n.labels).map(([k, v]) => labelText(k, v)), ...n.taints.map(taintText),
           n.ready ? "ready" : "notready", n.unschedulable ? "cordoned" : "",
           ...n.devices.map(d => d.name)].join("\n").toLowerCase();
  S.nodes.set(n.name, n);
}
function deleteNode(name) { if (S.nodes.delete(name)) namesDirty = labelsDirty = true; }

function onSnapshot(s) {
  S.nodes.clear(); S.pods.clear(); S.req.clear(); S.podsOn.clear(); S.pending.clear(); S.groups.clear();
  namesDirty = true;
  for (const n of s.nodes) setNode(n);
  for (const p of s.pods) setPod(p);
  document.body.dataset.snapshots = String(Number(document.body.dataset.snapshots) + 1);
  applied(s.rev);
}
function onDelta(d) {
  for (const n of d.nodes) setNode(n);
  for (const name of d.deletedNodes) deleteNode(name);
  for (const p of d.pods) setPod(p);
  for (const key of d.deletedPods) deletePod(key);
  applied(d.rev);
}
function applied(rev) {
  document.body.dataset.rev = String(rev);
  invalidate();
}
function invalidate() {
  dirty = true;
  if (!frame) frame = requestAnimationFrame(render);
}

// ---- search and order
function nodeHits(n) {  // null: no match; else the pods that matched (maybe none)
  let found = null;
  for (const t of terms) {
    if (n.hay.includes(t)) continue;
    let any = false;
    const on = S.podsOn.get(n.name);
    if (on) for (const k of on) if (S.pods.get(k).lkey.includes(t)) { (found || (found = [])).push(k); any = true; }
    if (!any) return null;
  }
  return found || [];
}
function computeView() {
  if (namesDirty) {
    byName = [...S.nodes.keys()].sort(collator.compare);
    rank = new Map(byName.map((n, i) => [n, i]));
    namesDirty = false;
  }
  if (labelsDirty) {
    labelNodes = new Map();
    for (const n of S.nodes.values()) for (const [k, v] of Object.entries(n.labels)) {
      const t = labelText(k, v);
      labelNodes.set(t, (labelNodes.get(t) || 0) + 1);
    }
    labelsDirty = false;
  }
  hits = new Map();
  view = [];
  for (const name of byName) {
    const h = terms.length ? nodeHits(S.nodes.get(name)) : [];
    if (h === null) continue;
    view.push(name);
    if (h.length) hits.set(name, h);
  }
  if (sortKey !== "name") {
    const share = name => {
      const n = S.nodes.get(name), r = S.req.get(name) || NONE;
      return sortKey === "pods" ? r.pods : (n[sortKey] > 0 ? r[sortKey] / n[sortKey] : 0);
    };
    const key = new Map(view.map(n => [n, share(n)]));
    view.sort((a, b) => (key.get(b) - key.get(a)) || (rank.get(a) - rank.get(b)));
  }
}
function pendingView() {
  const out = [];
  for (const key of S.pending) {
    const p = S.pods.get(key);
    if (terms.every(t => p.lkey.includes(t) || (p.message || "").toLowerCase().includes(t))) out.push(p);
  }
  out.sort((a, b) => (b.priority || 0) - (a.priority || 0) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return out;
}

// ---- drawing
const renders = {count: 0, lastMs: 0, maxMs: 0};
function render() {
  const t0 = performance.now();
  frame = 0;
  if (dirty) computeView();
  drawRows();
  if (dirty) {
    drawPending();
    drawGroups();
    drawCounts();
    if (openNode !== null) drawNodePanel();
  }
  dirty = false;
  renders.lastMs = performance.now() - t0;
  renders.maxMs = Math.max(renders.maxMs, renders.lastMs);
  renders.count++;
}
function spacer(h) { return el("tr", {"aria-hidden": "true"}, el("td", {class: "spacer", colspan: 7, style: "height:" + h + "px"})); }
function chip(text, cls) {
  const b = el("button", {type: "button", class: cls ? "chip " + cls : "chip", title: "Search for " + text}, text);
  b.addEventListener("click", ev => { ev.stopPropagation(); searchFor(text); });
  return b;
}
function nodeRow(name) {
  const n = S.nodes.get(name), r = S.req.get(name) || NONE, h = hits.get(name);
  const open = el("button", {type: "button", class: "link", title: "Details of " + name}, name);
  open.addEventListener("click", () => showNode(name, true));
  const labels = el("td", {title: Object.entries(n.labels).map(([k, v]) => labelText(k, v)).join("\n")});
  // What tells nodes apart first: labels every node has go last; the hostname is the name.
  const texts = Object.entries(n.labels).filter(([k]) => k !== "kubernetes.io/hostname").map(([k, v]) => labelText(k, v));
  const common = t => labelNodes.get(t) === S.nodes.size ? 1 : 0;
  texts.sort((a, b) => common(a) - common(b) || (a < b ? -1 : 1));
  for (const t of texts) labels.append(chip(t));
  const taints = el("td", {title: n.taints.map(taintText).join("\n")});
  for (const t of n.taints) taints.append(chip(taintText(t), "taint"));
  const pods = el("td", {}, el("span", {class: "num"}, r.pods + " / " + n.pods));
  if (n.devices.length) {
    const used = n.devices.filter(d => d.claim).length;
    pods.append(el("span", {class: "muted devices", title: "DRA devices in use / on the node"}, " \u00b7 devices " + used + " / " + n.devices.length));
  }
  if (h) pods.append(el("span", {class: "muted"}, " " + h.slice(0, 3).join(", ") + (h.length > 3 ? ", +" + (h.length - 3) : "")));
  return el("tr", {class: "node", "data-name": name, "aria-current": name === openNode ? "true" : null},
    el("td", {}, open), el("td", {class: n.ready && !n.unschedulable ? "" : "bad"}, nodeStatus(n)),
    el("td", {}, usage(r.cpu, n.cpu, cores)), el("td", {}, usage(r.memory, n.memory, bytes)), pods, labels, taints);
}
function drawRows() {
  const box = $("#node-scroll");
  const first = Math.max(0, Math.floor(box.scrollTop / ROW) - OVERSCAN);
  // The box grows with its rows up to its max-height: draw for that height, not for what it has now.
  const height = Math.max(box.clientHeight, parseFloat(getComputedStyle(box).maxHeight) || 0, 300);
  const last = Math.min(view.length, first + Math.ceil(height / ROW) + 2 * OVERSCAN);
  const rows = [spacer(first * ROW)];
  for (let i = first; i < last; i++) rows.push(nodeRow(view[i]));
  rows.push(spacer((view.length - last) * ROW));
  if (!view.length) rows.push(el("tr", {}, el("td", {colspan: 7, class: "muted"}, S.nodes.size ? "no node matches the search" : "no nodes")));
  $("#nodes tbody").replaceChildren(...rows);
}
function podLink(key) {
  const a = el("a", {href: "?pod=" + encodeURIComponent(key), class: "pod"}, key);
  a.addEventListener("click", ev => { ev.preventDefault(); explain(key, true); });
  return a;
}
function drawPending() {
  const list = pendingView();
  const body = $("#pending tbody");
  const rows = list.slice(0, PENDING_SHOWN).map(p => el("tr", {class: "pending", "data-pod": p.key},
    el("td", {}, podLink(p.key)), el("td", {class: "num"}, p.priority || 0),
    el("td", {}, p.message || (p.reason ? p.reason : "not tried yet"), p.nominated ? el("span", {class: "muted"}, " (nominated to " + p.nominated + ")") : "")));
  if (!rows.length) rows.push(el("tr", {}, el("td", {colspan: 3, class: "muted"}, S.pending.size ? "none matches the search" : "none")));
  body.replaceChildren(...rows);
  $("#pending-count").textContent = terms.length ? "(" + list.length + " of " + S.pending.size + " match)" : "(" + S.pending.size + ")";
  $("#pending-more").textContent = list.length > PENDING_SHOWN ? "Showing " + PENDING_SHOWN + " of " + list.length + ", highest priority first; search to narrow." : "";
}
function drawGroups() {
  $("#groups-section").hidden = !S.groups.size;
  if (!S.groups.size) return;
  const names = [...S.groups.keys()].sort(collator.compare);
  const rows = names.map(name => {
    const g = S.groups.get(name);
    // The members wait for one reason (the group's cycle), so the first one's words say it.
    const first = g.pending.size ? S.pods.get([...g.pending].sort(collator.compare)[0]) : null;
    const why = first ? (first.message || first.reason || "not tried yet") : "all bound";
    return el("tr", {class: "group", "data-group": name}, el("td", {}, name), el("td", {class: "num"}, g.bound),
      el("td", {class: "num"}, g.pending.size), el("td", {class: first ? "" : "muted"}, why));
  });
  $("#groups tbody").replaceChildren(...rows);
  $("#groups-count").textContent = "(" + S.groups.size + ")";
}
function drawCounts() {
  $("#counts").textContent = S.nodes.size + " nodes, " + S.pods.size + " pods, " + S.pending.size + " pending";
  $("#nodes-count").textContent = terms.length ? "(" + view.length + " of " + S.nodes.size + " match)" : "(" + S.nodes.size + ")";
}

// ---- panels
function updatePanels() {
  const any = openNode !== null || openPod !== null;
  $("#panels").hidden = !any;
  $("#layout").classList.toggle("with-panels", any);
}
function setParam(name, value) {
  const u = new URL(location.href);
  if (value === null || value === "") u.searchParams.delete(name); else u.searchParams.set(name, value);
  history.replaceState(null, "", u.pathname + u.search);
}
function panelHead(id, title, onClose) {
  const close = el("button", {type: "button", class: "close", "aria-label": "Close " + title}, "\u00d7");
  close.addEventListener("click", onClose);
  return el("div", {class: "panel-head"}, el("h2", {id: id, tabindex: "-1"}, title), close);
}
function opened(name) {
  const i = panelOrder.indexOf(name);
  if (i >= 0) panelOrder.splice(i, 1);
  panelOrder.push(name);
}
function showNode(name, focus) {
  openNode = name;
  opened("node");
  setParam("node", name);
  drawNodePanel();
  updatePanels();
  invalidate();
  if (focus) $("#node-panel-title").focus();
}
function closeNode() {
  openNode = null;
  panelOrder.splice(panelOrder.indexOf("node"), 1);
  $("#node-panel").hidden = true;
  setParam("node", null);
  updatePanels();
  invalidate();
}
function drawNodePanel() {
  const box = $("#node-panel"), n = S.nodes.get(openNode);
  box.hidden = false;
  box.dataset.node = openNode;
  if (!n) { box.replaceChildren(panelHead("node-panel-title", openNode, closeNode), el("p", {class: "bad"}, "This node does not exist (any more).")); return; }
  const r = S.req.get(openNode) || NONE;
  const res = el("table", {class: "resources"}, el("thead", {}, el("tr", {}, el("th", {scope: "col"}, "resource"),
    el("th", {scope: "col"}, "requested"), el("th", {scope: "col"}, "allocatable"), el("th", {scope: "col"}, "share"))));
  for (const [what, used, of, fmt] of [["cpu", r.cpu, n.cpu, cores], ["memory", r.memory, n.memory, bytes], ["pods", r.pods, n.pods, String]]) {
    res.append(el("tr", {}, el("td", {}, what), el("td", {class: "num"}, fmt(used)), el("td", {class: "num"}, fmt(of)), el("td", {class: "num"}, pct(used, of) + "%")));
  }
  const labels = el("div", {class: "kv"});
  for (const [k, v] of Object.entries(n.labels)) labels.append(chip(labelText(k, v)));
  const taints = el("div", {class: "kv"});
  for (const t of n.taints) taints.append(chip(taintText(t), "taint"));
  const keys = [...(S.podsOn.get(openNode) || [])].sort(collator.compare);
  const pods = el("table", {class: "pods"}, el("thead", {}, el("tr", {}, el("th", {scope: "col"}, "pod"),
    el("th", {scope: "col"}, "CPU"), el("th", {scope: "col"}, "memory"), el("th", {scope: "col"}, "phase"))));
  for (const k of keys) {
    const p = S.pods.get(k);
    pods.append(el("tr", {class: "node-pod", "data-pod": k}, el("td", {}, podLink(k)), el("td", {class: "num"}, cores(p.cpu)),
      el("td", {class: "num"}, bytes(p.memory)), el("td", {}, p.phase || "")));
  }
  // DRA devices of the node's own ResourceSlices: which claim holds each, for which pod.
  const devices = el("table", {class: "devices"}, el("thead", {}, el("tr", {}, el("th", {scope: "col"}, "device"),
    el("th", {scope: "col"}, "claim"), el("th", {scope: "col"}, "pod"))));
  for (const d of n.devices) {
    devices.append(el("tr", {class: "node-device", "data-device": d.name}, el("td", {}, d.name),
      el("td", {}, d.claim || "free"), el("td", {}, d.pod ? podLink(d.pod) : "")));
  }
  const usedDevices = n.devices.filter(d => d.claim).length;
  box.replaceChildren(panelHead("node-panel-title", "Node " + openNode, closeNode),
    el("p", {class: n.ready && !n.unschedulable ? "" : "bad"}, nodeStatus(n)),
    el("h3", {}, "Resources"), res,
    ...(n.devices.length ? [el("h3", {}, "Devices (" + usedDevices + " of " + n.devices.length + " in use)"), devices] : []),
    el("h3", {}, "Labels (" + Object.keys(n.labels).length + ")"), labels,
    el("h3", {}, "Taints (" + n.taints.length + ")"), n.taints.length ? taints : el("p", {class: "muted"}, "none"),
    el("h3", {}, "Pods (" + keys.length + ")"), keys.length ? pods : el("p", {class: "muted"}, "none"));
}
function closeExplanation() {
  openPod = null;
  panelOrder.splice(panelOrder.indexOf("pod"), 1);
  const box = $("#explanation");
  box.hidden = true;
  box.replaceChildren();
  setParam("pod", null);
  updatePanels();
}
async function getJson(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(url + ": " + r.status + " " + (await r.text()));
  return r.json();
}
async function explain(key, focus) {
  openPod = key;
  opened("pod");
  setParam("pod", key);
  updatePanels();
  const box = $("#explanation");
  box.hidden = false;
  box.removeAttribute("data-pod");
  box.removeAttribute("data-chosen");
  box.replaceChildren(panelHead("explanation-title", key, closeExplanation), el("p", {class: "muted"}, "explaining " + key + "\u2026"));
  let e;
  try { e = await getJson("api/explain?pod=" + encodeURIComponent(key)); }
  catch (err) { if (openPod === key) box.append(el("p", {class: "rej"}, String(err))); return; }
  if (openPod !== key) return;  // closed, or another pod asked for meanwhile
  box.setAttribute("data-pod", e.pod);
  box.setAttribute("data-chosen", e.chosen);
  const title = e.boundTo ? "Where " + e.pod + " would go now" + (e.chosen ? ": " + e.chosen : ": nowhere")
                          : "Why " + e.pod + (e.chosen ? " goes to " + e.chosen : " fits nowhere");
  const again = el("button", {type: "button", class: "chip"}, "explain again");
  again.addEventListener("click", () => explain(key, false));
  const head = el("div", {}, el("p", {id: "summary"}, e.summary),
                  e.boundTo ? el("p", {class: "muted"}, "Bound to " + e.boundTo + ": explained as if it were pending now (it is still counted there).") : "",
                  el("p", {class: "muted"}, "Explained once, at the time asked for; the cluster changes meanwhile. ", again));
  const plugins = [];
  for (const n of e.nodes) for (const s of (n.scores || [])) if (!plugins.includes(s.plugin)) plugins.push(s.plugin);
  const scores = el("table", {id: "scores"}, el("tr", {}, el("th", {scope: "col"}, "node"), el("th", {scope: "col"}, "total"),
                    ...plugins.map(p => el("th", {scope: "col"}, p))));
  for (const n of e.nodes) {
    if (!n.scores) continue;
    const by = Object.fromEntries(n.scores.map(s => [s.plugin, s]));
    scores.append(el("tr", {class: n.name === e.chosen ? "chosen" : ""}, el("td", {}, n.name), el("td", {}, n.total),
      ...plugins.map(p => el("td", {title: by[p] ? "raw " + by[p].raw + ", normalized " + by[p].normalized + " x " + by[p].weight : ""},
                             by[p] ? by[p].weighted : "-"))));
  }
  const filters = el("table", {id: "filters"}, el("tr", {}, el("th", {scope: "col"}, "node"), el("th", {scope: "col"}, "verdict"), el("th", {scope: "col"}, "every Filter plugin")));
  for (const n of e.nodes) {
    const each = el("td", {});
    n.filters.forEach((f, i) => { if (i) each.append(", "); each.append(el("span", {class: f.code === "Success" ? "ok" : "rej", title: f.reason || ""}, f.plugin)); });
    filters.append(el("tr", {class: "verdict", "data-node": n.name},
      el("td", {}, n.name), el("td", {class: n.feasible ? "ok" : "rej"}, n.feasible ? "fits" : "rejected by " + n.rejected), each));
  }
  box.replaceChildren(panelHead("explanation-title", title, closeExplanation), head,
    e.feasible ? el("h3", {}, "Scores (weighted)") : "", e.feasible ? el("div", {style: "overflow-x:auto"}, scores) : "",
    el("h3", {}, "Filters"), el("div", {style: "overflow-x:auto"}, filters));
  if (focus) $("#explanation-title").focus();
}

// ---- controls
let searchTimer = 0;
function applySearch(text) {
  terms = text.toLowerCase().split(/\s+/).filter(Boolean);
  setParam("q", text.trim());
  $("#node-scroll").scrollTop = 0;
  invalidate();
}
function searchFor(text) {
  const box = $("#search");
  box.value = text;
  applySearch(text);
  box.focus();
}
$("#search").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => applySearch($("#search").value), 120);
});
$("#sort").addEventListener("change", () => { sortKey = $("#sort").value; invalidate(); });
$("#node-scroll").addEventListener("scroll", () => { if (!frame) frame = requestAnimationFrame(render); }, {passive: true});
window.addEventListener("resize", () => { if (!frame) frame = requestAnimationFrame(render); });
document.addEventListener("keydown", ev => {
  const typing = ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement;
  if (ev.key === "/" && !typing) { ev.preventDefault(); $("#search").focus(); }
  else if (ev.key === "Escape" && panelOrder.length) {
    ev.preventDefault();
    (panelOrder[panelOrder.length - 1] === "node" ? closeNode : closeExplanation)();
  }
});

// ---- the stream
function connect() {
  const conn = $("#conn");
  const es = new EventSource("api/events");
  es.addEventListener("open", () => { conn.textContent = "live"; conn.className = "live"; document.body.dataset.live = "true"; });
  es.addEventListener("error", () => { conn.textContent = "reconnecting\u2026"; conn.className = "down"; document.body.dataset.live = "false"; });
  es.addEventListener("snapshot", ev => onSnapshot(JSON.parse(ev.data)));
  es.addEventListener("delta", ev => onDelta(JSON.parse(ev.data)));
}
window.kschedPage = {
  visibleNodes: () => view.slice(),
  search: text => { $("#search").value = text; applySearch(text); },
  renders: () => Object.assign({}, renders),
};
(function start() {
  const q = new URLSearchParams(location.search);
  if (q.get("q")) { $("#search").value = q.get("q"); terms = q.get("q").toLowerCase().split(/\s+/).filter(Boolean); }
  if (q.get("node")) { openNode = q.get("node"); opened("node"); updatePanels(); }
  connect();
  if (q.get("pod")) explain(q.get("pod"), false);
})();
</script>
</body>
</html>
)HTML";

}  // namespace ksched::localcluster
