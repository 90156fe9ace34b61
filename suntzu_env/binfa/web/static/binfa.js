// Bin'Fa's page: the hexagon drawn from the server's views; every answer is one of the game's legal action strings,
// which the server sends with the triangles or circle each names (never worked out here). The page's flow (new
// games, answers, replays) is the shared one of common.js, which this script hands its hooks.
"use strict";

Object.assign(state, { board: null, selected: null, deployCount: 1 });

// ------------------------------------------------------------------ small helpers

// A colour's dot beside its name, painted as the board paints it (an SVG fill: the page allows no inline style).
function swatch(colour) {
  return `<svg class="swatch" viewBox="0 0 12 12" aria-hidden="true"><circle cx="6" cy="6" r="5.5" fill="${esc(state.board.fill[colour] || "")}"/></svg>`;
}

function playerName(p) {
  if (p === null || p === undefined) return "";
  const mine = state.mode === "play" && state.view.game.seats.includes(p);
  return `player ${p}${mine ? " (you)" : ""}`;
}

function describeEnd(view) {
  const w = view.winner;
  if (w === "undecided") return "Undecided: nobody won.";
  if (state.mode === "play") return view.game.seats.includes(w) ? "You win!" : `Player ${w} wins. You lose.`;
  return `Player ${w} wins.`;
}

// ------------------------------------------------------------------ the legal answers and clicks

function legal() {
  return state.mode === "play" ? state.view.legal : [];
}

// Answers still open after the clicks so far: those naming the selected triangle first.
function openAnswers() {
  const all = legal();
  return state.selected === null ? all : all.filter((a) => a.places[0] === state.selected);
}

function clickTriangle(name) {
  if (state.busy || state.mode !== "play") return;
  if (state.selected !== null) {
    const pair = legal().filter((a) => a.places[0] === state.selected && a.places[1] === name);
    if (pair.length === 1) return sendAction(pair[0].action);
    if (pair.length > 1) return offer(pair, `${state.selected} → ${name}: how many units?`);
    if (name === state.selected) return select(null);
  }
  const first = legal().filter((a) => a.places[0] === name);
  if (!first.length) return select(null);
  if (first.length === 1) return sendAction(first[0].action);
  select(name);
}

function clickCircle(circle) {
  if (state.busy || state.mode !== "play") return;
  const found = legal().filter((a) => a.circle === circle);
  if (found.length === 1) sendAction(found[0].action);
}

function select(name) {
  state.selected = name;
  render(state.view);
}

function offer(actions, prompt) {
  drawDecision(state.view, actions, prompt);
}

// ------------------------------------------------------------------ the board (SVG)

function dice(x, y, values) {
  const g = svg("g", { id: "dice", "data-dice": values.join(",") });
  const pips = { 1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]], 4: [[0, 0], [2, 0], [0, 2], [2, 2]],
    5: [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]], 6: [[0, 0], [2, 0], [0, 1], [2, 1], [0, 2], [2, 2]] };
  values.forEach((v, i) => {
    const dx = x + i * 40;
    g.appendChild(svg("rect", { x: dx, y, width: 32, height: 32, rx: 6, class: "die" }));
    for (const [px, py] of pips[v] || []) g.appendChild(svg("circle", { cx: dx + 7 + px * 9, cy: y + 7 + py * 9, r: 3, class: "pip" }));
  });
  return g;
}

function stack(x, y, colours, name) {
  const g = svg("g", { class: "stack", "data-stack": name, "data-height": colours.length, "data-colours": colours.join(",") });
  const covered = colours.slice(0, -1).slice(-3);
  covered.forEach((c, i) => g.appendChild(svg("circle", { cx: x, cy: y, r: 9 + 2.2 * (covered.length - i), fill: state.board.fill[c], class: "unit" })));
  g.appendChild(svg("circle", { cx: x, cy: y, r: 9, fill: state.board.fill[colours[colours.length - 1]], class: "unit top" }));
  g.appendChild(text(x, y + 4, String(colours.length), { class: "height" }));
  return g;
}

