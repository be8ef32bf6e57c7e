// The web view (see index.html): the threads, the selected thread's live
// run with its approval card, and its history with fork. It calls the same
// HTTP API as any client. Everything the server sends is untrusted: it goes
// into the page through textContent only, never as HTML.
"use strict";

/** Where the bearer token is kept for this tab. */
const TOKEN_KEY = "rebound.token";
/** Assistants whose input is `{"goal": text}`; the others take JSON. */
const GOAL_ASSISTANTS = ["pev", "reflect"];
/** How often the thread list is read again. */
const REFRESH_MS = 2000;
/** The stream modes the page reads. */
const STREAM_MODES = ["values", "updates", "events"];
/** The most output lines a tool's tail keeps. */
const TAIL_LINES = 200;
/** How many times a dropped stream is joined again. */
const REJOINS = 5;

/** What the page shows now. */
const view = {
  selected: null, // the selected thread's id
  thread: null, // the selected thread, as last read
  stream: null, // the run stream being read: {controller, threadId, runId, lastId, ended}
  interrupt: null, // the interrupt the approval card answers
};

const $ = (id) => document.getElementById(id);

/** A new element with a class and text (text only: never HTML). */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// The tail: ids made from time (UUIDv7, checkpoints) share their head.
const short = (id) => String(id || "").slice(-8);
const path = (...parts) => parts.map(encodeURIComponent).join("/");

function duration(us) {
  if (typeof us !== "number") return "";
  if (us < 1000) return `${us} µs`;
  if (us < 1e6) return `${(us / 1000).toFixed(1)} ms`;
  return `${(us / 1e6).toFixed(2)} s`;
}

function when(stamp) {
  if (!stamp) return "";
  const date = new Date(stamp);
  return isNaN(date) ? "" : date.toLocaleString();
}

/** A value as one line of text, cut to `max` characters. */
function summary(value, max = 300) {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  return text.length > max ? text.slice(0, max) + "…" : text;
}

// ---- The API, with the bearer token asked for on a 401 ----

let tokenWaiters = null;

function askToken() {
  if (!tokenWaiters) {
    tokenWaiters = [];
    $("auth").hidden = false;
    $("token").focus();
  }
  return new Promise((resolve) => tokenWaiters.push(resolve));
}

$("auth").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $("token").value.trim());
  $("token").value = "";
  $("auth").hidden = true;
  const waiters = tokenWaiters || [];
  tokenWaiters = null;
  waiters.forEach((resolve) => resolve());
});

async function errorText(response) {
  const text = await response.text();
  try {
    const detail = JSON.parse(text).detail;
    if (detail !== undefined) return `${response.status}: ${summary(detail)}`;
  } catch (_) {
    // not JSON: the text itself
  }
  return `${response.status}: ${summary(text)}`;
}

/** A successful response to `url`; asks for the token and retries on 401. */
async function request(url, { method = "GET", body, headers = {}, signal } = {}) {
  for (;;) {
    const sent = { ...headers };
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) sent.Authorization = `Bearer ${token}`;
    if (body !== undefined) sent["Content-Type"] = "application/json";
    const response = await fetch(url, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    if (response.status === 401) {
      await askToken();
      continue;
    }
    if (!response.ok) throw new Error(await errorText(response));
    return response;
  }
}

const api = async (url, options) => (await request(url, options)).json();
const post = (url, body) => api(url, { method: "POST", body });

// ---- Server-sent events, read from a fetch body ----

/** Calls `onEvent(name, data, id)` for each event of an SSE response. */
async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let event = { name: "message", data: [], id: null };
  const dispatch = () => {
    if (event.data.length) {
      const text = event.data.join("\n");
      let data = text;
      try {
        data = JSON.parse(text);
      } catch (_) {
        // not JSON: the text
      }
      onEvent(event.name, data, event.id);
    }
    event = { name: "message", data: [], id: null };
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      let line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.endsWith("\r")) line = line.slice(0, -1);
      if (line === "") {
        dispatch();
        continue;
      }
      if (line.startsWith(":")) continue; // a keep-alive comment
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") event.name = value;
      else if (field === "data") event.data.push(value);
      else if (field === "id") event.id = value;
    }
  }
  dispatch();
}

