// The folkcards web table: one page, a client of the JSON API in folkcards/web/app.py.
"use strict";

const SUITS = { S: "♠", C: "♣", D: "♦", H: "♥" };
let meta = null;
let current = null; // the game in play: its latest view
let replay = null;  // { data, step }
let busy = false;   // a move is on its way: further clicks wait for its answer
let polling = null; // the id of the game whose agents the page is waiting for
const POLL_MS = 400;

const $ = (id) => document.getElementById(id);

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const response = await fetch(path, options);
  let data = null;
  try { data = await response.json(); } catch (err) { data = {}; }
  if (!response.ok) {
    const error = new Error((data && data.error) || response.statusText);
    error.status = response.status;
    throw error;
  }
  return data;
}

function cardElement(name, opts = {}) {
  const el = document.createElement("span");
  const suit = name.slice(-1);
  el.className = "card" + (suit === "D" || suit === "H" ? " red" : "") + (opts.small ? " small" : "");
  el.dataset.card = name;
  el.innerHTML = `<span>${name.slice(0, -1)}</span><span class="pip">${SUITS[suit]}</span>`;
  return el;
}

function cardRow(names, opts = {}) {
  const row = document.createElement("div");
  row.className = "cards";
  if (!names || names.length === 0) row.textContent = opts.empty || "—";
  else names.forEach((n) => row.appendChild(cardElement(n, opts)));
  return row;
}

function backs(count) {
  const row = document.createElement("div");
  row.className = "cards";
  for (let i = 0; i < count; i++) {
    const el = document.createElement("span");
    el.className = "card small back";
    row.appendChild(el);
  }
  return row;
}

function seatName(view, seat) {
  const names = view.names || view.players_names;
  const base = names ? names[seat] : `P${seat}`;
  return `P${seat} ${base}`;
}

// --- setup ---------------------------------------------------------------------------------

function fillSetup() {
  const select = $("game");
  meta.games.forEach((g) => {
    const opt = document.createElement("option");
    opt.value = g.name; opt.textContent = g.title; select.appendChild(opt);
    if (g.unavailable) { opt.disabled = true; opt.title = g.unavailable; }
  });
  const playable = meta.games.find((g) => !g.unavailable);
  if (playable) select.value = playable.name;
  $("kinds").textContent = meta.agents.join(", ");
  select.addEventListener("change", gameChanged);
  $("num-players").addEventListener("change", playersChanged);
  gameChanged();
}

function selectedGame() { return meta.games.find((g) => g.name === $("game").value); }

function gameChanged() {
  const g = selectedGame();
  const players = $("num-players");
  players.min = g.min_players; players.max = g.max_players; players.value = g.default_players;
  players.disabled = g.min_players === g.max_players;
  const episode = $("episode");
  episode.innerHTML = "";
  g.modes.forEach((m) => {
    const opt = document.createElement("option"); opt.value = m; opt.textContent = m;
    episode.appendChild(opt);
  });
  playersChanged();
}

function playersChanged() {
  const n = parseInt($("num-players").value, 10);
  $("seat").max = n - 1;
  $("opponents").value = Array(n - 1).fill("heuristic").join(" ");
}

async function startGame(event) {
  event.preventDefault();
  $("setup-error").textContent = "";
  try {
    const view = await api("/api/games", {
      game: $("game").value,
      num_players: parseInt($("num-players").value, 10),
      seat: parseInt($("seat").value, 10),
      episode: $("episode").value,
      opponents: $("opponents").value.trim().split(/\s+/).filter((s) => s),
    });
    current = view;
    show("table");
    renderTable();
    waitForAgents();
  } catch (err) {
    $("setup-error").textContent = err.message;
  }
}

// --- the table -----------------------------------------------------------------------------

// A move names the move number of the view it was made from, so the server applies it once:
// a repeat is answered with the current view, a move from an older view with 409.
async function playMove(action) {
  if (busy) return;
  busy = true;
  $("move-error").textContent = "";
  try {
    current = await api(`/api/games/${current.id}/move`, { action, move: current.move });
    renderTable();
  } catch (err) {
    if (err.status === 409) await refresh();
    $("move-error").textContent = err.status === 409 ? `${err.message} (the table is refreshed)` : err.message;
  } finally {
    busy = false;
  }
  waitForAgents();
}

