// Sun Tzu's page: the board drawn from the views the server sends (only what the seat may know); the page's flow
// (new games, answers, replays) is the shared one of common.js, which this script hands its hooks.
"use strict";

const SEATS = ["blue", "red"];
const TITLES = { blue: "Sun Tzu", red: "the King of Chu" };
const SPEED = params.has("speed") ? Math.max(0, Number(params.get("speed")) || 0) : 700; // ms per shown step

state.seenLog = -1; // the last log line shown one by one
// the rules in one line each (GET /api/rules, declared once on the server: suntzu_env/suntzu/web/explain.py)
const RULES = { cards: {}, warlords: {}, events: {}, outcomes: {}, url: "/rules", doc: "docs/rules.md" };

// ------------------------------------------------------------------ small helpers

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const nice = (name) => name.replace(/_/g, " ");

function agentLabel(view) {
  return view.game.agent_label || view.game.agent;
}

async function loadRules() {
  try {
    Object.assign(RULES, await api("GET", `${API}/rules`));
  } catch (error) {
    return; // the page works without them
  }
  const section = (title, entries) => `<h4>${esc(title)}</h4><ul>${entries.map(([k, v]) => `<li><b>${esc(nice(k))}</b>: ${esc(v)}</li>`).join("")}</ul>`;
  const strip = (text) => text.replace(/^[^(]*/, ""); // the name is the entry's key
  const all = section("Cards", Object.entries(RULES.cards))
    + section("Warlords", Object.entries(RULES.warlords).map(([k, v]) => [k, strip(v)]))
    + section("Battles", Object.entries(RULES.outcomes))
    + section("Events (with event cards)", Object.entries(RULES.events));
  for (const body of document.querySelectorAll(".rules-body")) body.innerHTML = all;
  for (const link of document.querySelectorAll(".rules-link")) {
    link.href = RULES.url;
    link.textContent = RULES.doc;
  }
}

// ------------------------------------------------------------------ cards and tokens (SVG)

function cardGlyph(card) {
  return card === "P" || card === "P*" ? "☠" : card;
}

// A card on the table: face up, face down (a back), or one's own face-down card (shown, marked hidden).
function tableCard(x, y, seat, slot, w = 58, h = 80) {
  const g = svg("g", { class: `tcard ${seat}`, transform: `translate(${x},${y})` });
  if (!slot) {
    g.appendChild(svg("rect", { width: w, height: h, rx: 7, class: "slot-empty" }));
    return g;
  }
  if (slot.card === null) {
    g.appendChild(svg("rect", { width: w, height: h, rx: 7, class: `back ${seat}` }));
    g.appendChild(svg("rect", { x: 6, y: 6, width: w - 12, height: h - 12, rx: 4, class: "back-inner" }));
    g.appendChild(text(w / 2, h / 2 + 7, "?", { class: "back-mark", "text-anchor": "middle" }));
    g.dataset.card = "hidden";
    return g;
  }
  g.appendChild(svg("rect", { width: w, height: h, rx: 7, class: `face ${seat}${slot.face_down ? " mine-hidden" : ""}` }));
  const label = cardGlyph(slot.card);
  g.appendChild(text(w / 2, h / 2 + 10, label, { class: `card-value ${seat}`, "text-anchor": "middle",
    "font-size": label.length > 2 ? 22 : 28 }));
  if (slot.card === "P" || slot.card === "P*") g.appendChild(text(w / 2, h - 8, "Plague", { class: "card-note", "text-anchor": "middle" }));
  if (slot.face_down) g.appendChild(text(w / 2, 13, "face down", { class: "card-note", "text-anchor": "middle" }));
  g.dataset.card = slot.card;
  return g;
}

function sixMark(x, y, seat) {
  const r = 11;
  const pts = [...Array(6).keys()].map((i) => {
    const a = Math.PI / 6 + (i * Math.PI) / 3;
    return `${x + r * Math.cos(a)},${y + r * Math.sin(a)}`;
  });
  return svg("g", { class: `sixmark ${seat}` }, [svg("polygon", { points: pts.join(" ") }), text(x, y + 4.5, "6", { "text-anchor": "middle" })]);
}

// ------------------------------------------------------------------ the board

function orientation(view) {
  // the person's (or the seat viewed) side sits at the bottom; the full view puts blue at the bottom
  const me = view.seat || "blue";
  return { me, opp: me === "blue" ? "red" : "blue" };
}

function legalActions(view) {
  const d = view.decision;
  return d && state.mode === "play" ? new Set(d.actions.map((a) => a.action)) : new Set();
}

function drawBoard(view) {
  const W = 1000, H = 560;
  const { me, opp } = orientation(view);
  const legal = legalActions(view);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "board", role: "img", "aria-label": "the board" });
  root.appendChild(svg("rect", { x: 0, y: 0, width: W, height: H, rx: 14, class: "board-bg" }));

  // marker track: red's end (-9) on the left, blue's end (+9) on the right
  const cell = 42, x0 = (W - 19 * cell) / 2, ty = 12;
  root.appendChild(text(x0 - 10, ty + 24, "RED", { class: "track-end red", "text-anchor": "end" }));
  root.appendChild(text(x0 + 19 * cell + 10, ty + 24, "BLUE", { class: "track-end blue" }));
  for (let i = 0; i < 19; i++) {
    const v = i - 9;
    const cls = v < 0 ? "red-half" : v > 0 ? "blue-half" : "centre";
    root.appendChild(svg("rect", { x: x0 + i * cell, y: ty, width: cell - 3, height: 34, rx: 5, class: `track ${cls}` }));
    root.appendChild(text(x0 + i * cell + (cell - 3) / 2, ty + 22, Math.abs(v), { class: "track-num", "text-anchor": "middle" }));
  }
  const mx = x0 + (view.score + 9) * cell + (cell - 3) / 2;
  root.appendChild(svg("g", { class: "marker", id: "marker", "data-score": view.score }, [
    svg("circle", { cx: mx, cy: ty + 17, r: 17 }),
    text(mx, ty + 23, view.score > 0 ? `+${view.score}` : String(view.score), { "text-anchor": "middle" }),
  ]));

  // round track with the scorings of rounds 3, 6 and 9
  const ry = 72, rx0 = 330;
  root.appendChild(text(rx0 - 18, ry + 5, "ROUND", { class: "label", "text-anchor": "end" }));
  for (let r = 1; r <= 9; r++) {
    const cx = rx0 + (r - 1) * 40;
    const scoring = r % 3 === 0;
    const cls = `round${r === view.round ? " current" : ""}${r < view.round ? " past" : ""}${scoring ? " scoring" : ""}`;
    root.appendChild(svg("circle", { cx, cy: ry, r: scoring ? 15 : 12, class: cls }));
    root.appendChild(text(cx, ry + 5, r, { class: "round-num", "text-anchor": "middle" }));
  }
  root.appendChild(text(rx0 + 8 * 40 + 28, ry + 5, `scoring after rounds 3, 6, 9`, { class: "label" }));
  const PHASES = { warlords: "setup: warlords", placement: "placement", window: "warlord window", reveal: "reveals",
    battle: "battle", draw: "draw", over: "game over" };
  const phase = view.winner ? "game over" : PHASES[view.phase] || view.phase;
  root.appendChild(text(40, ry + 5, phase.toUpperCase(), { class: "label phase" }));

  // the five provinces
  const pw = 184, gap = 11, px0 = (W - 5 * pw - 4 * gap) / 2, py = 100, ph = 448;
  const col = [3, 6, 9].indexOf(view.scoring_round);
  view.provinces.forEach((prov, p) => {
    const x = px0 + p * (pw + gap);
    const action = `province:${prov.name}`;
    const choosable = legal.has(action);
    const g = svg("g", { class: `province${choosable ? " choosable" : ""}${prov.holder ? " held-" + prov.holder : ""}`,
      "data-province": prov.name, transform: `translate(${x},${py})` });
    if (choosable) g.dataset.action = action;
    g.appendChild(svg("rect", { width: pw, height: ph, rx: 12, class: "province-bg" }));
    g.appendChild(svg("rect", { width: pw, height: 34, rx: 12, class: "province-head" }));
    g.appendChild(svg("rect", { y: 22, width: pw, height: 12, class: "province-head" }));
    g.appendChild(text(pw / 2, 23, prov.name, { class: "province-name", "text-anchor": "middle" }));

    // score display: values at the scorings of rounds 3, 6, 9; the coming one highlighted
    prov.values.forEach((v, i) => {
      const cx = 14 + i * 54;
      const next = i === col;
      g.appendChild(svg("rect", { x: cx, y: 42, width: 48, height: 44, rx: 6, class: `value${next ? " next" : ""}${i < col ? " spent" : ""}` }));
      g.appendChild(text(cx + 24, 56, `R${3 * (i + 1)}`, { class: "value-round", "text-anchor": "middle" }));
      g.appendChild(text(cx + 24, 79, v, { class: "value-num", "text-anchor": "middle" }));
    });

    // the opponent's card above, mine below, six-marks beside each
    const slotX = 26;
    g.appendChild(tableCard(slotX, 96, opp, prov.cards[opp]));
    g.appendChild(tableCard(slotX, 356, me, prov.cards[me]));
    for (let i = 0; i < prov.marks[opp]; i++) g.appendChild(sixMark(118 + i * 26, 136, opp));
    for (let i = 0; i < prov.marks[me]; i++) g.appendChild(sixMark(118 + i * 26, 396, me));
    if (prov.marks[opp]) g.appendChild(text(118, 164, "six-mark", { class: "small-note" }));
    if (prov.marks[me]) g.appendChild(text(118, 424, "six-mark", { class: "small-note" }));

    // armies: one block per army, in the holder's colour
    const ay = 190;
    if (prov.holder) {
      for (let i = 0; i < prov.armies; i++) {
        const bx = 14 + (i % 7) * 23, by = ay + Math.floor(i / 7) * 23;
        g.appendChild(svg("rect", { x: bx, y: by, width: 19, height: 19, rx: 3, class: `army ${prov.holder}` }));
      }
      g.appendChild(text(pw / 2, ay + Math.ceil(prov.armies / 7) * 23 + 16, `${prov.armies} ${prov.armies === 1 ? "army" : "armies"}`,
        { class: `army-count ${prov.holder}`, "text-anchor": "middle" }));
    } else {
      g.appendChild(text(pw / 2, ay + 40, "empty", { class: "empty", "text-anchor": "middle" }));
    }

    // the battle's result once revealed
    if (prov.result) {
      const r = prov.result;
      const label = r.plague ? "Plague" : r.winner ? `${cap(r.winner)} +${r.by}` : "Tie";
      const cls = r.plague ? "plague" : r.winner || "tie";
      g.appendChild(svg("rect", { x: 20, y: 312, width: pw - 40, height: 30, rx: 15, class: `result ${cls}` }));
      g.appendChild(text(pw / 2, 332, label, { class: "result-text", "text-anchor": "middle" }));
      const title = svg("title");
      title.textContent = r.why ? `${r.text}: ${r.why}` : r.text;
      g.appendChild(title);
    }
    root.appendChild(g);
  });
  if (view.table.finished && !view.winner) {
    root.appendChild(text(W / 2, H - 2, `cards of round ${view.table.round}`, { class: "small-note", "text-anchor": "middle" }));
  }
  return root;
}