function drawBoard(view) {
  const b = state.board;
  const root = svg("svg", { viewBox: `0 0 ${b.size} ${b.size}`, id: "hexagon" });
  const terrain = new Set(view.terrain);
  const pools = new Set(view.whirlpools);
  const firsts = new Set(openAnswers().map((a) => a.places[0]).filter(Boolean));
  const seconds = new Set(state.selected === null ? [] : openAnswers().map((a) => a.places[1]).filter(Boolean));
  const d = view.decision;
  for (const t of b.triangles) {
    let cls = `tri base-${t.base}`;
    if (terrain.has(t.name)) cls += " terrain";
    if (t.name === state.selected) cls += " selected";
    else if (seconds.has(t.name)) cls += " target";
    else if (state.selected === null && firsts.has(t.name)) cls += " can";
    if (d && d.retreat_from === t.name) cls += " retreating";
    const poly = svg("polygon", { points: t.points, class: cls, "data-tri": t.name });
    poly.appendChild(svg("title", {}, [])).textContent = t.name;
    poly.addEventListener("click", () => clickTriangle(t.name));
    root.appendChild(poly);
    if (pools.has(t.name)) {
      for (const r of [9, 6, 3]) root.appendChild(svg("circle", { cx: t.x, cy: t.y, r, class: "whirlpool" }));
    }
  }
  for (const t of b.triangles) {
    const colours = view.stacks[t.name];
    if (colours) root.appendChild(stack(t.x, t.y, colours, t.name));
  }
  if (view.level >= 3) {
    const pawns = {};
    for (const a of view.armies) if (a.pawn !== null && a.pawn !== undefined) (pawns[a.pawn] = pawns[a.pawn] || []).push(a.colour);
    const can = new Set(legal().filter((a) => a.circle !== undefined).map((a) => a.circle));
    for (const c of b.circles) {
      const g = svg("g", { class: `circle${can.has(c.circle) ? " can" : ""}`, "data-circle": c.circle });
      g.appendChild(svg("circle", { cx: c.x, cy: c.y, r: 10, fill: state.board.fill[c.colour], class: "ring" }));
      (pawns[c.circle] || []).forEach((colour, i) => g.appendChild(svg("circle", { cx: c.x + 4 * i, cy: c.y, r: 6, fill: state.board.fill[colour], class: "pawn", "data-pawn": colour })));
      g.addEventListener("click", () => clickCircle(c.circle));
      root.appendChild(g);
    }
  }
  root.appendChild(dice(8, 8, view.dice));
  if (view.transit.length) root.appendChild(text(8, b.size - 12, `in the whirlpools: ${view.transit.join(", ")}`, { class: "transit" }));
  return root;
}

// ------------------------------------------------------------------ the side panel

function drawTurn(view) {
  const box = $("#turn");
  const d = view.decision;
  const throwText = view.dice[0] ? `${view.dice[0]} and ${view.dice[1]}` : "not yet";
  if (view.winner !== null) {
    box.innerHTML = `<h3 class="over" id="game-over">${esc(describeEnd(view))}</h3><p>after ${view.turns} turns; last throw ${esc(throwText)}</p>`;
    return;
  }
  const army = d.army ? ` · army ${swatch(d.army)}${esc(d.army)}` : "";
  const moves = d.kind === "move" ? ` · ${d.moves_left} move(s) left` : "";
  box.innerHTML = `<h3 id="whose" data-player="${d.player}">${esc(cap(playerName(d.player)))} to ${esc(d.kind)}</h3>
    <p>turn ${view.turns + 1} of at most ${view.max_turns}${army}${moves}</p><p>dice: <b id="dice-text">${esc(throwText)}</b></p>`;
}

function drawDecision(view, shown = null, prompt = null) {
  const box = $("#decision");
  if (view.winner !== null) {
    box.innerHTML = state.mode === "play"
      ? `<div class="actions"><button id="replay-this" class="primary">Replay this game</button>
         <a class="button" id="download-record" href="${API}/games/${esc(view.game.id)}/record" download="binfa-game.json">Download the record</a>
         <a class="button" href="${ROOT || "/"}">New game</a></div>`
      : "";
    const again = $("#replay-this");
    if (again) again.onclick = replayThisGame;
    return;
  }
  if (state.mode === "replay") {
    const r = view.replay;
    const next = r.next;
    box.innerHTML = `<h3>${esc(view.decision.kind)}</h3><p>${view.legal.length} legal answer(s)${next ? `; played next: <code id="next-action">${esc(next)}</code>` : ""}</p>`;
    return;
  }
  if (!state.view.legal.length) {
    box.innerHTML = `<h3>Waiting…</h3>`;
    return;
  }
  const actions = shown || openAnswers();
  const hint = prompt || (state.selected !== null ? `From ${state.selected}: click where it goes, or a button.`
    : "Click a highlighted triangle or circle, or a button.");
  const clear = state.selected !== null || shown ? `<button id="clear" class="pass">Back</button>` : "";
  box.innerHTML = `<h3>Your move</h3><p class="prompt">${esc(hint)}</p>${deployChooser(view)}<div class="actions binfa-actions">${actions.map((a) =>
    `<button class="act" data-action="${esc(a.action)}">${esc(a.action)}</button>`).join("")}${clear}</div>`;
  const back = $("#clear");
  if (back) back.onclick = () => select(null);
  const count = $("#deploy-count");
  if (count) count.onchange = () => { state.deployCount = Number(count.value); };
}