async function refresh() {
  try {
    current = await api(`/api/games/${current.id}`);
    renderTable();
  } catch (err) {
    $("move-error").textContent = err.message;
  }
}

// While the agents think, ask for the view every POLL_MS (they play in the server's workers).
async function waitForAgents() {
  if (!current || !current.waiting || polling === current.id) return;
  const id = current.id;
  polling = id;
  try {
    while (current && current.id === id && current.waiting) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (!current || current.id !== id) break;
      try {
        const view = await api(`/api/games/${id}`);
        if (current && current.id === id) { current = view; renderTable(); }
      } catch (err) { // a lost connection: keep asking; a game the server forgot: stop
        $("move-error").textContent = err.message;
        if (err.status) break;
      }
    }
  } finally {
    if (polling === id) polling = null;
  }
}

function renderTable() {
  const v = current;
  if (!v.hand) { // the server could not show this game: only its message
    $("status").textContent = statusLine(v);
    ["seats", "middle", "hand", "extra", "moves", "events"].forEach((id) => { $(id).innerHTML = ""; });
    $("result").textContent = v.error || "";
    if (v.over) $("result").appendChild(againButton());
    return;
  }
  const legalCards = new Map(v.legal.filter((m) => /^(10|[2-9JQKA])[SCDH]$/.test(m.name))
    .map((m) => [m.name, m.id]));
  $("status").textContent = statusLine(v);
  $("seats").innerHTML = "";
  for (let s = 0; s < v.players; s++) {
    if (s === v.seat) continue;
    $("seats").appendChild(v.game === "paston" ? pastonSeat(v, s) : triPalkiSeat(v, s));
  }
  $("middle").innerHTML = "";
  $("middle").appendChild(v.game === "paston" ? pastonMiddle(v) : triPalkiMiddle(v));
  const hand = $("hand");
  hand.innerHTML = "";
  v.hand.forEach((name) => {
    const el = cardElement(name);
    if (legalCards.has(name)) {
      el.classList.add("legal");
      el.addEventListener("click", () => playMove(legalCards.get(name)));
    }
    hand.appendChild(el);
  });
  $("extra").innerHTML = "";
  if (v.game === "paston" && v.prikup.length) {
    $("extra").append("Prikup (seen by you as declarer): ", cardRow(v.prikup, { small: true }));
  }
  if (v.game === "paston" && v.discards.length) {
    $("extra").append("Your discards: ", cardRow(v.discards, { small: true }));
  }
  if (v.game === "tri_palki" && v.hand.length) {
    $("extra").textContent = `Hand value ${v.hand_value} (${v.hand_kind})`;
  }
  const moves = $("moves");
  moves.innerHTML = "";
  v.legal.forEach((m) => {
    const b = document.createElement("button");
    b.className = "move";
    b.dataset.action = m.id;
    b.textContent = m.name;
    b.addEventListener("click", () => playMove(m.id));
    moves.appendChild(b);
  });
  const events = $("events");
  events.innerHTML = "";
  v.events.forEach((e) => { const li = document.createElement("li"); li.textContent = e; events.appendChild(li); });
  events.scrollTop = events.scrollHeight;
  $("result").innerHTML = "";
  if (v.error) $("result").textContent = v.error;
  else if (v.result) $("result").appendChild(resultTable(v));
  if (v.over) $("result").appendChild(againButton());
}

function againButton() {
  const again = document.createElement("button");
  again.id = "again"; again.textContent = "New game";
  again.addEventListener("click", () => show("setup"));
  return again;
}

function statusLine(v) {
  if (v.over) return "The game is over.";
  if (v.legal.length) return `Your move (${v.phase}).`;
  return v.to_act === null ? "" : `Waiting for ${seatName(v, v.to_act)}…`;
}

const LEVELS = ["spades", "clubs", "diamonds", "hearts", "best spades"];

