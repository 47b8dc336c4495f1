// The players' page: load a board or build one by taps, see its best routes (streamed as the
// search improves them), draw your own routes one train at a time and see at once whether they
// are legal (/v1/check).
import * as api from './api.js';
import { BoardEditor } from './editor.js';
import { BoardMap } from './map.js';

const COLOURS = ['#d7263d', '#1b98e0', '#2e933c', '#f49d37', '#7b2cbf', '#00a6a6', '#8d6a9f', '#3d5a80'];
const $ = (id) => document.getElementById(id);
const num = (v) => Number(v || 0);

const state = {
  board: null,        // the board-state document
  best: null,         // the final Solution (proto3 JSON)
  bareSvg: null,      // the board without routes
  bestSvg: null,      // the board with the best routes
  trains: [],         // train ids of the company
  active: 0,          // index of the train being drawn
  drawn: {},          // train id -> hex ids in click order
  checkSeq: 0,
  places: {},         // hex id -> printed name, to name stops
  editing: false,     // the board is being built on the page
  tapMode: 'tiles',   // while editing, a tap on a hex lays tiles ('tiles') or draws routes ('routes')
};

const map = new BoardMap($('board'), onHexClick);
const editor = new BoardEditor((doc) => load(doc, editor.places()), showError);

function showError(err) {
  const box = $('error');
  if (!err) { box.hidden = true; box.textContent = ''; return; }
  box.hidden = false;
  box.textContent = err.field && !err.message.startsWith(err.field) ? `${err.field}: ${err.message}` : err.message;
}

function text(tag, content, cls) {
  const el = document.createElement(tag);
  el.textContent = content;
  if (cls) el.className = cls;
  return el;
}

// A stop as players name it, as the CLI does: "Baltimore (I15)"; a hex without a name by its id.
function stopName(stop) {
  const hex = stop.split('.')[0];
  return state.places[hex] ? `${state.places[hex]} (${hex})` : hex;
}
const stopsText = (stops) => stops.map(stopName).join(' – ');
const chainsOf = (route) => route.hexes.map((c) => c.hexes);

// --- the best routes ----------------------------------------------------------------------

function showSolution(solution, final) {
  $('total').textContent = num(solution.revenue);
  const bound = num(solution.bound);
  $('status').textContent = solution.optimal ? 'optimal'
    : final ? `best found by the deadline; no more than ${bound} is possible`
      : `searching… (no more than ${bound})`;
  $('status').className = solution.optimal ? 'ok' : 'muted';
  // The title's rules we do not model: the total is the best under the rules applied, not a promise.
  const unsupported = solution.unsupported || [];
  $('unsupported').hidden = unsupported.length === 0;
  $('unsupported').textContent = unsupported.length
    ? `Not modelled for this game, so the engine may price these routes differently: ${unsupported.join('; ')}` : '';
  const body = $('best').querySelector('tbody');
  body.replaceChildren();
  solution.routes.forEach((route) => {
    const row = document.createElement('tr');
    row.dataset.train = route.train;
    const name = route.name && route.name !== route.train ? `${route.name} (${route.train})` : route.train;
    row.append(text('td', name), text('td', num(route.revenue), 'num revenue'),
      text('td', stopsText(route.stops), 'stops'));
    body.appendChild(row);
  });
}

async function solve() {
  if (!state.board) return;
  showError(null);
  const deadline = num($('deadline').value) || null;
  $('progress').replaceChildren();
  $('total').textContent = '…';
  $('status').textContent = 'searching…';
  $('solve').disabled = true;
  const board = state.board;
  try {
    await api.optimizeStream(board, deadline, (solution, final) => {
      if (board !== state.board) return;  // another board was loaded meanwhile
      showSolution(solution, final);
      $('progress').appendChild(text('li', `${num(solution.revenue)}${final ? ' (final)' : ''} · bound ${num(solution.bound)} · ${num(solution.elapsedMs).toFixed(1)} ms`));
      if (final) state.best = solution;
    });
    if (board !== state.board) return;
    const routes = state.best.routes.map((r) => ({  // the shape `route18xx solve --json` prints
      train: r.train, name: r.name, revenue: num(r.revenue), stops: r.stops, paid: r.paid, hexes: chainsOf(r),
    }));
    const svg = await api.render(board, routes);
    if (board !== state.board) return;
    state.bestSvg = svg;
    $('show-best').checked = !hasDrawn();
    redraw();
    updateGap();
  } catch (err) {
    showError(err);
    $('status').textContent = '';
  } finally {
    $('solve').disabled = false;
  }
}

// --- the player's routes ------------------------------------------------------------------

const hasDrawn = () => Object.values(state.drawn).some((h) => h.length);

function trainIds(board) {  // a tile-lay board names its trains; the API numbers them "4-0", "5-1"
  return (board.trains || []).map((t, i) => (typeof t === 'string' ? `${t}-${i}` : String(t.id ?? `${t.name}-${i}`)));
}

