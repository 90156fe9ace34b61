// An evaluation's results folder (GET /results?path=<folder>): its pairings, ratings, win rates and games, any
// game's, each game linked to the page that replays it (the server names it: `viewer`). Loaded on every page.
"use strict";

const RESULTS_PAGE = 200; // rows shown at a time
const results = { path: "", data: null, shown: RESULTS_PAGE };

async function showResults(path) {
  showScreen("results");
  $("#results-title").textContent = path;
  try {
    const data = await api("GET", `/api/results?path=${encodeURIComponent(path)}`);
    results.path = path;
    results.data = data;
    const game = data.game_name === data.default_game ? "" : `${data.game_title}, `;
    $("#results-about").textContent = `${data.games.length} games of ${game}${data.about}. `
      + (data.records ? "Records saved with the evaluation." : "Its games cannot be replayed: it holds no records.");
    $("#results-table thead tr").innerHTML = ["#", "pairing", "seed", ...data.seats, "winner", "marker", "decisions", ""]
      .map((h) => `<th>${esc(h)}</th>`).join("");
    $("#results-winner").innerHTML = ["", ...data.seats, "draw"]
      .map((w) => `<option value="${esc(w)}">${w ? esc(w) : "any"}</option>`).join("");
    drawResultsSummary(data);
    drawHeatmap(data);
    const pairings = [...new Set(data.games.map((g) => g.pairing))];
    $("#results-filter").innerHTML = `<option value="">every pairing (${data.games.length} games)</option>`
      + pairings.map((p) => `<option value="${esc(p)}">${esc(pairingLabel(p))}</option>`).join("");
    $("#results-filter").onchange = () => { results.shown = RESULTS_PAGE; drawResultRows(); };
    $("#results-winner").onchange = () => { results.shown = RESULTS_PAGE; drawResultRows(); };
    $("#results-more").onclick = () => { results.shown += RESULTS_PAGE * 5; drawResultRows(); };
    drawResultRows();
    setReady(true);
  } catch (error) {
    showMessage(error.message);
  }
}

const label = (name) => (results.data && results.data.labels[name]) || name;
const pct = (x) => `${(100 * x).toFixed(1)}%`;
function pairingLabel(p) {
  const [a, b] = p.split(" vs ");
  return b === undefined ? p : `${label(a)} vs ${label(b)}`;
}

// The headline rate of each pairing (the server's `rate`, `b_rate`): the win rate with draws counted half, or
// the games won outright where a game without a winner is undecided (Bin'Fa).
const outright = (data) => data.headline === "outright_win_rate";

function drawResultsSummary(data) {
  const undecided = data.no_winner === "undecided";
  const rows = data.pairings.map((p) => `<tr><td title="${esc(p.a)}">${esc(label(p.a))}</td><td title="${esc(p.b)}">${esc(label(p.b))}</td>
    <td>${p.games}</td><td class="wdl">${p.wins}–${p.draws}–${p.losses}</td><td class="headline">${pct(p.rate)}</td><td>[${pct(p.rate_low)}, ${pct(p.rate_high)}]</td></tr>`).join("");
  const ranked = Object.entries(data.ratings).sort((x, y) => y[1] - x[1]);
  const ratings = ranked.length
    ? `<p class="ratings"><b>Ratings</b> (Bradley–Terry, Elo scale, ${esc(data.rating_anchor)}): ${ranked.map(([n, v]) =>
      `<span title="${esc(n)}">${esc(label(n))} ${v >= 0 ? "+" : ""}${v.toFixed(0)}</span>`).join(", ")}</p>` : "";
  const counts = undecided ? "won–undecided–lost" : "W–D–L";
  const rate = outright(data) ? "won outright" : "win rate (draws ½)";
  $("#results-summary").innerHTML = rows ? `<table class="summary"><thead><tr><th>agent</th><th>against</th><th>games</th>
    <th>${counts}</th><th>${rate}</th><th>95% interval</th></tr></thead><tbody>${rows}</tbody></table>${ratings}` : ratings;
}

