// The folkcards web table: one page, a client of the JSON API in folkcards/web/app.py.
// The table is drawn from the server's view of your seat alone; how a game's table looks is
// one entry of PAGES, named by the view's "page" (the game's web view piece in the registry).
"use strict";

const SUITS = { S: "♠", C: "♣", D: "♦", H: "♥" };
const CARD_NAME = /^(10|[2-9JQKA])[SCDH]$/;
let meta = null;
let current = null; // the game in play: its latest view
let replay = null;  // { data, step, page }
let busy = false;   // a move is on its way: further clicks wait for its answer
let polling = null; // the id of the game whose agents the page is waiting for
let selection = { move: -1, cards: [], take: null }; // cards chosen for a two-click move
let showLast = false; // the last trick shown in the middle on demand
const POLL_MS = 400;
const REPLAY_PAGE = 20; // moves per page of the replay's move list

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

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// Text for innerHTML: names and specs come from clients, so they are never markup.
function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function cardElement(name, opts = {}) {
  const node = el("span");
  const suit = name.slice(-1);
  node.className = "card" + (suit === "D" || suit === "H" ? " red" : "") + (opts.small ? " small" : "");
  node.dataset.card = name;
  node.innerHTML = `<span>${name.slice(0, -1)}</span><span class="pip">${SUITS[suit]}</span>`;
  return node;
}

function cardRow(names, opts = {}) {
  const row = el("div", "cards");
  if (!names || names.length === 0) row.textContent = opts.empty === undefined ? "—" : opts.empty;
  else names.forEach((n) => row.appendChild(cardElement(n, opts)));
  return row;
}

function backs(count) {
  const row = el("div", "cards");
  for (let i = 0; i < count; i++) row.appendChild(el("span", "card small back"));
  return row;
}

function seatName(view, seat) {
  const names = view.names;
  const base = names ? names[seat] : `P${seat}`;
  return base === `P${seat}` ? base : `P${seat} ${base}`;
}

function chip(text, kind) { return el("span", "chip " + (kind || ""), text); }