// ------------------------------------------------------------------ the seats' strips (HTML)

function pool(label, value, cls = "") {
  return `<div class="pool ${cls}"><span class="pool-num">${esc(value)}</span><span class="pool-label">${esc(label)}</span></div>`;
}

function outList(cards) {
  return cards.length ? cards.map((c) => `<span class="mini" title="${esc(c)}: ${esc(RULES.cards[c] || "")}">${esc(cardGlyph(c))}</span>`).join("") : `<span class="none">none</span>`;
}

function drawOpponent(view) {
  const { opp } = orientation(view);
  const s = view.sides[opp];
  const priv = view.private[opp];
  const who = state.mode === "play" ? ` · <span title="${esc(view.game.agent)}">${esc(agentLabel(view))}</span>` : "";
  const hand = priv
    ? priv.hand.map((c) => `<span class="hand-card small ${opp}">${esc(cardGlyph(c))}</span>`).join("")
    : Array.from({ length: s.hand_size }, () => `<span class="hand-back ${opp}"></span>`).join("");
  const warlords = priv ? warlordList(priv.warlords, opp) : usedWarlords(s.warlords_used);
  $("#opp").className = `strip ${opp}`;
  $("#opp").innerHTML = `
    <div class="seat-name"><span class="dot ${opp}"></span>${cap(opp)} <small>${TITLES[opp]}${who}</small></div>
    <div class="hand opp-hand" title="cards in hand">${hand}<span class="count">${s.hand_size} in hand</span></div>
    <div class="pools">${pool("reserve", s.reserve)}${pool("set aside", s.set_aside)}${pool("six-marks", s.marked)}${pool("deck", s.deck_size)}</div>
    <div class="extra"><div><b>Warlords</b> ${warlords}</div><div><b>Out of the game</b> ${outList(s.out)}</div></div>`;
}

