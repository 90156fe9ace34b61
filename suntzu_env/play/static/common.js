// What every game's page shares: small helpers, the server's JSON API, messages, screens, SVG elements, and the
// page's flow (new games, answers, replays, where the address leads) around the game's own `render(view)`.
// Loaded before the game's own script (its folder's static/, named by its face: suntzu_env/play/face.py).
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const params = new URLSearchParams(location.search);

const $ = (sel) => document.querySelector(sel);
function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

function showMessage(text, kind = "error") {
  const box = $("#message");
  box.textContent = text;
  box.className = kind;
  box.hidden = !text;
}

async function api(method, url, body, raw = false) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.body = raw ? body : JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const response = await fetch(url, init);
  let data;
  try {
    data = await response.json();
  } catch (error) {
    throw new Error(`the server answered ${response.status} without JSON`);
  }
  if (!response.ok) throw new Error(data.error || `the server answered ${response.status}`);
  return data;
}

function showScreen(id) {
  for (const screen of document.querySelectorAll(".screen")) screen.hidden = screen.id !== id;
}

function svg(tag, attrs = {}, children = []) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, v);
  for (const child of [].concat(children)) if (child) el.appendChild(child);
  return el;
}
function text(x, y, content, attrs = {}) {
  const el = svg("text", { x, y, ...attrs });
  el.textContent = content;
  return el;
}

// ------------------------------------------------------------------ the page of any game
// The shell (shell.html) names the game the page shows and where it is served: <body data-root data-api>. Each
// game's script (from its own folder) draws its board with `render(view)` and hands `startPage` its hooks:
//   home(options)         fill the new-game form from GET <api>/options (absent: the game is only replayed)
//   newGame(form)         the new-game request's body from the form (its seed is read here)
//   actionBody(action)    a person's answer as sent (default {action})
//   played(data)          show the answer to it (default: render its view)
//   agentLabel(view)      the agent's name, for a replay's title
//   enterGame(view), enterReplay(view)   what else the game shows on entering a game or a replay
//   replayEnd(replay)     the replay's title's ending (who won)
//   replayQuery(replay, step, mode)   the query of a replay's step (default step=N)
//   openQuery()           the query a replay's address opens with (default step=<step>)
//   prepare()             what the game reads once before anything is shown (Bin'Fa's board)
const page = document.body.dataset;
const ROOT = page.root || "";
const API = page.api || "/api";
const state = { mode: null, view: null, gameId: null, replay: null, busy: false };
let hooks = {};

// A view drawn: the game's board, then its panels.
function render(view) {
  state.view = view;
  $("#board").replaceChildren(hooks.board(view));
  for (const draw of hooks.panels) draw(view);
}

function setReady(ready) {
  state.busy = !ready;
  document.body.dataset.ready = ready ? "1" : "0";
  for (const el of document.querySelectorAll("[data-action]")) el.classList.toggle("waiting", !ready);
}

async function startGame(event) {
  event.preventDefault();
  showMessage("");
  const form = new FormData(event.target);
  const body = hooks.newGame(form);
  const seed = String(form.get("seed") || "").trim();
  if (seed) {
    if (!/^\d+$/.test(seed)) return showMessage(`the seed must be a whole number, got ${seed}`);
    body.seed = Number(seed);
  }
  $("#start").disabled = true;
  try {
    const data = await api("POST", `${API}/games`, body);
    history.pushState({}, "", `${ROOT}/play/${data.view.game.id}${location.search}`);
    enterGame(data.view);
  } catch (error) {
    showMessage(error.message);
  } finally {
    $("#start").disabled = false;
  }
}

function enterGame(view) {
  state.mode = "play";
  state.gameId = view.game.id;
  if (hooks.enterGame) hooks.enterGame(view);
  $("#replay-controls").hidden = true;
  showScreen("table");
  render(view);
  setReady(true);
}

async function sendAction(action) {
  if (state.busy) return;
  showMessage("");
  setReady(false);
  try {
    const body = hooks.actionBody ? hooks.actionBody(action) : { action };
    const data = await api("POST", `${API}/games/${state.gameId}/actions`, body);
    await (hooks.played ? hooks.played(data) : render(data.view));
  } catch (error) {
    showMessage(error.message);
  }
  setReady(true);
}

async function replayThisGame() {
  try {
    const record = await api("GET", `${API}/games/${state.gameId}/record`);
    const title = `your game against ${hooks.agentLabel ? hooks.agentLabel(state.view) : state.view.game.agent}`;
    const view = await api("POST", `${API}/replays?title=${encodeURIComponent(title)}`, JSON.stringify(record), true);
    history.pushState({}, "", `${ROOT}/replay/${view.replay.id}`);
    enterReplay(view);
  } catch (error) {
    showMessage(error.message);
  }
}