function pastonSeat(v, s) {
  const box = document.createElement("div");
  box.className = "seat" + (v.to_act === s ? " to-act" : "");
  box.dataset.seat = s;
  const roles = [];
  if (s === v.dealer) roles.push("dealer");
  if (s === v.declarer) roles.push("declarer");
  if (v.whist[s]) roles.push("whist");
  if (v.defence_pass[s]) roles.push("pass");
  const bids = v.bids[s].map((l) => LEVELS[l]).join(", ");
  box.innerHTML = `<h4>${seatName(v, s)}</h4><div>${roles.join(", ")}</div>` +
    `<div>bids: ${bids || (v.auction_passed[s] ? "pass" : "—")}</div><div>tricks ${v.tricks[s]}</div>`;
  if (v.totals) box.innerHTML += `<div>total ${Math.round(v.totals[s])}</div>`;
  box.appendChild(document.createTextNode("played:"));
  box.appendChild(cardRow(v.played[s], { small: true }));
  return box;
}

function pastonMiddle(v) {
  const div = document.createElement("div");
  const lines = [];
  if (v.high_bid_name) lines.push(`Highest bid: ${v.high_bid_name} by ${seatName(v, v.high_bidder)}`);
  if (v.all_pass) lines.push("All passed: the holder of J♠ (or 7♠) must declare");
  if (v.declarer !== null) lines.push(`Declarer ${seatName(v, v.declarer)}` +
    (v.contract_name ? `, contract ${v.contract_name}` : v.surrendered ? ", surrendered" : ""));
  div.innerHTML = lines.map((l) => `<div>${l}</div>`).join("") + "<div>Trick:</div>";
  const trick = document.createElement("div");
  trick.className = "cards";
  trick.id = "trick";
  v.trick.forEach(([seat, card]) => {
    const wrap = document.createElement("span");
    wrap.append(`P${seat} `, cardElement(card));
    trick.appendChild(wrap);
  });
  div.appendChild(trick);
  return div;
}

function triPalkiSeat(v, s) {
  const box = document.createElement("div");
  box.className = "seat" + (v.to_act === s ? " to-act" : "");
  box.dataset.seat = s;
  const marks = [];
  if (s === v.dealer) marks.push("dealer");
  if (v.announcer === s) marks.push("announced");
  if (v.eliminated[s]) marks.push("out");
  box.innerHTML = `<h4>${seatName(v, s)}</h4><div>${marks.join(", ")}</div><div>sticks ${v.eliminated[s] ? "out" : v.sticks[s]}</div>`;
  box.appendChild(document.createTextNode("known cards:"));
  box.appendChild(cardRow(v.known[s], { small: true }));
  return box;
}

function triPalkiMiddle(v) {
  const div = document.createElement("div");
  div.innerHTML = `<div>Centre:</div>`;
  const centre = cardRow(v.centre);
  centre.id = "centre";
  div.appendChild(centre);
  div.append(`Reserve: ${v.reserve_count} cards. Your sticks: ${v.sticks[v.seat]}.` +
    (v.announced ? ` Last round announced by P${v.announcer}.` : ""));
  if (v.washed.length) { div.append(" Washed: "); div.appendChild(cardRow(v.washed, { small: true })); }
  return div;
}

function resultTable(v) {
  const table = document.createElement("table");
  table.id = "result-table";
  const rows = Object.entries(v.result).map(([agent, info]) => {
    const seat = parseInt(agent.split("_")[1], 10);
    if (v.game === "paston") {
      return `<tr><td>${seatName(v, seat)}</td><td>${info.role}</td><td>${info.tricks} tricks</td><td>${info.deal_score > 0 ? "+" : ""}${info.deal_score}</td></tr>`;
    }
    return `<tr><td>${seatName(v, seat)}</td><td>${(info.hand || []).join(" ")}</td><td>${info.hand_value} (${info.hand_kind})</td><td>${info.stick ? "stick" : ""}</td></tr>`;
  });
  table.innerHTML = `<tr><th colspan="4">${Object.values(v.result)[0].outcome}</th></tr>` + rows.join("");
  return table;
}

// --- replays -------------------------------------------------------------------------------