function showTrains() {
  const group = $('trains');
  group.replaceChildren();
  state.trains.forEach((train, i) => {
    const button = text('button', `${train}`, 'train-button');
    button.type = 'button';
    button.dataset.train = train;
    button.style.setProperty('--colour', COLOURS[i % COLOURS.length]);
    button.setAttribute('aria-pressed', String(i === state.active));
    button.addEventListener('click', () => { state.active = i; showTrains(); redraw(); });
    group.appendChild(button);
  });
}

// Click order -> the checker's chains: a new chain starts at every hex holding a stop.
function chains(hexes, stopHexes) {
  if (hexes.length < 2) return hexes.length ? [hexes] : [];
  const out = [];
  let chain = [hexes[0]];
  hexes.slice(1).forEach((h, i) => {
    chain.push(h);
    if (stopHexes.has(h) && i < hexes.length - 2) { out.push(chain); chain = [h]; }
  });
  out.push(chain);
  return out;
}

function onHexClick(hex) {
  if (state.editing && state.tapMode === 'tiles') {
    const phone = getComputedStyle($('hex-sheet')).position === 'fixed';
    map.mark(hex, phone);
    editor.openHex(hex);
    return;
  }
  const train = state.trains[state.active];
  if (!train) return;
  const hexes = state.drawn[train] || (state.drawn[train] = []);
  if (hexes[hexes.length - 1] === hex) hexes.pop(); else hexes.push(hex);
  if ($('show-best').checked) $('show-best').checked = false;
  redraw();
  checkRoutes();
}

// A route written as players say it, "4: Baltimore - Lancaster - Philadelphia": the checker reads
// the train's name and the places (see optimizer/rules/notation.py); its track is then drawn as if tapped.
async function writeRoute(event) {
  event.preventDefault();
  const match = $('route-text').value.match(/^\s*([^:]+?)\s*:\s*(\S.*)$/);
  if (!match) {
    showError(new Error('write a route as its train, a colon and its stops: "4: Baltimore - Lancaster - Philadelphia"'));
    return;
  }
  try {
    const verdict = await api.check(state.board, [{ train: match[1], stops: [match[2]] }]);
    const route = verdict.routes[0];
    const chains = (route.hexes || []).map((c) => c.hexes);
    if (!chains.length) throw new Error((route.errors || []).join('; ') || 'this route runs on no track');
    showError(null);
    state.drawn[route.train] = chains[0].concat(...chains.slice(1).map((c) => c.slice(1)));
    state.active = Math.max(0, state.trains.indexOf(route.train));
    $('route-text').value = '';
    $('show-best').checked = false;
    showTrains();
    redraw();
    await checkRoutes();
  } catch (err) {
    showError(err);
  }
}

function redraw() {
  const svg = $('show-best').checked ? state.bestSvg : state.bareSvg;
  if (svg && map.svgText !== svg) { map.show(svg); map.svgText = svg; map.mark(state.editing && editor.hex); }
  map.drawPlayerRoutes(state.trains.map((train, i) => ({
    train, hexes: state.drawn[train] || [], colour: COLOURS[i % COLOURS.length], active: i === state.active,
  })));
}

async function checkRoutes() {
  const seq = ++state.checkSeq;
  const stopHexes = map.stopHexes();
  // A single hex is no route yet: it is checked once the next hex is clicked.
  const routes = state.trains.filter((t) => (state.drawn[t] || []).length > 1)
    .map((train) => ({ train, hexes: chains(state.drawn[train], stopHexes).map((c) => ({ hexes: c })) }));
  const body = $('yours').querySelector('tbody');
  if (!routes.length) { body.replaceChildren(); $('your-total').textContent = '0'; updateGap(0); return; }
  try {
    const verdict = await api.check(state.board, routes);
    if (seq !== state.checkSeq) return;  // a newer click is being checked
    showError(null);
    body.replaceChildren();
    verdict.routes.forEach((r, i) => {
      const row = document.createElement('tr');
      row.dataset.train = r.train;
      row.className = r.legal ? 'legal' : 'illegal';
      // a route that reads as track is named by its stops, as players name them; else by the hexes tapped
      const where = r.stops && r.stops.length ? stopsText(r.stops) : routes[i].hexes.map((c) => c.hexes.join('–')).join(' | ');
      row.append(text('td', r.train), text('td', where, 'hexes'),
        text('td', num(r.revenue), 'num revenue'),
        text('td', r.legal ? 'legal' : (r.errors || []).join('; '), r.legal ? 'reason ok' : 'reason'));
      body.appendChild(row);
    });
    $('your-total').textContent = num(verdict.revenue);
    $('your-total').className = verdict.legal ? '' : 'bad';
    updateGap(num(verdict.revenue), verdict.legal);
  } catch (err) {
    if (seq === state.checkSeq) showError(err);
  }
}