// The buttons and board places that answer a decision: each carries its action string (data-action).
document.addEventListener("click", (event) => {
  const target = event.target.closest("[data-action]");
  if (!target || state.mode !== "play") return;
  event.preventDefault();
  sendAction(target.dataset.action);
});

// ------------------------------------------------------------------ replays

function enterReplay(view) {
  state.mode = "replay";
  state.replay = view.replay;
  if (hooks.enterReplay) hooks.enterReplay(view);
  $("#replay-controls").hidden = false;
  showScreen("table");
  showReplayStep(view);
}

function replayQuery(r, step, mode) {
  return hooks.replayQuery ? hooks.replayQuery(r, step, mode) : `step=${Math.max(0, Math.min(r.steps - 1, step))}`;
}

function showReplayStep(view) {
  state.replay = view.replay;
  const r = view.replay;
  $("#replay-title").textContent = r.title + (hooks.replayEnd ? hooks.replayEnd(r) : "");
  $("#replay-slider").max = r.steps - 1;
  $("#replay-slider").value = r.step;
  $("#replay-step").textContent = `step ${r.step + 1} of ${r.steps}`;
  $("#replay-step").dataset.step = r.step;
  render(view);
  history.replaceState({}, "", `${ROOT}/replay/${r.id}?${replayQuery(r, r.step, r.mode)}`);
  setReady(true);
}

async function gotoStep(step, mode) {
  const r = state.replay;
  if (!r) return;
  setReady(false);
  try {
    showMessage("");
    showReplayStep(await api("GET", `${API}/replays/${r.id}?${replayQuery(r, step, mode || r.mode)}`));
  } catch (error) {
    showMessage(error.message);
    setReady(true);
  }
}

$("#replay-first").onclick = () => gotoStep(0);
$("#replay-prev").onclick = () => gotoStep(state.replay.step - 1);
$("#replay-next").onclick = () => gotoStep(state.replay.step + 1);
$("#replay-last").onclick = () => gotoStep(state.replay.steps - 1);
$("#replay-slider").oninput = (event) => gotoStep(Number(event.target.value));
document.addEventListener("keydown", (event) => {
  if (state.mode !== "replay" || event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
  if (event.key === "ArrowRight") gotoStep(state.replay.step + 1);
  if (event.key === "ArrowLeft") gotoStep(state.replay.step - 1);
});

async function openRecordFile(event) {
  const file = event.target.files[0];
  if (!file) return;
  showMessage("");
  try {
    const view = await api("POST", `${API}/replays?title=${encodeURIComponent(file.name)}`, await file.text(), true);
    history.pushState({}, "", `${ROOT}/replay/${view.replay.id}`);
    enterReplay(view);
  } catch (error) {
    showMessage(`${file.name}: ${error.message}`);
  } finally {
    event.target.value = "";
  }
}

// ------------------------------------------------------------------ where the address leads

async function home() {
  showScreen("home");
  if (hooks.home) await hooks.home(await api("GET", `${API}/options`));
  setReady(true);
}

async function route() {
  const path = location.pathname.slice(ROOT.length);
  try {
    if (hooks.prepare) await hooks.prepare();
    if (path.startsWith("/play/")) {
      enterGame((await api("GET", `${API}/games/${path.slice(6)}`)).view);
    } else if (path.startsWith("/replay/")) {
      const query = hooks.openQuery ? hooks.openQuery() : `step=${params.get("step") || 0}`;
      enterReplay(await api("GET", `${API}/replays/${path.slice(8)}?${query}`));
    } else if (path === "/replay" && params.has("results")) { // a game of an evaluation's results folder
      const view = await api("POST", `${API}/replays/results`, { path: params.get("results"), game: Number(params.get("game")) });
      history.replaceState({}, "", `${ROOT}/replay/${view.replay.id}`);
      enterReplay(view);
    } else if (location.pathname === "/results") {
      await showResults(params.get("path") || "");
    } else {
      await home();
    }
  } catch (error) {
    if (location.pathname !== (ROOT || "/")) await home();
    showMessage(error.message);
  }
}

function startPage(given) {
  hooks = given;
  const form = $("#new-game");
  if (form) form.addEventListener("submit", startGame);
  const file = $("#record-file");
  if (file) file.addEventListener("change", openRecordFile);
  window.addEventListener("popstate", () => location.reload());
  api("GET", "/api/games").then((games) => { // the other games' links, by their titles
    for (const game of games) {
      const link = document.getElementById(`nav-${game.name}`);
      if (link) link.textContent = game.title;
    }
  }).catch(() => {});
  return (hooks.before ? hooks.before() : Promise.resolve()).then(route);
}