function usedWarlords(used) {
  return used.length ? used.map((w) => `<span class="warlord used" title="${esc(RULES.warlords[w] || "")}">${esc(nice(w))} <i>used</i></span>`).join("") : `<span class="none">none used</span>`;
}

function warlordList(w, seat) {
  const held = w.held.map((n) => `<span class="warlord held ${seat}" title="held, not used yet: ${esc(RULES.warlords[n] || "")}">${esc(nice(n))}</span>`);
  const used = w.used.map((n) => `<span class="warlord used" title="${esc(RULES.warlords[n] || "")}">${esc(nice(n))} <i>used</i></span>`);
  const all = held.concat(used);
  return all.length ? all.join("") : `<span class="none">none</span>`;
}

function drawMe(view) {
  const { me } = orientation(view);
  const s = view.sides[me];
  const priv = view.private[me];
  const legal = legalActions(view);
  const label = state.mode === "play" ? "You" : cap(me);
  let hand = "";
  if (priv) {
    hand = priv.hand.map((c) => {
      const action = `place:${c === "P*" ? "P" : c}`;
      const playable = legal.has(action);
      return `<button class="hand-card ${me}${playable ? " playable" : ""}" ${playable ? `data-action="${esc(action)}"` : "disabled"}
        title="${esc(c)}: ${esc(RULES.cards[c] || "")}">${esc(cardGlyph(c))}${c === "P*" ? "<sup>*</sup>" : ""}</button>`;
    }).join("");
  }
  const deck = priv ? priv.deck.map((c) => esc(c)).join(" ") : "";
  $("#me").className = `strip ${me}`;
  $("#me").innerHTML = `
    <div class="seat-name"><span class="dot ${me}"></span>${label} <small>${cap(me)}, ${TITLES[me]}</small></div>
    <div class="hand my-hand">${hand || `<span class="none">hand hidden</span>`}</div>
    <div class="pools">${pool("reserve", s.reserve)}${pool("set aside", s.set_aside)}${pool("six-marks", s.marked)}${pool("deck", s.deck_size, "deck")}</div>
    <div class="extra">
      <div><b>Warlords</b> ${priv ? warlordList(priv.warlords, me) : usedWarlords(s.warlords_used)}</div>
      <div><b>Deck</b> <span class="deck-list" title="${view.seat ? "contents, not their order" : "top first"}">${deck || "empty"}</span></div>
      <div><b>Out of the game</b> ${outList(s.out)}</div>
    </div>`;
}