// While deploying, how many units one click places on its triangle (BD6: the army's units go one by one, so the
// server plays the deployment that many times): 1 up to the units left, the last option "all".
function deployChooser(view) {
  const left = view.deploy_left || 0;
  if (view.decision.kind !== "deploy") return "";
  const note = `<p class="muted" id="hidden-note">The other players' placements stay hidden until every unit stands.</p>`;
  if (left < 2) return note;
  state.deployCount = Math.min(state.deployCount, left);
  const options = Array.from({ length: left }, (_, i) => i + 1).map((n) =>
    `<option value="${n}"${n === state.deployCount ? " selected" : ""}>${n === left ? `all ${n} left` : n}</option>`).join("");
  return `<p class="deploy-count"><label>Units per click <select id="deploy-count">${options}</select></label></p>${note}`;
}

function drawArmies(view) {
  const supply = view.level >= 3;
  const rows = view.armies.map((a) => `<tr class="${a.alive ? "" : "out"}" data-army="${a.colour}"><td>${swatch(a.colour)}${esc(a.colour)}</td>
    <td>${esc(playerName(a.player))}</td><td>${a.alive ? a.units : "out"}</td>${supply ? `<td>${a.tokens}</td><td>${a.pawn === null ? "–" : a.pawn}</td>` : ""}</tr>`).join("");
  const head = `<tr><th>army</th><th>player</th><th>units</th>${supply ? "<th>tokens</th><th>pawn</th>" : ""}</tr>`;
  $("#armies").innerHTML = `<table>${head}${rows}</table>${supply ? `<p>store: ${view.store} tokens</p>` : ""}`;
}

function drawLog(view) {
  const list = $("#log");
  list.innerHTML = view.log.map((e) => `<li data-n="${e.n}"><span class="log-round">${e.n + 1}.</span> ${esc(playerName(e.player))}: <code>${esc(e.action)}</code>${e.throw && e.throw[0] && e.action === "roll" ? ` → ${e.throw[0]}-${e.throw[1]}` : ""}</li>`).join("");
  list.scrollTop = list.scrollHeight;
}

function drawStatus(view) {
  const bits = [`level ${view.level}`, `${view.players} players`];
  if (state.mode === "play") bits.unshift(`You play ${view.game.seats.map((p) => `player ${p}`).join(", ")} vs ${view.game.agent}`);
  $("#status").textContent = bits.join(" · ");
}

// ------------------------------------------------------------------ the new-game form

function drawSeats(players, chosen) {
  const box = $("#seats");
  box.innerHTML = "<legend>Your seats</legend>" + Array.from({ length: players }, (_, p) =>
    `<label><input type="checkbox" name="seat" value="${p}"${chosen.includes(p) ? " checked" : ""}> player ${p}</label>`).join("");
}

function fillForm(options) {
  const d = options.defaults;
  $("#agent").innerHTML = options.agents.map((a) => `<option>${esc(a)}</option>`).join("");
  $("#players").innerHTML = options.players.map((p) => `<option>${p}</option>`).join("");
  $("#level").innerHTML = options.levels.map((l) => `<option>${l}</option>`).join("");
  $("#agent").value = d.agent;
  $("#players").value = String(d.players);
  $("#level").value = String(d.level);
  drawSeats(d.players, d.seats);
  $("#players").onchange = () => drawSeats(Number($("#players").value), [0]);
  if (d.seed !== null && d.seed !== undefined) $("#seed").value = d.seed;
}

// ------------------------------------------------------------------ the page's hooks (common.js)

startPage({
  board: drawBoard,
  panels: [drawTurn, drawDecision, drawArmies, drawLog, drawStatus],
  async prepare() {
    state.board = await api("GET", `${API}/board`);
  },
  home: fillForm,
  newGame(form) {
    const seats = [...document.querySelectorAll("input[name=seat]:checked")].map((el) => Number(el.value));
    return { agent: form.get("agent"), players: Number(form.get("players")), level: Number(form.get("level")), seats };
  },
  // a deployment goes `times` over with the units per click chosen (BD6)
  actionBody(action) {
    const deploy = action.startsWith("deploy:") && (state.view.deploy_left || 0) > 1;
    const times = deploy ? Math.min(state.deployCount, state.view.deploy_left) : 1;
    return times > 1 ? { action, times } : { action };
  },
  played(data) {
    state.selected = null;
    render(data.view);
  },
  enterGame() {
    state.selected = null;
  },
  enterReplay() {
    state.selected = null;
  },
  replayEnd: (r) => (r.winner === null ? "" : r.winner === "undecided" ? " · undecided" : ` · player ${r.winner} won`),
});