// ---- The run log ----

/** A new section of the run log, for one run. */
function runSection() {
  const log = $("run-log");
  log.querySelectorAll(".empty").forEach((node) => node.remove());
  const section = el("div", "run");
  section.tail = null;
  log.append(section);
  return section;
}

function logLine(section, kind, tag, text) {
  const line = el("div", `line ${kind}`);
  const label = el("span", "tag", tag);
  label.title = String(tag);
  line.append(label, el("span", "text", text));
  section.append(line);
  section.tail = kind === "tool" ? section.tail : null;
  return line;
}

function toolOutput(section, output) {
  if (!section.tail) {
    section.tail = el("pre", "tail");
    section.append(section.tail);
  }
  const tail = section.tail;
  tail.append(el("div", output.stream === "stderr" ? "stderr" : "stdout", output.line ?? ""));
  while (tail.childElementCount > TAIL_LINES) tail.firstElementChild.remove();
  tail.scrollTop = tail.scrollHeight;
}

function toolCall(section, call) {
  const what = call.command || call.name || "tool";
  if (call.phase === "started") {
    logLine(section, "tool", "tool", `$ ${what}`);
    section.tail = null;
  } else if (call.phase === "finished") {
    const outcome = call.outcome || {};
    let how = call.success ? "ok" : "failed";
    if (outcome.exit_code !== undefined && outcome.exit_code !== null) how += `, exit ${outcome.exit_code}`;
    if (outcome.timed_out) how += ", timed out";
    if (call.duration_ms !== undefined) how += `, ${call.duration_ms} ms`;
    logLine(section, call.success ? "tool" : "tool error", "tool", `${call.name || what}: ${how}`);
  } else {
    logLine(section, "tool", "tool", `${what} (${call.phase || "?"}): ${summary(call)}`);
  }
}

/** A custom payload: tool calls and output specially, anything else as a line. */
function customPayload(section, payload) {
  if (payload && typeof payload === "object" && !Array.isArray(payload)) {
    if (payload.tool_output) return toolOutput(section, payload.tool_output);
    if (payload.tool_call) return toolCall(section, payload.tool_call);
    const keys = Object.keys(payload);
    if (keys.length === 1) return logLine(section, "custom", keys[0], summary(payload[keys[0]]));
  }
  logLine(section, "custom", "custom", summary(payload));
}

/** One of rebound's typed events (`events` stream mode). */
function typedEvent(section, event) {
  switch (event.event) {
    case "run_started":
      return logLine(section, "run-started", "run", "started");
    case "node_started":
      return logLine(section, "node-started", event.node, `started (step ${event.step}${event.attempt > 1 ? `, attempt ${event.attempt}` : ""})`);
    case "node_finished": {
      const wrote = (event.changed || []).length ? ` · wrote ${event.changed.join(", ")}` : "";
      return logLine(section, "node-finished", event.node, `finished in ${duration(event.duration_us)}${wrote}`);
    }
    case "route_chosen":
      return logLine(section, "route", "route", `${event.from} → ${(event.to || []).join(", ")}${event.reason ? ` · ${event.reason}` : ""}`);
    case "retry":
      return logLine(section, "retry error", event.node, `attempt ${event.attempt} failed, retrying in ${duration(event.delay_us)}: ${event.error}`);
    case "custom":
      return customPayload(section, event.payload);
    case "interrupted":
      return logLine(section, "interrupted", event.node, `waits for an answer (${event.kind})`);
    case "error":
      return logLine(section, "error", event.node || "error", event.message);
    case "values":
    case "updates":
      return null; // read from their own stream modes
    case "subgraph":
      return event.inner ? typedEvent(section, event.inner) : null;
    case "run_finished": {
      const line = logLine(section, "run-finished", "run", `${event.status} after ${event.steps} step(s), ${duration(event.duration_us)}`);
      line.dataset.status = event.status;
      return line;
    }
    default:
      return logLine(section, "event", event.event || "event", summary(event));
  }
}