// Where seat `rel` places clockwise from the bottom sits on the oval table of n seats.
function placeSeat(box, rel, n) {
  if (rel === 0) { box.style.left = "50%"; box.style.top = "84%"; return; }
  const angle = Math.PI / 2 + (2 * Math.PI * rel) / n;
  box.style.left = `${50 + 40 * Math.cos(angle)}%`;
  box.style.top = `${44 + 36 * Math.sin(angle)}%`;
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
  $("kinds").textContent = meta.agents.join(", ") +
    (meta.any_agent ? "; this server also loads ppo:PATH, module:Class and file.py:Class" : "");
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
  if (!(n >= 1)) return; // the field is being edited
  $("seat").max = n - 1;
  $("opponents").value = Array(n - 1).fill(selectedGame().opponent).join(" ");
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

// --- moves ---------------------------------------------------------------------------------

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

// Several moves of the person in a row (Paston's two discards), each from the view the last
// one answered; stops at the first that is refused or when it is no longer the person's turn.
async function playMoves(names) {
  for (const name of names) {
    const move = current.legal.find((m) => m.name === name);
    if (!move || current.waiting) return;
    const before = current.move;
    await playMove(move.id);
    if (current.move === before) return;
  }
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

function moveButton(m, className) {
  const b = el("button", className || "move", m.label || m.name);
  b.dataset.action = m.id;
  b.addEventListener("click", () => playMove(m.id));
  return b;
}

// --- the table -----------------------------------------------------------------------------

function renderTable() {
  const v = current;
  if (selection.move !== v.move) selection = { move: v.move, cards: [], take: null };
  $("status").textContent = statusLine(v);
  if (!v.hand) { // the server could not show this game: only its message
    ["seats", "middle", "my-seat", "hand", "extra", "moves", "events", "score"]
      .forEach((id) => { $(id).innerHTML = ""; });
    $("result").textContent = v.error || "";
    if (v.over) $("result").appendChild(againButton());
    return;
  }
  const page = PAGES[v.page];
  const seats = $("seats");
  seats.innerHTML = "";
  for (let s = 0; s < v.players; s++) {
    if (s === v.seat) continue;
    const box = page.seat(v, s);
    placeSeat(box, (s - v.seat + v.players) % v.players, v.players);
    seats.appendChild(box);
  }
  const mine = $("my-seat");
  mine.innerHTML = "";
  const myBox = page.seat(v, v.seat);
  myBox.classList.add("mine");
  myBox.id = "my-box";
  placeSeat(myBox, 0, v.players);
  mine.appendChild(myBox);
  $("middle").innerHTML = "";
  $("middle").appendChild(page.middle(v, true));
  $("hand").innerHTML = "";
  $("extra").innerHTML = "";
  $("moves").innerHTML = "";
  page.hand(v);
  v.legal.filter((m) => !page.cardMove(m.name))
    .forEach((m) => $("moves").appendChild(moveButton(m)));
  renderScore($("score"), v, page);
  const events = $("events");
  events.innerHTML = "";
  v.events.forEach((e) => {
    events.appendChild(el("li", e.startsWith("trick ") ? "trick-won" : "", e));
  });
  events.scrollTop = events.scrollHeight;
  $("result").innerHTML = "";
  if (v.error) $("result").textContent = v.error;
  else if (v.result) $("result").appendChild(resultTable(v));
  if (v.over) $("result").appendChild(againButton());
}

function againButton() {
  const again = el("button", "primary", "New game");
  again.id = "again";
  again.addEventListener("click", () => show("setup"));
  return again;
}

function statusLine(v) {
  if (v.over) return "The game is over.";
  if (v.legal.length) return `Your move (${v.phase}).`;
  return v.to_act === null || v.to_act === undefined ? "" : `Waiting for ${seatName(v, v.to_act)}…`;
}

// The running score, always in view: this deal's or round's standing per seat, the
// cumulative score where the game keeps one, and the sheet of the finished deals or rounds.
function renderScore(box, v, page, unitNumber) {
  box.innerHTML = "";
  const sheet = v.score_sheet;
  const unit = sheet ? sheet.unit : "deal";
  const number = unitNumber || (sheet ? sheet.rows.length + (v.over ? 0 : 1) : "");
  box.appendChild(el("h3", "", `Score — ${unit} ${number}`.trim()));
  const cols = page.scoreColumns(v);
  const table = el("table");
  table.id = box.id === "score" ? "score-table" : "replay-score-table";
  const head = el("tr");
  ["", ...cols.map((c) => c.title)].forEach((t) => head.appendChild(el("th", "", t)));
  table.appendChild(head);
  for (let s = 0; s < v.players; s++) {
    const tr = el("tr");
    tr.dataset.seat = s;
    tr.appendChild(el("td", "", s === v.seat && box.id === "score" ? "You" : seatName(v, s)));
    cols.forEach((c) => tr.appendChild(el("td", "", String(c.value(s)))));
    table.appendChild(tr);
  }
  box.appendChild(table);
  if (sheet && sheet.rows.length) {
    const wrap = el("div", "sheet");
    const t = el("table");
    t.className = "score-sheet";
    const h = el("tr");
    [unit, ...Array.from({ length: v.players }, (_, s) => `P${s}`)]
      .forEach((x) => h.appendChild(el("th", "", x)));
    t.appendChild(h);
    sheet.rows.forEach((row) => {
      const tr = el("tr");
      tr.title = row.note;
      [row.label, ...row.values.map(signed(sheet))].forEach((x) => tr.appendChild(el("td", "", x)));
      t.appendChild(tr);
    });
    const total = el("tr", "total");
    ["total", ...sheet.total.map((x) => String(x))].forEach((x) => total.appendChild(el("th", "", x)));
    t.appendChild(total);
    wrap.appendChild(t);
    box.appendChild(wrap);
    wrap.scrollTop = wrap.scrollHeight;
  }
  if (sheet) {
    box.appendChild(el("div", "hint", sheet.higher_is_better ? "Higher is better." : "Fewer is better."));
  }
}

function signed(sheet) {
  return (x) => (sheet.higher_is_better && x > 0 ? `+${x}` : String(x));
}

function resultTable(v) {
  const table = el("table");
  table.id = "result-table";
  const rows = Object.entries(v.result).map(([agent, info]) => {
    const seat = parseInt(agent.split("_")[1], 10);
    return `<tr><td>${esc(seatName(v, seat))}</td>${PAGES[v.page].resultCells(info)}</tr>`;
  });
  table.innerHTML = `<tr><th colspan="4">${esc(Object.values(v.result)[0].outcome)}</th></tr>` + rows.join("");
  return table;
}

// --- Paston and its family: tricks --------------------------------------------------------

const LEVELS = ["spades", "clubs", "diamonds", "hearts", "best spades"];

function trickRow(v, cards, winner) {
  const row = el("div", "trick");
  cards.forEach(([seat, card]) => {
    const played = el("div", "played" + (seat === winner ? " winner" : ""));
    played.dataset.seat = seat;
    played.appendChild(cardElement(card));
    played.appendChild(el("span", "", seat === v.seat && v.names && v.names[seat] === "You" ? "You" : `P${seat}`));
    row.appendChild(played);
  });
  return row;
}

// The game's totals in game mode: the score sheet's (exact, from the finished deals) once a
// deal is over, else the observation's (which holds them clipped to ±242).
function gameTotals(v) {
  if (!v.totals) return null;
  return v.score_sheet && v.score_sheet.total ? v.score_sheet.total : v.totals;
}

const TRICKS = {
  cardMove: (name) => CARD_NAME.test(name),

  seat(v, s) {
    const box = el("div", "seat" + (v.to_act === s ? " to-act" : ""));
    box.dataset.seat = s;
    const h = el("h4", "", seatName(v, s));
    if (s === v.dealer) h.appendChild(chip("D", "dealer dealer-mark"));
    if (s === v.declarer) h.appendChild(chip(v.surrendered ? "declarer, surrendered" : "declarer", "declarer"));
    if (v.whist[s]) h.appendChild(chip("whist"));
    if (v.defence_pass[s]) h.appendChild(chip("pass", "out"));
    box.appendChild(h);
    const bids = v.bids[s].map((l) => LEVELS[l]).join(", ");
    let said = bids;
    if (v.auction_passed[s]) said = said ? `${said}, then pass` : "pass";
    box.appendChild(el("div", "line bids", `bids: ${said || "—"}`));
    const tricks = el("div", "line tricks", `tricks: ${v.tricks[s]}`);
    tricks.dataset.tricks = v.tricks[s];
    box.appendChild(tricks);
    const totals = gameTotals(v);
    if (totals) box.appendChild(el("div", "line total", `total: ${totals[s]}`));
    if (v.played[s].length) box.appendChild(cardRow(v.played[s], { small: true }));
    return box;
  },

  middle(v, live) {
    const div = el("div", "middle-info");
    if (v.high_bid_name && v.declarer === null) div.appendChild(el("div", "", `Highest bid: ${v.high_bid_name} by ${seatName(v, v.high_bidder)}`));
    if (v.all_pass) div.appendChild(el("div", "", "All passed: the holder of J♠ (or 7♠) must declare"));
    if (v.declarer !== null) {
      div.appendChild(el("div", "", `Declarer ${seatName(v, v.declarer)}` +
        (v.contract_name ? `, contract ${v.contract_name}` : v.surrendered ? ", surrendered" : "")));
    }
    const last = v.last_trick;
    const label = el("div", "trick-label");
    label.id = live ? "trick-label" : "replay-trick-label";
    let row;
    if (v.trick.length && !(live && showLast && last)) {
      row = trickRow(v, v.trick, null);
      label.textContent = `Trick ${v.tricks.reduce((a, b) => a + b, 0) + 1}`;
    } else if (last) { // stays until the next trick starts, or shown on demand
      row = trickRow(v, last.cards, last.winner);
      row.classList.add("last");
      label.textContent = `Trick ${last.number} won by ${seatName(v, last.winner)}`;
    } else {
      row = el("div", "trick");
    }
    row.id = live ? "trick" : "replay-trick";
    div.appendChild(label);
    div.appendChild(row);
    if (live && last && v.trick.length) {
      const b = el("button", "", showLast ? "Current trick" : "Last trick");
      b.id = "show-last";
      b.addEventListener("click", () => { showLast = !showLast; renderTable(); });
      div.appendChild(b);
    } else if (live) {
      showLast = false;
    }
    return div;
  },

  hand(v) {
    const legal = new Map(v.legal.filter((m) => CARD_NAME.test(m.name)).map((m) => [m.name, m.id]));
    const discarding = v.phase === "discard" && legal.size > 0;
    const need = 2 - v.discards.length; // Paston's declarer puts two cards away
    v.hand.forEach((name) => {
      const card = cardElement(name);
      if (legal.has(name)) {
        card.dataset.action = legal.get(name);
        if (discarding) {
          card.classList.add("choosable");
          if (selection.cards.includes(name)) card.classList.add("selected");
          card.addEventListener("click", () => {
            const i = selection.cards.indexOf(name);
            if (i >= 0) selection.cards.splice(i, 1);
            else if (selection.cards.length < need) selection.cards.push(name);
            renderTable();
          });
        } else {
          card.classList.add("legal");
          card.addEventListener("click", () => playMove(legal.get(name)));
        }
      }
      $("hand").appendChild(card);
    });
    if (discarding) {
      const b = el("button", "confirm", `Discard ${selection.cards.join(" and ") || "…"} (${selection.cards.length}/${need})`);
      b.id = "confirm-discard";
      b.disabled = selection.cards.length !== need;
      b.addEventListener("click", () => playMoves(selection.cards.slice()));
      $("moves").appendChild(b);
      $("extra").append(`Click ${need} card${need > 1 ? "s" : ""} to discard, then confirm.`);
    }
    if (v.prikup.length) $("extra").append(" Prikup (seen by you as declarer): ", cardRow(v.prikup, { small: true }));
    if (v.discards.length) $("extra").append(" Your discards: ", cardRow(v.discards, { small: true }));
  },

  scoreColumns(v) {
    const cols = [
      { title: "bid", value: (s) => (s === v.declarer && v.contract_name ? v.contract_name : v.bids[s].length ? LEVELS[v.bids[s][v.bids[s].length - 1]] : v.auction_passed[s] ? "pass" : "—") },
      { title: "tricks", value: (s) => v.tricks[s] },
    ];
    const totals = gameTotals(v);
    if (totals) cols.push({ title: "total", value: (s) => totals[s] });
    return cols;
  },

  resultCells: (info) => `<td>${info.role}</td><td>${info.tricks} tricks</td><td>${info.deal_score > 0 ? "+" : ""}${info.deal_score}</td>`,

  replayExtra(data, frame, middle) {
    const first = frame.views[0];
    const prikup = data.prikups ? data.prikups[frame.unit] || [] : [];
    const declarerView = first.declarer === null ? null : frame.views[first.declarer];
    const line = el("div", "cards centre");
    line.append("Prikup: ", cardRow(prikup, { small: true }));
    if (declarerView && declarerView.discards.length) line.append(" Discards: ", cardRow(declarerView.discards, { small: true }));
    middle.appendChild(line);
  },
};

// --- Tri Palki: swaps with the centre ------------------------------------------------------

function swapsOf(v) { // give -> [{ take, id }] of the legal single swaps
  const swaps = new Map();
  v.legal.forEach((m) => {
    const parts = m.name.split(" ");
    if (parts.length === 3 && parts[0] === "swap") {
      if (!swaps.has(parts[1])) swaps.set(parts[1], []);
      swaps.get(parts[1]).push({ take: parts[2], id: m.id });
    }
  });
  return swaps;
}

const SWAPS = {
  cardMove: (name) => /^swap \S+ \S+$/.test(name),

  seat(v, s) {
    const box = el("div", "seat" + (v.to_act === s ? " to-act" : ""));
    box.dataset.seat = s;
    const h = el("h4", "", seatName(v, s));
    if (s === v.dealer) h.appendChild(chip("D", "dealer dealer-mark"));
    if (v.announcer === s) h.appendChild(chip("announced", "declarer"));
    if (v.eliminated[s]) h.appendChild(chip("out", "out"));
    box.appendChild(h);
    const sticks = el("div", "line sticks", `sticks: ${v.eliminated[s] ? "out" : v.sticks[s]} ${"|".repeat(v.sticks[s])}`);
    box.appendChild(sticks);
    if (s === v.seat) {
      if (v.hand.length) box.appendChild(el("div", "line", `hand value ${v.hand_value} (${v.hand_kind})`));
    } else if (!v.eliminated[s]) {
      const known = v.known[s] || [];
      const row = cardRow(known, { small: true, empty: "" });
      backs(Math.max(0, 3 - known.length)).childNodes.forEach((b) => row.appendChild(b.cloneNode()));
      box.appendChild(row);
    }
    return box;
  },

  middle(v, live) {
    const div = el("div", "middle-info");
    div.appendChild(el("div", "", "Centre"));
    const swaps = live ? swapsOf(v) : new Map();
    const takeable = new Set([].concat(...Array.from(swaps.values())).map((x) => x.take));
    const centre = el("div", "cards centre");
    centre.id = live ? "centre" : "replay-centre";
    v.centre.forEach((name) => {
      const card = cardElement(name);
      const give = selection.cards[0];
      const pair = give && (swaps.get(give) || []).find((x) => x.take === name);
      if (pair) {
        card.classList.add("legal");
        card.dataset.action = pair.id;
        card.addEventListener("click", () => playMove(pair.id));
      } else if (!give && takeable.has(name)) {
        card.classList.add("choosable");
        if (selection.take === name) card.classList.add("selected");
        card.addEventListener("click", () => {
          selection.take = selection.take === name ? null : name;
          renderTable();
        });
      }
      centre.appendChild(card);
    });
    div.appendChild(centre);
    div.appendChild(el("div", "", `Reserve: ${v.reserve_count} cards` +
      (v.announced ? ` · last round announced by ${seatName(v, v.announcer)}` : "")));
    if (v.washed.length) {
      const washed = el("div", "cards centre");
      washed.append("Washed: ", cardRow(v.washed, { small: true }));
      div.appendChild(washed);
    }
    return div;
  },

  hand(v) {
    const swaps = swapsOf(v);
    v.hand.forEach((name) => {
      const card = cardElement(name);
      const options = swaps.get(name) || [];
      const pair = selection.take && options.find((x) => x.take === selection.take);
      if (pair) { // the centre card was chosen first: this card completes the swap
        card.classList.add("legal");
        card.dataset.action = pair.id;
        card.addEventListener("click", () => playMove(pair.id));
      } else if (options.length && !selection.take) {
        card.classList.add("choosable");
        if (selection.cards[0] === name) card.classList.add("selected");
        card.addEventListener("click", () => {
          selection.cards = selection.cards[0] === name ? [] : [name];
          renderTable();
        });
      }
      $("hand").appendChild(card);
    });
    if (swaps.size) {
      $("extra").textContent = selection.cards.length
        ? `Now click the centre card to take for ${selection.cards[0]} (or ${selection.cards[0]} again to cancel).`
        : selection.take ? `Now click the card of yours to give for ${selection.take}.`
          : "To swap, click one of your cards, then a centre card.";
    }
  },

  scoreColumns(v) {
    return [
      { title: "sticks", value: (s) => (v.eliminated[s] ? `${v.sticks[s]} (out)` : v.sticks[s]) },
      { title: "hand", value: (s) => (s === v.seat && v.hand.length && v.hand_value !== undefined ? v.hand_value : "") },
    ];
  },

  resultCells: (info) => `<td>${(info.hand || []).join(" ")}</td><td>${info.hand_value} (${info.hand_kind})</td><td>${info.stick ? "stick" : ""}</td>`,

  replayExtra() {},
};

const PAGES = { tricks: TRICKS, swaps: SWAPS };

// --- replays -------------------------------------------------------------------------------

async function loadReplays() {
  const data = await api("/api/replays");
  const list = $("replay-list");
  list.innerHTML = "<h3>Your games</h3>";
  const human = el("table");
  human.id = "human-games";
  data.human.forEach((g) => {
    const tr = el("tr");
    tr.innerHTML = `<td>${esc(g.game)}</td><td>${esc(g.players.join(", "))}</td><td>${g.finished ? "finished" : "unfinished"}</td>`;
    const td = el("td");
    const b = el("button", "replay-open", "Replay");
    b.dataset.kind = "human"; b.dataset.key = g.id;
    b.addEventListener("click", () => openReplay(`/api/replays/human/${g.id}`));
    td.appendChild(b); tr.appendChild(td); human.appendChild(tr);
  });
  list.appendChild(human);
  if (data.tournament.length) {
    list.insertAdjacentHTML("beforeend", "<h3>Tournament</h3>");
    const t = el("table");
    t.id = "tournament-units";
    data.tournament.forEach((u) => {
      const tr = el("tr");
      tr.innerHTML = `<td>deal ${esc(u.deal)}</td><td>seating ${esc(u.seating)}</td><td>${esc(u.agents.join(", "))}</td><td>${esc(u.scores.join(", "))}</td>`;
      const td = el("td");
      const b = el("button", "replay-open", "Replay");
      b.dataset.kind = "tournament"; b.dataset.key = u.index;
      b.addEventListener("click", () => openReplay(`/api/replays/tournament/${u.index}`));
      td.appendChild(b); tr.appendChild(td); t.appendChild(tr);
    });
    list.appendChild(t);
  }
}

// The replay's board is drawn above the list and scrolled into view, with every hand shown.
async function openReplay(path) {
  const data = await api(path);
  replay = { data, step: 0, page: 0 };
  $("replay-view").classList.remove("hidden");
  const slider = $("replay-slider");
  slider.max = data.frames.length - 1;
  renderReplay();
  window.scrollTo(0, 0);
}

function renderReplay() {
  const { data, step } = replay;
  const frame = data.frames[step];
  const last = data.frames.length - 1;
  $("replay-step").textContent = `move ${step} of ${last}`;
  $("replay-slider").value = step;
  $("replay-first").disabled = $("replay-prev").disabled = step === 0;
  $("replay-next").disabled = $("replay-last").disabled = step === last;
  $("replay-event").textContent = frame.event || "";
  const page = PAGES[frame.views[0].page];
  const first = Object.assign({}, frame.views[0], {
    names: data.names, last_trick: frame.last_trick, score_sheet: frame.score_sheet,
  });
  const board = $("replay-board");
  board.innerHTML = "";
  board.dataset.step = step;
  for (let s = 0; s < first.players; s++) {
    const box = page.seat(first, s);
    box.querySelectorAll(".cards").forEach((row) => row.remove()); // a spectator sees hands
    box.appendChild(cardRow(frame.views[s].hand, { small: true, empty: "(no cards)" }));
    box.classList.toggle("to-act", first.to_act === s);
    box.classList.add("spectated");
    placeSeat(box, s, first.players);
    board.appendChild(box);
  }
  const middle = el("div", "middle");
  middle.id = "replay-middle";
  middle.appendChild(page.middle(first, false));
  page.replayExtra(data, frame, middle);
  board.appendChild(middle);
  renderScore($("replay-score"), Object.assign({}, first, { seat: -1 }), page, frame.unit + 1);
  renderReplayMoves();
}

function renderReplayMoves() {
  const { data, step } = replay;
  const moves = data.frames.length - 1;
  const pages = Math.max(1, Math.ceil(moves / REPLAY_PAGE));
  replay.page = Math.max(0, Math.min(pages - 1, replay.page));
  const start = replay.page * REPLAY_PAGE + 1;
  const list = $("replay-moves");
  list.innerHTML = "";
  list.start = start;
  for (let i = start; i <= Math.min(moves, start + REPLAY_PAGE - 1); i++) {
    const li = el("li", i === step ? "current" : "", data.frames[i].event || "(a move you cannot see)");
    li.dataset.step = i;
    li.addEventListener("click", () => stepReplay(i));
    list.appendChild(li);
  }
  const shown = list.querySelector("li.current");
  list.scrollTop = shown ? shown.offsetTop - list.offsetTop - list.clientHeight / 2 : 0;
  $("replay-page").textContent = `(page ${replay.page + 1} of ${pages})`;
  $("replay-page-prev").disabled = replay.page === 0;
  $("replay-page-next").disabled = replay.page >= pages - 1;
}

function stepReplay(to) {
  if (!replay) return;
  replay.step = Math.max(0, Math.min(replay.data.frames.length - 1, to));
  replay.page = Math.floor(Math.max(0, replay.step - 1) / REPLAY_PAGE);
  renderReplay();
}

function turnPage(delta) {
  if (!replay) return;
  replay.page += delta;
  renderReplayMoves();
}

// --- navigation ----------------------------------------------------------------------------

function show(which) {
  ["setup", "table", "replays"].forEach((id) => $(id).classList.toggle("hidden", id !== which));
  if (which !== "table") $("status").textContent = "";
  if (which === "replays") loadReplays();
}

function replayKeys(event) {
  if (!replay || $("replays").classList.contains("hidden") || $("replay-view").classList.contains("hidden")) return;
  if (event.target && event.target.tagName === "INPUT") return;
  const to = { ArrowLeft: replay.step - 1, ArrowRight: replay.step + 1, Home: 0, End: replay.data.frames.length - 1 }[event.key];
  if (to !== undefined) { event.preventDefault(); stepReplay(to); }
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
  $("replay-slider").addEventListener("input", (e) => stepReplay(parseInt(e.target.value, 10)));
  $("replay-page-prev").addEventListener("click", () => turnPage(-1));
  $("replay-page-next").addEventListener("click", () => turnPage(1));
  $("replay-close").addEventListener("click", () => { replay = null; $("replay-view").classList.add("hidden"); });
  document.addEventListener("keydown", replayKeys);
  document.body.dataset.ready = "1";
});