async function loadReplays() {
  const data = await api("/api/replays");
  const list = $("replay-list");
  list.innerHTML = "<h3>Your games</h3>";
  const human = document.createElement("table");
  human.id = "human-games";
  data.human.forEach((g) => {
    const tr = document.createElement("tr");
    tr.innerHTML = `<td>${g.game}</td><td>${g.players.join(", ")}</td><td>${g.finished ? "finished" : "unfinished"}</td>`;
    const td = document.createElement("td");
    const b = document.createElement("button");
    b.className = "replay-open"; b.textContent = "Replay"; b.dataset.kind = "human"; b.dataset.key = g.id;
    b.addEventListener("click", () => openReplay(`/api/replays/human/${g.id}`));
    td.appendChild(b); tr.appendChild(td); human.appendChild(tr);
  });
  list.appendChild(human);
  if (data.tournament.length) {
    list.insertAdjacentHTML("beforeend", "<h3>Tournament</h3>");
    const t = document.createElement("table");
    t.id = "tournament-units";
    data.tournament.forEach((u) => {
      const tr = document.createElement("tr");
      tr.innerHTML = `<td>deal ${u.deal}</td><td>seating ${u.seating}</td><td>${u.agents.join(", ")}</td><td>${u.scores.join(", ")}</td>`;
      const td = document.createElement("td");
      const b = document.createElement("button");
      b.className = "replay-open"; b.textContent = "Replay"; b.dataset.kind = "tournament"; b.dataset.key = u.index;
      b.addEventListener("click", () => openReplay(`/api/replays/tournament/${u.index}`));
      td.appendChild(b); tr.appendChild(td); t.appendChild(tr);
    });
    list.appendChild(t);
  }
}

async function openReplay(path) {
  replay = { data: await api(path), step: 0 };
  $("replay-view").classList.remove("hidden");
  renderReplay();
}

function renderReplay() {
  const { data, step } = replay;
  const frame = data.frames[step];
  $("replay-step").textContent = `move ${step} of ${data.frames.length - 1}`;
  $("replay-event").textContent = frame.event || "";
  const board = $("replay-board");
  board.innerHTML = "";
  const first = frame.views[0];
  frame.views.forEach((view, seat) => {
    const box = document.createElement("div");
    box.className = "seat" + (first.to_act === seat ? " to-act" : "");
    box.innerHTML = `<h4>P${seat} ${data.names[seat] === `P${seat}` ? "" : data.names[seat]}</h4>`;
    box.appendChild(cardRow(view.hand, { small: true, empty: "(no cards)" }));
    if (data.game === "paston") box.append(`tricks ${view.tricks[seat]}`);
    else box.append(`sticks ${view.sticks[seat]}`);
    board.appendChild(box);
  });
  const middle = document.createElement("div");
  middle.id = "replay-middle";
  if (data.game === "paston") {
    const declarerView = first.declarer === null ? null : frame.views[first.declarer];
    middle.append("Prikup: ", cardRow(data.prikups[frame.unit] || [], { small: true }));
    if (declarerView && declarerView.discards.length) middle.append("Discards: ", cardRow(declarerView.discards, { small: true }));
    middle.appendChild(pastonMiddle(Object.assign({}, first, { names: data.names })));
  } else {
    middle.appendChild(triPalkiMiddle(first));
  }
  board.appendChild(middle);
}

function stepReplay(to) {
  if (!replay) return;
  replay.step = Math.max(0, Math.min(replay.data.frames.length - 1, to));
  renderReplay();
}

// --- navigation ----------------------------------------------------------------------------

function show(which) {
  ["setup", "table", "replays"].forEach((id) => $(id).classList.toggle("hidden", id !== which));
  if (which === "replays") loadReplays();
}

window.addEventListener("DOMContentLoaded", async () => {
  meta = await api("/api/meta");
  fillSetup();
  $("new-game").addEventListener("submit", startGame);
  $("nav-play").addEventListener("click", () => show(current && !current.over ? "table" : "setup"));
  $("nav-replays").addEventListener("click", () => show("replays"));
  $("replay-first").addEventListener("click", () => stepReplay(0));
  $("replay-prev").addEventListener("click", () => stepReplay(replay.step - 1));
  $("replay-next").addEventListener("click", () => stepReplay(replay.step + 1));
  $("replay-last").addEventListener("click", () => stepReplay(replay.data.frames.length - 1));
  document.body.dataset.ready = "1";
});