function updateGap(yours = num($('your-total').textContent), legal = true) {
  if (!state.best || !hasDrawn()) { $('gap').textContent = ''; return; }
  const gap = num(state.best.revenue) - yours;
  const what = state.best.optimal ? 'the optimum' : 'the best found';
  $('gap').textContent = (legal ? '' : 'not legal; ') + (gap > 0 ? `${gap} below ${what}` : `equal to ${what}`);
}

// --- loading a board ----------------------------------------------------------------------

async function load(board, places = null) {
  showError(null);
  state.board = board;
  state.places = places || Object.fromEntries((board.hexes || []).filter((h) => h.location_name)
    .map((h) => [h.id, h.location_name]));
  state.best = null;
  state.bestSvg = null;
  state.drawn = {};
  state.active = 0;
  state.trains = trainIds(board);
  const company = board.corporation ? board.corporation.id : (board.company || '');
  $('board-name').textContent = `${board.game || ''} · ${company}${board.id ? ` · ${board.id}` : ''}`;
  $('yours').querySelector('tbody').replaceChildren();
  $('best').querySelector('tbody').replaceChildren();
  $('progress').replaceChildren();
  $('your-total').textContent = '0';
  $('gap').textContent = '';
  $('total').textContent = '…';
  $('status').textContent = 'loading…';
  $('status').className = 'muted';
  showTrains();
  try {
    const svg = await api.render(board, []);
    if (board !== state.board) return;  // another board was loaded meanwhile
    state.bareSvg = svg;
    $('show-best').checked = true;
    redraw();
  } catch (err) {
    showError(err);
    return;
  }
  await solve();
}

function readJson(textValue, where) {
  try {
    return JSON.parse(textValue);
  } catch (err) {
    throw new Error(`${where} is not valid JSON: ${err.message}`);
  }
}

async function init() {
  const select = $('example');
  for (const e of await api.examples()) {
    const option = text('option', `${e.game} · ${e.company}${e.name === 'default' ? ' (default)' : ''}`);
    option.value = e.name;
    select.appendChild(option);
  }
  select.addEventListener('change', async () => { setEditing(false); await load(await api.example(select.value)); });
  $('file').addEventListener('change', async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    try { await load(readJson(await file.text(), file.name)); } catch (err) { showError(err); }
  });
  $('paste-load').addEventListener('click', async () => {
    try { await load(readJson($('paste').value, 'the pasted board')); } catch (err) { showError(err); }
  });
  $('solve').addEventListener('click', solve);
  $('show-best').addEventListener('change', redraw);
  $('route-form').addEventListener('submit', writeRoute);
  $('clear').addEventListener('click', () => { state.drawn = {}; redraw(); checkRoutes(); });
  await initEditor();
  const saved = editor.saved();
  if (saved) {
    setEditing(true);
    await editor.open(saved);
  } else {
    await load(await api.example('default'));
  }
  document.body.dataset.ready = 'true';
}

// --- building a board -----------------------------------------------------------------------

function setEditing(on) {
  state.editing = on;
  document.body.classList.toggle('editing', on);
  $('editor').hidden = !on;
  $('build').setAttribute('aria-pressed', String(on));
  if (!on) editor.closeHex();
}

function setTapMode(mode) {
  state.tapMode = mode;
  for (const b of document.querySelectorAll('#tap-mode button')) b.setAttribute('aria-pressed', String(b.dataset.mode === mode));
  if (mode !== 'tiles') editor.closeHex();
}

async function initEditor() {
  await editor.fillGames();
  const guard = (f) => async (...args) => { try { await f(...args); } catch (err) { showError(err); } };
  $('build').addEventListener('click', guard(async () => {
    if (state.editing) { setEditing(false); return; }
    setEditing(true);
    if (!editor.doc) await editor.open(editor.saved() || { game: '1830' });
    else await load(editor.doc, editor.places());
  }));
  $('ed-new').addEventListener('click', guard(() => editor.startNew($('ed-game').value)));
  $('ed-company').addEventListener('change', guard((e) => editor.edit((d) => { d.company = e.target.value; })));
  $('ed-phase').addEventListener('change', guard((e) => editor.edit((d) => { d.phase = e.target.value; })));
  $('ed-undo').addEventListener('click', guard(() => editor.undo()));
  $('ed-share').addEventListener('click', guard(async () => {
    $('ed-link').hidden = false;
    $('ed-link').select();
    try { await navigator.clipboard.writeText($('ed-link').value); $('ed-share').textContent = 'Link copied'; } catch { /* shown to copy by hand */ }
  }));
  for (const b of document.querySelectorAll('#tap-mode button')) b.addEventListener('click', () => setTapMode(b.dataset.mode));
}

init().catch(showError);