/** The plan, when the state has one: a `plan` array or `plan.steps`. */
function showPlan(values) {
  const plan = values && values.plan;
  const steps = Array.isArray(plan) ? plan : plan && Array.isArray(plan.steps) ? plan.steps : null;
  $("plan").hidden = !steps || steps.length === 0;
  if (!steps) return;
  $("plan-steps").replaceChildren(
    ...steps.map((step) => {
      const item = el("li", "plan-step");
      if (step && typeof step === "object") {
        item.append(el("span", "description", step.description ?? summary(step)));
        if (step.command) item.append(" ", el("code", "command", step.command));
      } else {
        item.textContent = summary(step);
      }
      return item;
    }),
  );
}

// ---- Streams ----

function stopStream() {
  if (view.stream) view.stream.controller.abort();
  view.stream = null;
}

/**
 * Reads a run's stream into a new run-log section: `url` and `options` make
 * the first request; a stream that drops before `end` is joined again after
 * its last event id. `note` heads the section (what started the run).
 */
async function streamRun(threadId, url, options = {}, note = null) {
  stopStream();
  const stream = { controller: new AbortController(), threadId, runId: null, lastId: null, ended: false };
  view.stream = stream;
  const section = runSection();
  if (note) logLine(section, "note", note[0], note[1]);
  const onEvent = (name, data, id) => {
    if (view.stream !== stream) return;
    if (id !== null) stream.lastId = id;
    switch (name) {
      case "metadata":
        stream.runId = data.run_id;
        section.dataset.runId = data.run_id;
        logLine(section, "metadata", "run", `${short(data.run_id)}${data.attempt > 1 ? ` (attempt ${data.attempt})` : ""}`);
        break;
      case "values":
        showPlan(data);
        break;
      case "updates":
        if (data && data.__interrupt__) {
          showInterrupts(data.__interrupt__);
          if (!section.querySelector(".interrupted")) logLine(section, "interrupted", "run", "waits for an answer");
        }
        break;
      case "events":
        typedEvent(section, data);
        break;
      case "error":
        logLine(section, "error", data.error || "error", data.message || summary(data));
        break;
      case "end":
        stream.ended = true;
        break;
    }
  };
  let rejoins = 0;
  try {
    let response = await request(url, { ...options, signal: stream.controller.signal });
    for (;;) {
      try {
        await readEvents(response, onEvent);
      } catch (error) {
        if (stream.controller.signal.aborted) throw error;
      }
      if (stream.ended || !stream.runId || rejoins >= REJOINS) break;
      rejoins += 1;
      const headers = stream.lastId ? { "Last-Event-ID": stream.lastId } : {};
      response = await request(`/threads/${path(threadId, "runs", stream.runId, "stream")}`, {
        headers,
        signal: stream.controller.signal,
      });
    }
  } catch (error) {
    if (stream.controller.signal.aborted) return;
    logLine(section, "error", "error", error.message);
  }
  if (view.stream === stream) {
    view.stream = null;
    if (view.selected === threadId) await loadThread(threadId, false);
  }
}

const assistantOf = (thread) =>
  (thread && thread.metadata && (thread.metadata.graph_id || thread.metadata.assistant_id)) || $("assistant").value;

/** Starts a run on the selected thread and streams it. */
function startRun(body, note) {
  const threadId = view.selected;
  if (!threadId) return Promise.resolve();
  return streamRun(threadId, `/threads/${path(threadId)}/runs/stream`, {
    method: "POST",
    body: { assistant_id: assistantOf(view.thread), stream_mode: STREAM_MODES, ...body },
  }, note);
}

// ---- Interrupts: the approval card ----

function showInterrupts(interrupts) {
  const first = (interrupts || [])[0];
  view.interrupt = first || null;
  $("approval").hidden = !first;
  if (!first) return;
  const value = first.value;
  const approval = value && typeof value === "object" && value.kind === "approval";
  $("approval-request").hidden = !approval;
  $("interrupt-other").hidden = approval;
  if (approval) {
    $("approval-command").textContent = value.command ?? "";
    $("approval-tool").textContent = value.tool ?? "";
    $("approval-cwd").textContent = value.cwd ?? "";
    $("approval-reason").textContent = value.reason ?? "";
  } else {
    $("interrupt-value").textContent = JSON.stringify(value, null, 2);
  }
  $("approval").querySelectorAll("button").forEach((button) => (button.disabled = false));
}

