// What both games' pages share: small helpers, the server's JSON API, messages, screens and SVG elements.
// Loaded before each page's own script (index.html: app.js; binfa.html: binfa.js).
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
