// The board editor: a board built by taps as a game goes, kept as the tile-lay document the API
// reads ({game, phase, company, trains, lays, tokens}); one lay per hex, its tile now.
// Undo, the device's storage, a link that rebuilds it, and an export of the document.
import * as api from './api.js';

const STORAGE_KEY = 'route18xx.board';
const LINK_KEY = 'board';
const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? '' : v);
  }
  node.append(...children);
  return node;
}

// The document as a link's fragment (base64url of its JSON), and back.
export function encodeBoard(doc) {
  const bytes = new TextEncoder().encode(JSON.stringify(doc));
  let text = '';
  bytes.forEach((b) => { text += String.fromCharCode(b); });
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function decodeBoard(text) {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

export class BoardEditor {
  // onChange(doc): the board changed (show it, solve it); onError(err): show a mistake.
  constructor(onChange, onError) {
    this.onChange = onChange;
    this.onError = onError;
    this.doc = null;
    this.setup = null;     // the game's setup (api.gameSetup)
    this.history = [];     // earlier documents, as JSON text, for undo
    this.lastLay = null;   // {hex, rotations, cities, at, before}: the tile just laid, to rotate it
    this.hex = null;       // the hex whose sheet is open
    this.tokenCompany = null;
    this.opening = 0;      // counts boards opened, so that only the last one opened is shown
  }

  // --- where a board comes from ---------------------------------------------------------

  // The board a link or the device holds, else null.
  saved() {
    const hash = new URLSearchParams(location.hash.slice(1)).get(LINK_KEY);
    if (hash) {
      try { return decodeBoard(hash); } catch { this.onError(new Error('the link does not hold a board')); }
    }
    try { return JSON.parse(localStorage.getItem(STORAGE_KEY) || 'null'); } catch { return null; }
  }

  async fillGames() {
    const select = $('ed-game');
    select.replaceChildren(...(await api.games()).map((g) => el('option', { value: g.title, text: g.title })));
  }

  // While a board opens, the editor is busy (aria-busy) and takes no taps.
  async open(doc) {
    const seq = ++this.opening;
    $('editor').setAttribute('aria-busy', 'true');
    try {
      const setup = await api.gameSetup(doc.game);
      if (seq !== this.opening) return;  // another board was opened meanwhile: it wins
      this.setup = setup;
      this.doc = { ...setup.start, ...doc, game: setup.title };  // {game} alone: the start map
      this.history = [];
      this.lastLay = null;
      this.tokenCompany = this.doc.company;
      this.closeHex();
      this.showControls();
      await this.changed();
    } finally {
      if (seq === this.opening) $('editor').setAttribute('aria-busy', 'false');
    }
  }

  startNew(title) {
    return this.open({ game: title });
  }

  places() {
    return this.setup ? this.setup.places : {};
  }

  // --- every change goes through here ---------------------------------------------------

  edit(change) {
    this.history.push(JSON.stringify(this.doc));
    change(this.doc);
    return this.changed();
  }

  async undo() {
    if (!this.history.length) return;
    this.doc = JSON.parse(this.history.pop());
    this.lastLay = null;
    await this.changed();
  }

  async changed() {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(this.doc));
    const link = `${location.origin}${location.pathname}#${LINK_KEY}=${encodeBoard(this.doc)}`;
    $('ed-link').value = link;
    $('ed-export').href = `data:application/json;charset=utf-8,${encodeURIComponent(JSON.stringify(this.doc, null, 1))}`;
    $('ed-export').download = `${this.doc.game.replace(/\W+/g, '')}-${this.doc.company}-board.json`.replace(/&/g, '');
    $('ed-undo').disabled = !this.history.length;
    this.showTrains();
    this.showSelected();
    const trains = this.doc.trains.map((t) => (typeof t === 'string' ? t : t.name)).join(', ') || 'none';
    $('ed-summary').textContent = `${this.doc.game} · ${this.doc.company} · phase ${this.doc.phase} · trains ${trains}`;
    await this.onChange(this.doc);
    if (this.hex) await this.openHex(this.hex);
  }

  // --- company, phase, trains -----------------------------------------------------------

  showControls() {
    const { setup } = this;
    $('ed-game').value = setup.title;
    $('ed-company').replaceChildren(...setup.companies.map((c) => el('option', { value: c.id, text: c.id })));
    $('ed-phase').replaceChildren(...setup.phases.map((p) => el('option', { value: p.name, text: p.name })));
    const add = $('ed-add-train');
    add.replaceChildren(...setup.trains.map((t) => el('button', {
      type: 'button', class: 'add-train', 'data-train': t.name, text: `+ ${t.name}`,
      onclick: () => this.edit((d) => { d.trains.push(t.name); }),
    })));
  }

  showSelected() {
    $('ed-company').value = this.doc.company;
    $('ed-phase').value = String(this.doc.phase);
  }

  showTrains() {
    $('ed-trains').replaceChildren(...this.doc.trains.map((t, i) => el('button', {
      type: 'button', class: 'chip train-chip', 'data-index': i, title: `remove the ${t} train`,
      text: `${typeof t === 'string' ? t : t.name} ×`,
      onclick: () => this.edit((d) => { d.trains.splice(i, 1); }),
    })));
  }

  // --- a hex: its tiles and tokens ------------------------------------------------------

  closeHex() {
    this.hex = null;
    $('hex-sheet').hidden = true;
    for (const p of document.querySelectorAll('#board polygon.hex.selected')) p.classList.remove('selected');
  }

  async openHex(hex) {
    this.hex = hex;
    let choices;
    try {
      choices = await api.tileChoices(this.doc, hex);
    } catch (err) {
      this.onError(err);
      return;
    }
    if (this.hex !== hex) return;  // another hex was tapped meanwhile
    this.showSheet(choices);
  }

  showSheet(c) {
    const sheet = $('hex-sheet');
    const tokens = this.doc.tokens.filter((t) => t.hex === c.hex);
    const rotate = this.lastLay && this.lastLay.hex === c.hex && this.lastLay.rotations.length > 1;
    const title = el('h3', {}, `${c.hex}${c.name ? ` · ${c.name}` : ''}`,
      el('span', { class: 'muted', text: c.laid ? ` · tile ${c.tile}, rotation ${c.rotation}` : ' · as printed' }));
    const head = el('div', { class: 'sheet-head' }, title,
      rotate ? el('button', { type: 'button', id: 'rotate', class: 'big', text: '⟳ Rotate', onclick: () => this.rotate() }) : '',
      el('button', { type: 'button', class: 'big', id: 'sheet-close', 'aria-label': 'close', text: '✕', onclick: () => this.closeHex() }));
    const parts = [head];
    if (c.cities.length) parts.push(this.tokenRow(c, tokens));
    const fits = c.fits.map((f) => el('button', {
      type: 'button', class: `tile-choice${f.phase ? '' : ' later'}`, 'data-tile': f.tile, disabled: f.left === 0,
      onclick: () => this.lay(c, f.tile, f.rotations, f.cities),
    }, svgNode(f.svg), el('span', { class: 'caption', text: `${f.tile} · ${left(f.left)}${f.phase ? '' : ' · later phase'}` })));
    parts.push(el('p', { class: 'muted', text: c.fits.length ? 'Tiles that fit (tap to lay):' : 'No tile of the supply upgrades this hex.' }),
      el('div', { class: 'tile-grid' }, ...fits));
    const others = c.others.map((f) => el('button', {
      type: 'button', class: 'chip tile-other', 'data-tile': f.tile, disabled: f.left === 0,
      onclick: () => this.lay(c, f.tile, [0, 1, 2, 3, 4, 5], null),
    }, el('span', { class: 'swatch', style: `background:var(--tile-${f.color}, #ccc)` }), `${f.tile} · ${left(f.left)}`));
    parts.push(el('details', { class: 'others' }, el('summary', { text: `Other tiles (${others.length}): a game's own rule or a private` }),
      el('div', { class: 'chips' }, ...others)));
    sheet.replaceChildren(...parts);
    sheet.dataset.hex = c.hex;
    sheet.hidden = false;
  }

  tokenRow(c, tokens) {
    const companies = this.setup.companies;
    const pick = el('select', { id: 'token-company', 'aria-label': 'company of the token',
      onchange: (e) => { this.tokenCompany = e.target.value; } },
    ...companies.map((co) => el('option', { value: co.id, text: co.id })));
    pick.value = this.tokenCompany || this.doc.company;
    const rows = c.cities.map((city) => {
      const here = tokens.filter((t) => (t.city || 0) === city.index);
      const chips = here.map((t) => el('button', {
        type: 'button', class: 'chip token-chip', 'data-company': t.company, title: `remove ${t.company}'s token`,
        style: colourStyle(companies.find((co) => co.id === t.company)), text: `${t.company} ×`,
        onclick: () => this.edit((d) => { d.tokens.splice(d.tokens.indexOf(findToken(d, t)), 1); }),
      }));
      const add = el('button', {
        type: 'button', class: 'big add-token', 'data-city': city.index, disabled: here.length >= city.slots,
        text: '+ token', onclick: () => this.edit((d) => { d.tokens.push({ hex: c.hex, city: city.index, company: pick.value }); }),
      });
      return el('div', { class: 'city-row', 'data-city': city.index },
        el('span', { text: c.cities.length > 1 ? `city ${city.index}` : 'city' }), ...chips, add);
    });
    return el('div', { class: 'tokens' }, el('label', {}, 'Token of ', pick), ...rows);
  }

  lay(c, tile, rotations, cities) {
    const before = this.doc.tokens.filter((t) => t.hex === c.hex);
    this.lastLay = { hex: c.hex, rotations, cities, at: 0, before };
    return this.edit((d) => placeTile(d, c.hex, tile, rotations[0], before, cities && cities[String(rotations[0])]));
  }

  rotate() {
    const last = this.lastLay;
    last.at = (last.at + 1) % last.rotations.length;
    const rotation = last.rotations[last.at];
    const tile = this.doc.lays.find((l) => l.hex === last.hex).tile;
    return this.edit((d) => placeTile(d, last.hex, tile, rotation, last.before, last.cities && last.cities[String(rotation)]));
  }
}

// The hex's lay replaced by this tile; its tokens moved to the cities they go to on it.
function placeTile(doc, hex, tile, rotation, tokensBefore, cityMap) {
  doc.lays = doc.lays.filter((l) => l.hex !== hex);
  doc.lays.push({ hex, tile, rotation });
  doc.tokens = doc.tokens.filter((t) => t.hex !== hex);
  for (const t of tokensBefore) {
    const city = cityMap ? cityMap[String(t.city || 0)] : (t.city || 0);
    if (city !== undefined && city !== null) doc.tokens.push({ ...t, city });
  }
}

function findToken(doc, token) {
  return doc.tokens.find((t) => t.hex === token.hex && (t.city || 0) === (token.city || 0) && t.company === token.company);
}

function left(n) {
  return n === null || n === undefined ? 'unlimited' : `${n} left`;
}

function colourStyle(company) {
  if (!company || !company.color) return '';
  return `background:${company.color};color:${company.text_color || '#fff'};border-color:${company.color}`;
}

function svgNode(text) {
  const holder = document.createElement('span');
  holder.className = 'tile-picture';
  holder.innerHTML = text || '';
  return holder;
}