// ------------------------------------------------------------------ the side panel

function drawEvent(view) {
  const box = $("#event");
  const ev = view.events;
  box.hidden = !ev.on;
  if (!ev.on) return;
  const removed = (ev.removed || []).map(nice).join(", ") || "none";
  box.innerHTML = ev.face_up
    ? `<h3>Event face up</h3><div class="event-card"><div class="event-name">${esc(nice(ev.face_up))}</div><div class="event-text">${esc(ev.face_up_text)}</div></div>
       <div class="event-more">${ev.in_deck} more in the deck · applied: ${esc(removed)}</div>`
    : `<h3>Events</h3><div class="event-more">No event face up · applied: ${esc(removed)}</div>`;
}

function describeEnd(view) {
  const w = view.winner;
  if (state.mode === "play") {
    if (w === "draw") return "A draw.";
    return w === view.seat ? "You win!" : `${cap(w)} wins. You lose.`;
  }
  return w === "draw" ? "The game is a draw." : `${cap(w)} wins.`;
}

function drawDecision(view) {
  const box = $("#decision");
  const d = view.decision;
  if (view.winner) {
    const last = view.log.length ? view.log[view.log.length - 1].text : "";
    let buttons = "";
    if (state.mode === "play") {
      buttons = `<div class="actions"><button id="replay-this" class="primary">Replay this game</button>
        <a class="button" id="download-record" href="${API}/games/${esc(view.game.id)}/record" download="suntzu-game.json">Download the record</a>
        <a class="button" href="${ROOT || "/"}">New game</a></div>`;
    }
    box.innerHTML = `<h3 class="over ${view.winner}" id="game-over">${esc(describeEnd(view))}</h3><p>${esc(last)}</p>${buttons}`;
    const again = $("#replay-this");
    if (again) again.onclick = replayThisGame;
    return;
  }
  if (!d) {
    box.innerHTML = state.mode === "play" ? `<h3>Waiting…</h3>` : `<h3>${esc(view.seat ? cap(view.seat) + "'s view" : "")}</h3><p class="muted">Nothing to decide for this seat now.</p>`;
    return;
  }
  const whose = state.mode === "play" ? "Your move" : `${cap(d.player)} to decide`;
  let drawn = "";
  const priv = view.private[d.player];
  if (d.kind === "keep" && priv) drawn = `<p>Drawn: ${priv.drawn.map((c) => `<span class="mini">${esc(cardGlyph(c))}</span>`).join("")} — keep ${d.keep_left}</p>`;
  const playing = state.mode === "play";
  const buttons = d.actions.map((a) => {
    const cls = a.action.startsWith("recall") ? "recall" : a.action === "pass" ? "pass" : a.action === "use" ? "primary" : "";
    const tip = a.help ? ` title="${esc(a.help)}"` : "";
    return playing
      ? `<button class="act ${cls}" data-action="${esc(a.action)}"${tip}>${esc(a.label)}</button>`
      : `<span class="act-shown ${cls}"${tip}>${esc(a.label)}</span>`;
  }).join("");
  box.innerHTML = `<h3>${esc(whose)}</h3><p class="prompt">${esc(d.prompt)}</p>${drawn}<div class="actions">${buttons}</div>${helpList(d)}`;
}

