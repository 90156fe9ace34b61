// The page of a game that brings no board of its own: its records replayed as its text, step by step
// (suntzu_env/play/textface.py). The page's flow is the shared one of common.js.
"use strict";

function drawText(view) {
  const picture = document.createElement("pre");
  picture.id = "picture";
  picture.className = "text-picture";
  picture.textContent = view.text;
  return picture;
}

function drawSide(view) {
  const r = view.replay;
  $("#decision").innerHTML = r.next === null ? `<h3 id="game-over">${esc(r.winner === null ? "The record ends here." : `Over: ${r.winner}`)}</h3>`
    : `<p>played next: <code id="next-action">${esc(r.next)}</code></p>`;
  const list = $("#log");
  list.innerHTML = view.log.map((e) => `<li data-n="${e.n}"><span class="log-round">${e.n + 1}.</span> ${esc(e.player ?? "")}: <code>${esc(e.action)}</code></li>`).join("");
  list.scrollTop = list.scrollHeight;
  $("#status").textContent = `step ${r.step + 1} of ${r.steps}`;
}

startPage({
  board: drawText,
  panels: [drawSide],
  replayEnd: (r) => (r.winner === null ? "" : ` · ${r.winner}`),
});
