// The review page: upload a game's export, read POST /page/review's lines as they come (a header,
// one row per run, then the totals and the picture), fill the tables and show the picture.
const $ = (id) => document.getElementById(id);

function cell(row, text, cls) {
  const td = row.insertCell();
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = !message;
}

function addRun(run) {
  const tr = $("runs").tBodies[0].insertRow();
  if (run.error) {
    cell(tr, run.round || "", "");
    cell(tr, run.entity || "", "");
    cell(tr, `action ${run.action_id}: ${run.error}`, "bad").colSpan = 3;
    return;
  }
  tr.dataset.left = run.left;
  cell(tr, run.round);
  cell(tr, run.entity);
  cell(tr, run.ran ?? "?", "num");
  const best = cell(tr, run.optimum, "num");
  if (run.engine !== undefined && run.engine !== run.optimum) {
    best.textContent = `${run.optimum} *`;
    best.title = `the 18xx.games engine pays ${run.engine ?? run.engine_error} for these routes`;
  }
  cell(tr, run.left ?? "?", run.left > 0 ? "num bad" : "num ok");
}

function addSummary(summary) {
  const body = $("companies").tBodies[0];
  const companies = Object.entries(summary).sort((a, b) => b[1].left - a[1].left);
  let ran = 0, optimum = 0;
  for (const [name, c] of companies) {
    const tr = body.insertRow();
    cell(tr, name);
    cell(tr, c.ran, "num");
    cell(tr, c.optimum, "num");
    cell(tr, c.left, c.left > 0 ? "num bad" : "num ok");
    cell(tr, `${c.optimal_runs} of ${c.runs}`, "num");
    ran += c.ran; optimum += c.optimum;
  }
  const tr = $("companies").tFoot.insertRow();
  cell(tr, "total");
  cell(tr, ran, "num");
  cell(tr, optimum, "num");
  cell(tr, optimum - ran, "num");
  cell(tr, "");
}

async function upload(file) {
  showError("");
  $("runs").tBodies[0].replaceChildren();
  $("companies").tBodies[0].replaceChildren();
  $("companies").tFoot.replaceChildren();
  $("review-chart").replaceChildren();
  $("game-file").disabled = true;
  $("review-status").textContent = `Replaying ${file.name}…`;
  try {
    const res = await fetch("/page/review", { method: "POST", body: await file.text(),
      headers: { "Content-Type": "application/json" } });
    if (!res.ok) {
      const status = await res.json().catch(() => ({}));
      throw new Error(status.message || `HTTP ${res.status}`);
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "", total = 0, done = 0, title = "";
    for (;;) {
      const { value, done: end } = await reader.read();
      if (value) buffer += value;
      const lines = buffer.split("\n");
      buffer = end ? "" : lines.pop();
      for (const line of lines) {
        if (!line.trim()) continue;
        const msg = JSON.parse(line);
        if ("count" in msg) {
          total = msg.count; title = msg.title;
        } else if (msg.summary) {
          addSummary(msg.summary);
          $("review-chart").innerHTML = msg.svg;  // our own SVG, drawn by the server
        } else if (msg.error) {
          throw new Error(msg.error.message || "the review failed");
        } else {
          addRun(msg);
          done += 1;
        }
        $("review-status").textContent = `${title}: ${done} of ${total} runs reviewed`;
      }
      if (end) break;
    }
  } catch (err) {
    showError(err.message);
  } finally {
    $("game-file").disabled = false;
  }
}

async function start() {
  const res = await fetch("/page/review");
  const { review } = await res.json();
  $("unavailable").hidden = review;
  $("game-file").disabled = !review;
  $("game-file").addEventListener("change", (e) => {
    if (e.target.files.length) upload(e.target.files[0]);
  });
}

start();
