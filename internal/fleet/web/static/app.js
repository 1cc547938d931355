// brine console: live updates over the API's event stream (/events),
// which the browser opens with the session cookie. Pages work without it.
"use strict";

function eventStream(tag, onEvent, onState) {
  const url = "/events" + (tag && tag !== "*" ? "?tag=" + encodeURIComponent(tag) : "");
  const es = new EventSource(url);
  es.onopen = () => onState && onState("open");
  es.onerror = () => onState && onState(es.readyState === EventSource.CLOSED ? "closed" : "reconnecting");
  es.onmessage = (m) => {
    let ev;
    try { ev = JSON.parse(m.data); } catch (e) { return; }
    onEvent(ev);
  };
  return es;
}

// The job page: fetch each minion's rendered return as its ret event
// arrives (and once when the stream opens, for returns in between).
function liveJob(root) {
  const jid = root.dataset.jid;
  const load = (section) => {
    const id = section.dataset.minion;
    fetch("/app/jobs/" + jid + "/ret/" + encodeURIComponent(id), { credentials: "same-origin" })
      .then((r) => {
        if (r.status !== 200) return;
        const failed = r.headers.get("X-Brine-Failed") === "1";
        return r.text().then((html) => {
          section.querySelector("pre.output").innerHTML = html;
          section.classList.remove("waiting");
          section.classList.add(failed ? "failed" : "ok");
          section.querySelector(".state").textContent = failed ? "failed" : "returned";
        });
      });
  };
  const waiting = () => root.querySelectorAll("section.result.waiting");
  if (waiting().length === 0) return;
  const es = eventStream("salt/job/" + jid + "/ret/*", (ev) => {
    const id = ev.data && ev.data.id;
    waiting().forEach((s) => { if (s.dataset.minion === id) load(s); });
    if (waiting().length === 0) es.close();
  }, (state) => {
    if (state !== "open") return;
    window.brineLive = true;
    waiting().forEach(load);
  });
}

// The events page: a live tail, newest first, bounded.
function liveEvents(list) {
  const status = document.getElementById("stream-state");
  const pause = document.getElementById("pause");
  let paused = false;
  pause.addEventListener("click", () => {
    paused = !paused;
    pause.setAttribute("aria-pressed", String(paused));
    pause.textContent = paused ? "Resume" : "Pause";
  });
  eventStream(list.dataset.tag, (ev) => {
    if (paused) return;
    const li = document.createElement("li");
    const tag = document.createElement("span");
    tag.className = "tag";
    tag.textContent = ev.tag;
    const pre = document.createElement("pre");
    pre.textContent = JSON.stringify(ev.data);
    li.append(tag, pre);
    list.prepend(li);
    while (list.children.length > 500) list.lastChild.remove();
  }, (state) => {
    status.textContent = state === "open" ? "Listening for events." : "Stream " + state + "…";
  });
}

// The graph page: a running apply's progress events (state_events:
// salt/job/<jid>/prog/<minion>/<run_num>) colour the boxes as each state
// finishes; a new job starts from a clean graph.
function liveGraph(root) {
  const minion = root.dataset.minion;
  const status = document.getElementById("graph-progress");
  let jid = "";
  let done = 0;
  eventStream("salt/job/*/prog/" + minion + "/*", (ev) => {
    // the master fires a minion's event with Salt's whole _minion_event
    // load: the state's data is under "data"
    const parts = ev.tag.split("/");
    const d = (ev.data && (ev.data.data || ev.data)) || {};
    const ret = d.ret;
    if (!ret) return;
    if (parts[2] !== jid) {
      jid = parts[2];
      done = 0;
      root.querySelectorAll("g.node").forEach((n) => n.classList.remove("ok", "failed", "pending", "running"));
    }
    let node = root.querySelector('g.node[data-run="' + ret.__run_num__ + '"]');
    if (!node && ret.__id__) {
      node = Array.from(root.querySelectorAll("g.node")).find((n) => n.dataset.sid === ret.__id__);
    }
    if (node) {
      node.classList.remove("ok", "failed", "pending");
      node.classList.add(ret.result === true ? "ok" : ret.result === false ? "failed" : "pending");
    }
    done++;
    status.textContent = "Job " + jid + ": " + done + " of " + (d.len || "?") + " states done.";
  }, (state) => {
    if (state === "open") window.brineGraphLive = true;
  });
}

// The run page: completion of function names, loaded once.
function completeFunctions(list) {
  fetch(list.dataset.src, { credentials: "same-origin" })
    .then((r) => (r.ok ? r.text() : ""))
    .then((text) => {
      const frag = document.createDocumentFragment();
      for (const name of text.split("\n")) {
        if (!name) continue;
        const o = document.createElement("option");
        o.value = name;
        frag.append(o);
      }
      list.append(frag);
    });
}

document.addEventListener("DOMContentLoaded", () => {
  const funcs = document.getElementById("functions");
  if (funcs && funcs.dataset.src) completeFunctions(funcs);
  const results = document.getElementById("results");
  if (results) liveJob(results);
  const events = document.getElementById("events");
  if (events) liveEvents(events);
  const graph = document.getElementById("graph-live");
  if (graph) liveGraph(graph);
});