// The rules behind a decision's answers: every distinct line once (a placement lists each card in hand once).
function helpList(d) {
  const lines = [...new Set(d.actions.map((a) => a.help).filter(Boolean))];
  if (!lines.length) return "";
  const open = d.kind === "place" || d.kind === "keep" ? "" : " open";
  return `<details class="rules-help"${open}><summary>What these do</summary><ul>${lines.map((l) => `<li>${esc(l)}</li>`).join("")}</ul>
    <p class="muted">Full rules: <a href="${esc(RULES.url)}" target="_blank" rel="noopener">${esc(RULES.doc)}</a></p></details>`;
}

function drawLog(view) {
  const list = $("#log");
  list.innerHTML = view.log.map((e) => {
    const why = e.result && e.result.why ? `<div class="why">${esc(e.result.why)}</div>` : "";
    return `<li class="log-${e.kind}" data-n="${e.n}"><span class="log-round">R${e.round}</span> ${esc(e.text)}${why}</li>`;
  }).join("");
  list.scrollTop = list.scrollHeight;
}

function drawStatus(view) {
  const bits = [`Round ${view.round}/9`, `marker ${view.score > 0 ? "+" : ""}${view.score}`, `${view.rules.variant}${view.rules.events ? " + events" : ""}`];
  if (view.order_holder) bits.push(view.order_holder === "board order" ? "reveals in board order" : `${view.order_holder} orders the reveals`);
  else if (view.privilege) bits.push(`privilege: ${view.privilege}`);
  if (state.mode === "play") bits.unshift(`You play ${view.seat} vs ${agentLabel(view)}`);
  $("#status").textContent = bits.join(" · ");
  $("#status").title = state.mode === "play" ? view.game.agent : "";
}