function resume(answer) {
  $("approval").querySelectorAll("button").forEach((button) => (button.disabled = true));
  $("approval").hidden = true;
  view.interrupt = null;
  $("deny-message").value = "";
  $("interrupt-answer").value = "";
  return startRun({ command: { resume: answer } }, ["answer", summary(answer)]);
}

$("approve").addEventListener("click", () => resume({ decision: "approve" }));
$("approve-all").addEventListener("click", () => resume({ decision: "approve_all" }));
$("deny").addEventListener("click", () => resume({ decision: "deny", message: $("deny-message").value }));
$("interrupt-send").addEventListener("click", () => resume($("interrupt-answer").value));

// ---- The selected thread ----

function showThreadHead(thread) {
  view.thread = thread;
  const goal = thread.values && typeof thread.values.goal === "string" ? thread.values.goal : "";
  $("thread-title").textContent = goal ? summary(goal, 80) : `thread ${short(thread.thread_id)}`;
  $("thread-status").textContent = thread.status;
  $("thread-status").className = `status ${thread.status}`;
  $("thread-graph").textContent = `${assistantOf(thread)} · ${thread.thread_id}`;
}

async function showHistory(threadId) {
  const states = await post(`/threads/${path(threadId)}/history`, { limit: 50 });
  if (view.selected !== threadId) return;
  const rows = states.map((state) => {
    const metadata = state.metadata || {};
    const id = state.checkpoint && state.checkpoint.checkpoint_id;
    const row = el("div", "checkpoint");
    row.dataset.checkpointId = id || "";
    row.append(el("span", "step", `step ${metadata.step ?? "?"}`));
    const what = el("div");
    const ran = (metadata.ran || []).join(", ");
    what.append(el("span", "ran", ran || metadata.source || "input"));
    if ((state.next || []).length) what.append(el("span", "field", ` → next: ${state.next.join(", ")}`));
    if ((metadata.reasons || []).length) what.append(el("div", "reasons", metadata.reasons.join(" · ")));
    what.append(el("div", "reasons mono", `${short(id)} · ${when(state.created_at)}`));
    row.append(what);
    const fork = el("button", "fork", "Fork");
    fork.type = "button";
    fork.title = "Run on from this checkpoint (a new branch)";
    fork.addEventListener("click", () => startRun({ checkpoint_id: id, input: null }, ["fork", `from step ${metadata.step ?? "?"} (${short(id)})`]));
    row.append(fork);
    return row;
  });
  $("history").replaceChildren(...(rows.length ? rows : [el("div", "empty", "no checkpoints yet")]));
}

/** Reads the thread again; `join` also replays (or follows) its newest run. */
async function loadThread(threadId, join) {
  try {
    const thread = await api(`/threads/${path(threadId)}`);
    if (view.selected !== threadId) return;
    showThreadHead(thread);
    showPlan(thread.values);
    if (join) {
      const runs = await api(`/threads/${path(threadId)}/runs?limit=1`);
      if (view.selected !== threadId) return;
      if (runs.length) {
        // The stream of a finished run replays its stored events; of a live one, follows it.
        streamRun(threadId, `/threads/${path(threadId, "runs", runs[0].run_id, "stream")}`);
      }
    }
    const state = await api(`/threads/${path(threadId)}/state`);
    if (view.selected !== threadId) return;
    if (!view.stream || view.stream.threadId !== threadId) showInterrupts(state.interrupts);
    await showHistory(threadId);
  } catch (error) {
    if (view.selected === threadId) logLine(runSection(), "error", "error", error.message);
  }
}

/** Shows `threadId`; `join` replays (or follows) its newest run. */
function selectThread(threadId, join = true) {
  if (view.selected === threadId) return;
  stopStream();
  view.selected = threadId;
  view.thread = null;
  $("no-thread").hidden = true;
  $("thread-view").hidden = false;
  $("run-log").replaceChildren(el("div", "empty", "no runs yet"));
  $("history").replaceChildren();
  $("plan").hidden = true;
  showInterrupts([]);
  document.querySelectorAll(".thread").forEach((item) => item.classList.toggle("selected", item.dataset.threadId === threadId));
  loadThread(threadId, join);
}