// Each agent's headline rate against each other one, as a grid coloured from red (0) to blue (1); b's against a is
// the server's `b_rate` (the outright rate's is b's wins, a's losses: not 1 - a's rate).
function drawHeatmap(data) {
  const names = Object.keys(data.labels);
  const cell = {};
  for (const p of data.pairings) {
    cell[`${p.a}|${p.b}`] = p;
    cell[`${p.b}|${p.a}`] = { ...p, rate: p.b_rate, rate_low: p.b_rate_low, rate_high: p.b_rate_high };
  }
  const what = outright(data) ? "won outright" : "win rate";
  $("#heatmap-note").textContent = outright(data)
    ? "The row agent's games won outright against the column agent (an undecided game is a win of neither); hover a cell for its 95% interval."
    : "The row agent's win rate against the column agent (draws count half); hover a cell for its 95% interval.";
  const table = document.createElement("table");
  table.className = "heatmap";
  const head = table.createTHead().insertRow();
  head.appendChild(document.createElement("th")).textContent = "agent \\ opponent";
  for (const n of names) {
    const th = head.appendChild(document.createElement("th"));
    th.textContent = label(n);
    th.title = n;
  }
  const body = table.createTBody();
  for (const a of names) {
    const row = body.insertRow();
    const th = row.appendChild(document.createElement("th"));
    th.textContent = label(a);
    th.title = a;
    for (const b of names) {
      const td = row.insertCell();
      const p = cell[`${a}|${b}`];
      if (!p) { td.className = "none"; continue; }
      td.textContent = pct(p.rate);
      td.title = `${a} against ${b}: ${what} ${pct(p.rate)} [${pct(p.rate_low)}, ${pct(p.rate_high)}] over ${p.games} games`;
      const w = p.rate; // 0 red .. 0.5 white .. 1 blue
      const mix = (x, y, t) => Math.round(x + (y - x) * t);
      const [r, g, bl] = w < 0.5 ? [mix(214, 255, w * 2), mix(96, 255, w * 2), mix(77, 255, w * 2)]
        : [mix(255, 67, (w - 0.5) * 2), mix(255, 147, (w - 0.5) * 2), mix(255, 195, (w - 0.5) * 2)];
      td.style.backgroundColor = `rgb(${r}, ${g}, ${bl})`;
      td.dataset.rate = w.toFixed(4);
    }
  }
  $("#results-heatmap").replaceChildren(table);
}

function drawResultRows() {
  const data = results.data;
  const pairing = $("#results-filter").value;
  const winner = $("#results-winner").value;
  const rows = data.games.filter((g) => (!pairing || g.pairing === pairing) && (!winner || g.winner === winner));
  const shown = rows.slice(0, results.shown);
  $("#results-count").textContent = rows.length > shown.length ? `${shown.length} of ${rows.length} games shown` : `${rows.length} games`;
  $("#results-more").hidden = rows.length <= shown.length;
  const path = results.path;
  const viewer = data.viewer; // each game's own page, as the server names it
  $("#results-table tbody").innerHTML = shown.map((g) => `<tr>
      <td>${g.game}</td><td>${esc(pairingLabel(g.pairing))}</td><td>${g.seed}</td>
      ${g.players.map((agent, k) => `<td class="${esc(data.seats[k])}" title="${esc(agent)}">${esc(label(agent))}</td>`).join("")}
      <td class="${esc(g.winner)}">${esc(g.winner)}</td><td>${g.score > 0 ? "+" : ""}${g.score}</td><td>${g.decisions}</td>
      <td><a href="${viewer}?results=${encodeURIComponent(path)}&game=${g.game}">replay</a></td></tr>`).join("");
}

const resultsForm = $("#results-form");
if (resultsForm) resultsForm.addEventListener("submit", (event) => {
  event.preventDefault();
  location.href = `/results?path=${encodeURIComponent($("#results-path").value.trim())}`;
});