// ------------------------------------------------------------------ showing steps one by one

async function showReveals(view) {
  const fresh = view.log.filter((e) => e.n > state.seenLog);
  state.seenLog = view.log.length ? view.log[view.log.length - 1].n : state.seenLog;
  const banner = $("#banner");
  for (const e of fresh) {
    if (!["reveal", "battle", "scoring", "event", "end"].includes(e.kind)) continue;
    banner.textContent = e.result && e.result.why ? `${e.text} ${e.result.why}` : e.text;
    banner.className = `show ${e.kind}`;
    const prov = e.province && document.querySelector(`[data-province="${e.province}"]`);
    if (prov) prov.classList.add("flash");
    if (SPEED) await sleep(SPEED);
    if (prov) prov.classList.remove("flash");
  }
  if (fresh.length) banner.className = "";
}

async function playFrames(frames, final) {
  setReady(false);
  for (const frame of frames) {
    render(frame);
    setReady(false);
    await showReveals(frame);
  }
  render(final);
  await showReveals(final);
  setReady(true);
}

// ------------------------------------------------------------------ the page's hooks (common.js)

async function fillForm(options) {
  const agent = $("#agent");
  agent.innerHTML = options.agents.map((a) => `<option value="${esc(a)}">${esc(a)}</option>`).join("")
    + `<option value="ppo">ppo: a trained model…</option>`;
  $("#variant").innerHTML = options.variants.map((v) => `<option>${esc(v)}</option>`).join("");
  const d = options.defaults;
  if (d.agent.startsWith(options.ppo_prefix)) {
    agent.value = "ppo";
    $("#ppo").value = d.agent.slice(options.ppo_prefix.length);
  } else {
    agent.value = d.agent;
  }
  $("#ppo-label").hidden = agent.value !== "ppo";
  agent.onchange = () => { $("#ppo-label").hidden = agent.value !== "ppo"; };
  document.querySelector(`input[name=seat][value=${d.seat}]`).checked = true;
  $("#variant").value = d.variant;
  $("#events").checked = d.events;
  if (d.seed !== undefined && d.seed !== null) $("#seed").value = d.seed;
}


$("#replay-view").onchange = (event) => gotoStep(null, event.target.value);

startPage({
  board: drawBoard,
  panels: [drawOpponent, drawMe, drawEvent, drawDecision, drawLog, drawStatus],
  before: loadRules,
  home: fillForm,
  newGame(form) {
    let agent = form.get("agent");
    if (agent === "ppo") agent = `ppo:${form.get("ppo").trim()}`;
    return { agent, seat: form.get("seat"), variant: form.get("variant"), events: form.get("events") === "on" };
  },
  played: (data) => playFrames(data.frames, data.view),
  agentLabel,
  enterGame(view) {
    state.seenLog = view.log.length ? view.log[view.log.length - 1].n : -1;
  },
  enterReplay(view) {
    $("#replay-view").value = view.replay.mode;
  },
  replayEnd: (r) => (r.winner ? ` · ${r.winner === "draw" ? "draw" : r.winner + " won"}` : ""),
  // another view keeps the moment shown: the server finds that view's step for the current frame
  replayQuery: (r, step, mode) => `view=${mode}&${mode === r.mode ? `step=${Math.max(0, Math.min(r.steps - 1, step))}` : `frame=${r.frame}`}`,
  openQuery: () => `view=${params.get("view") || "full"}&step=${params.get("step") || 0}`,
});