// ---- The thread list ----

const threadItems = new Map();

function threadItem(thread) {
  let item = threadItems.get(thread.thread_id);
  if (!item) {
    item = el("li", "thread");
    item.dataset.threadId = thread.thread_id;
    item.append(el("span", "name"), el("span", "status"), el("span", "meta"));
    item.addEventListener("click", () => selectThread(item.dataset.threadId));
    threadItems.set(thread.thread_id, item);
  }
  const goal = thread.values && typeof thread.values.goal === "string" ? thread.values.goal : "";
  item.querySelector(".name").textContent = goal ? summary(goal, 60) : short(thread.thread_id);
  const status = item.querySelector(".status");
  status.textContent = thread.status;
  status.className = `status ${thread.status}`;
  item.querySelector(".meta").textContent = `${assistantOf(thread)} · ${short(thread.thread_id)} · ${when(thread.updated_at)}`;
  item.classList.toggle("selected", thread.thread_id === view.selected);
  return item;
}

async function refreshThreads() {
  const threads = await post("/threads/search", { limit: 50 });
  threads.sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)));
  const list = $("threads");
  const seen = new Set(threads.map((thread) => thread.thread_id));
  for (const [id, item] of threadItems) {
    if (!seen.has(id)) {
      item.remove();
      threadItems.delete(id);
    }
  }
  list.querySelectorAll(".empty").forEach((node) => node.remove());
  threads.forEach((thread) => list.append(threadItem(thread)));
  if (!threads.length) list.append(el("li", "empty", "no threads yet"));
  const selected = threads.find((thread) => thread.thread_id === view.selected);
  if (!selected || !view.thread) return;
  if (view.stream) {
    showThreadHead({ ...view.thread, status: selected.status });
  } else if (selected.status !== view.thread.status || selected.updated_at !== view.thread.updated_at) {
    // Changed by another client: read it again, and follow a run that is live.
    loadThread(selected.thread_id, selected.status === "busy");
  }
}

async function refreshLoop() {
  try {
    await refreshThreads();
    $("threads").classList.remove("stale");
  } catch (error) {
    $("threads").classList.add("stale");
    console.warn("refreshing the threads failed:", error);
  }
  setTimeout(refreshLoop, REFRESH_MS);
}

// ---- The new-run form ----

function inputKind() {
  const goal = GOAL_ASSISTANTS.includes($("assistant").value);
  $("goal-label").textContent = goal ? "Goal" : "Input (JSON)";
  $("goal").placeholder = goal ? "What should the agent do?" : '{"key": "value"}';
}

async function loadAssistants() {
  const assistants = await post("/assistants/search", {});
  const select = $("assistant");
  const ids = [...new Set(assistants.map((a) => a.graph_id || a.assistant_id))];
  select.replaceChildren(...ids.map((id) => {
    const option = el("option", "", id);
    option.value = id;
    return option;
  }));
  inputKind();
}

$("assistant").addEventListener("change", inputKind);

$("new-run").addEventListener("submit", async (event) => {
  event.preventDefault();
  const message = $("new-run-error");
  message.textContent = "";
  const assistant = $("assistant").value;
  let input;
  if (GOAL_ASSISTANTS.includes(assistant)) {
    input = { goal: $("goal").value };
  } else {
    try {
      input = $("goal").value.trim() ? JSON.parse($("goal").value) : {};
    } catch (error) {
      message.textContent = `not JSON: ${error.message}`;
      return;
    }
  }
  try {
    const thread = await post("/threads", { graph_id: assistant });
    await refreshThreads().catch(() => {});
    selectThread(thread.thread_id, false);
    $("run-log").replaceChildren();
    streamRun(thread.thread_id, `/threads/${path(thread.thread_id)}/runs/stream`, {
      method: "POST",
      body: { assistant_id: assistant, input, stream_mode: STREAM_MODES },
    });
  } catch (error) {
    message.textContent = error.message;
  }
});

loadAssistants().catch((error) => ($("new-run-error").textContent = error.message));
refreshLoop();
