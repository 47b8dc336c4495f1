// The service's HTTP/JSON API, as any web client calls it (proto3 JSON; int64 fields are strings).

export class ApiError extends Error {
  // A google.rpc.Status body: its message, and the field its BadRequest detail names.
  constructor(status, httpStatus) {
    super(status.message || `HTTP ${httpStatus}`);
    this.httpStatus = httpStatus;
    const bad = (status.details || []).find((d) => d['@type'].endsWith('google.rpc.BadRequest'));
    this.field = bad ? bad.fieldViolations[0].field : null;
  }
}

async function send(path, body, headers = {}) {
  const response = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    let status = {};
    try { status = await response.json(); } catch { /* not JSON: keep the HTTP status */ }
    throw new ApiError(status, response.status);
  }
  return response;
}

const deadlineHeader = (ms) => (ms ? { 'X-Deadline-Ms': String(ms) } : {});

// A board-state document goes as it is; a tile-lay board (built on the page) as JSON text.
const boardField = (board) => ('hexes' in board ? { board } : { stateJson: JSON.stringify(board) });

export async function examples() {
  return (await send('/page/examples')).json();
}

export async function example(name) {
  return (await send(`/page/examples/${encodeURIComponent(name)}`)).json();
}

// Each better solution as the search finds it, then the final one: onSolution(solution, final).
export async function optimizeStream(board, deadlineMs, onSolution) {
  const response = await send('/v1/optimize:stream', boardField(board), deadlineHeader(deadlineMs));
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += value;
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = JSON.parse(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      if (line.error) throw new ApiError(line.error, 200);
      onSolution(line.solution, Boolean(line.final));
    }
    if (done) return;
  }
}

export async function check(board, routes) {
  return (await send('/v1/check', { ...boardField(board), routes })).json();
}

// The board as SVG text, with routes ({train, hexes: [[hex, ...], ...]}) drawn over its track.
export async function render(board, routes) {
  return (await send('/page/render', { board, routes })).text();
}

// The built-in games a board can be built for ([{title, layout}]), and one game's setup:
// {title, layout, phases, trains, companies, tiles, places, start}.
export async function games() {
  return (await send('/page/games')).json();
}

export async function gameSetup(title) {
  return (await send(`/page/games/${encodeURIComponent(title)}`)).json();
}

// What may go on a hex of a tile-lay board: {hex, name, tile, cities, fits: [...], others: [...]}.
export async function tileChoices(board, hex) {
  return (await send('/page/tiles', { board, hex })).json();
}
