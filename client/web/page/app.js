// The web page: play (drive an avatar), spectate (watch, reporting the camera box) and
// replay (re-simulate a .arbrec in WebAssembly, hash-checked every tick) with one canvas
// renderer (render.js). Live modes use the client package (arbiter.js: connect,
// setControls, sample, stats); replay uses replay.js. The keys are the native viewer's
// (docs/VIEWER.md). window.arbiter exposes what the page knows, for people and tests.
import { Camera, PALETTE, renderFrame, drawTextBox, statsLines } from "./render.js";

const $ = (id) => document.getElementById(id);
const canvas = $("view");
const ctx = canvas.getContext("2d", { alpha: false });
const camera = new Camera(canvas.width, canvas.height);
const params = new URLSearchParams(location.search);

const debug = { grid: false, aabbs: false, velocities: false, corrections: false };
let showStats = params.get("stats") === "1";
let mode = null;
let frame = null;
let lastFrameMs = performance.now();

// ---- what the page exposes -----------------------------------------------------------

// Counts of the library's predicted-vs-server checks newer than tick `after`.
function newPredictionCounts(after) {
  return { checks: 0, agree: 0, disagree: 0, touching: 0, free: 0, freeAgree: 0, movingFree: 0, lastTick: after, last: null, lastDisagreement: null, freeDisagreements: [] };
}

const state = {
  mode: null,
  // live
  connection: "disconnected",
  joined: false,
  clientId: 0,
  ownEntity: 0,
  snapshotsReceived: 0,
  snapshotsExpected: 0,
  avatar: null,  // the own avatar's drawn (predicted) position
  avatarSeen: false,
  events: [],
  stats: null,
  // predicted vs server own avatar at the same tick (the library's checks, quantized as
  // on the wire: agree = the same integers); "free": the avatar touched only the level
  prediction: newPredictionCounts(0),
  lastError: "",
  // replay
  replay: null,
  // both
  frames: 0,
  bodies: 0,
};
window.arbiter = {
  state,
  get frame() {
    return frame;
  },
  camera,
  setMode,
  connect: startLive,
  disconnect: stopLive,
  openReplayBytes,
  replayControl: (what, arg) => replayControl(what, arg),
  /** count prediction checks afresh from now on */
  resetPrediction: () => (state.prediction = newPredictionCounts(state.prediction.lastTick)),
};

function setStatus(text, cls = "") {
  const el = $("status");
  el.textContent = text;
  el.className = cls;
}

// ---- modes ---------------------------------------------------------------------------

function setMode(m) {
  if (m === mode) return;
  if (mode === "play" || mode === "spectate") stopLive();
  mode = state.mode = m;
  for (const b of document.querySelectorAll("nav button")) b.setAttribute("aria-pressed", String(b.dataset.mode === m));
  $("live-controls").hidden = m === "replay";
  $("replay-controls").hidden = m !== "replay";
  $("avatar-kind").disabled = m === "spectate";
  $("player-name").disabled = m === "spectate";
  frame = null;
  camera.reset();
  setStatus(m === "replay" ? "open a .arbrec replay log" : "not connected");
  const q = new URLSearchParams(location.search);
  q.set("mode", m);
  history.replaceState(null, "", `?${q}`);
}

for (const b of document.querySelectorAll("nav button")) b.addEventListener("click", () => setMode(b.dataset.mode));

// ---- keyboard and mouse --------------------------------------------------------------

const held = new Set();
function isTyping(e) {
  return e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement;
}
window.addEventListener("keydown", (e) => {
  if (isTyping(e)) return;
  held.add(e.code);
  const handled = onKey(e);
  if (handled || e.code.startsWith("Arrow") || e.code === "Space" || /^F\d$/.test(e.code)) e.preventDefault();
});
window.addEventListener("keyup", (e) => held.delete(e.code));
window.addEventListener("blur", () => held.clear());

function onKey(e) {
  switch (e.code) {
    case "F2": showStats = !showStats; return true;
    case "F3": debug.aabbs = !debug.aabbs; return true;
    case "F5": debug.velocities = !debug.velocities; return true;
    case "F7": debug.corrections = !debug.corrections; return true;
    case "KeyG": debug.grid = !debug.grid; return true;
    case "KeyC": camera.free = !camera.free; return true;
    case "KeyF": camera.reset(); return true;
    case "Equal": case "NumpadAdd": camera.zoomAt(1.25); return true;
    case "Minus": case "NumpadSubtract": camera.zoomAt(0.8); return true;
  }
  if (mode !== "replay" || !replay) return false;
  const rate = replay.r.tickRate;
  switch (e.code) {
    case "Space": case "KeyP": replayControl("toggle"); return true;
    case "Period": replayControl("step"); return true;
    case "Comma": replayControl("back"); return true;
    case "BracketLeft": replayControl("speed", replay.speed / 2); return true;
    case "BracketRight": replayControl("speed", replay.speed * 2); return true;
    case "ArrowLeft": replayControl("seek", replay.r.tick - 5 * rate); return true;
    case "ArrowRight": replayControl("seek", replay.r.tick + 5 * rate); return true;
    case "PageUp": replayControl("seek", replay.r.tick - 60 * rate); return true;
    case "PageDown": replayControl("seek", replay.r.tick + 60 * rate); return true;
    case "Home": replayControl("seek", 0); return true;
    case "End": replayControl("seek", replay.r.ticks); return true;
  }
  return false;
}

// Keys to controls, as the native viewer maps them (client/view/view_input.c): the
// "default" avatar fills both the force and the vehicle controls.
function controlsFromKeys(kind, aim) {
  const k = (...codes) => codes.some((c) => held.has(c));
  const up = k("KeyW", "ArrowUp"), down = k("KeyS", "ArrowDown");
  const left = k("KeyA", "ArrowLeft"), right = k("KeyD", "ArrowRight"), space = k("Space");
  const c = { aim };
  if (kind !== "force") {
    c.throttle = up ? 1 : 0;
    c.steer = (left ? 1 : 0) - (right ? 1 : 0);
    c.brake = space || down ? 1 : 0;
    if (kind === "vehicle") return c;
  }
  c.moveX = (right ? 1 : 0) - (left ? 1 : 0);
  c.moveY = (up ? 1 : 0) - (down ? 1 : 0);
  c.jump = space;
  return c;
}

let mouse = null;
let drag = null;
function canvasPoint(e) {
  const r = canvas.getBoundingClientRect();
  return { x: ((e.clientX - r.left) * canvas.width) / r.width, y: ((e.clientY - r.top) * canvas.height) / r.height };
}
canvas.addEventListener("mousemove", (e) => {
  mouse = canvasPoint(e);
  if (drag && camera.free) {
    camera.pan(mouse.x - drag.x, mouse.y - drag.y);
    drag = mouse;
  }
});
canvas.addEventListener("mousedown", (e) => {
  drag = canvasPoint(e);
  canvas.focus();
});
window.addEventListener("mouseup", () => (drag = null));
canvas.addEventListener("wheel", (e) => {
  const p = canvasPoint(e);
  camera.zoomAt(e.deltaY < 0 ? 1.15 : 1 / 1.15, p.x, p.y);
  e.preventDefault();
}, { passive: false });

function aimFromMouse() {
  if (!mouse || !state.avatar) return 0;
  const w = camera.toWorld(mouse.x, mouse.y);
  return Math.atan2(w.y - state.avatar.y, w.x - state.avatar.x);
}

// ---- live: play and spectate ---------------------------------------------------------

let arbiterLib = null;
let client = null;
let avatarKind = "default";
let lastViewBox = null;

async function defaultServerUrl() {
  const given = params.get("ws");
  if (given) return given;
  try {
    const res = await fetch("config.json", { cache: "no-store" });
    if (res.ok) {
      const cfg = await res.json();
      if (cfg.wsUrl) return cfg.wsUrl;
      if (cfg.wsPort) return `ws://${location.hostname}:${cfg.wsPort}${cfg.wsPath || "/"}`;
    }
  } catch (e) {
    // not served by arbiter-server: the user types the address
  }
  return "";
}

async function startLive() {
  stopLive();
  const url = $("server-url").value.trim();
  if (!url) {
    setStatus("enter the server's WebSocket address (ws://host:port/)", "error");
    return;
  }
  try {
    if (!arbiterLib) {
      const mod = await import("./lib/arbiter.js");
      arbiterLib = await (mod.loadArbiter || mod.default)();
    }
  } catch (e) {
    setStatus(`the client library did not load: ${e.message}`, "error");
    state.lastError = String(e.message || e);
    return;
  }
  const spectate = mode === "spectate";
  avatarKind = spectate ? "default" : $("avatar-kind").value;
  client = arbiterLib.connect(url, { name: $("player-name").value || "browser", avatar: avatarKind, spectate });
  Object.assign(state, { joined: false, clientId: 0, ownEntity: 0, avatar: null, avatarSeen: false, events: [] });
  state.prediction = newPredictionCounts(0);
  lastViewBox = null;
  camera.reset();
  $("connect").disabled = true;
  $("disconnect").disabled = false;
  setStatus(`connecting to ${url} ...`);
}

async function stopLive() {
  const c = client;
  client = null;
  $("connect").disabled = false;
  $("disconnect").disabled = true;
  state.joined = false;
  state.connection = "disconnected";
  if (c) {
    const res = await c.close();
    setStatus(`left (close ${res.code})`);
  }
}

$("connect").addEventListener("click", startLive);
$("disconnect").addEventListener("click", stopLive);

function liveTick(now) {
  client.update(now);
  for (const ev of client.events()) {
    state.events.push({ type: ev.type, clientId: ev.clientId, entityId: ev.entityId, text: ev.text, code: ev.code });
    if (state.events.length > 200) state.events.shift();
    if (ev.type === "connected") {
      const s = client.session();
      state.joined = true;
      state.clientId = s.clientId;
      state.ownEntity = s.avatarEntity;
      setStatus(`connected: client ${s.clientId}, scene "${s.sceneName}"${mode === "spectate" ? " (spectating)" : ""}`, "ok");
    } else if (ev.type === "rejected") {
      setStatus(`rejected: ${ev.text}`, "error");
    } else if (ev.type === "disconnected") {
      state.joined = false;
      setStatus(`disconnected: ${ev.text}${ev.willReconnect ? " (reconnecting)" : ""}`, "error");
    }
  }
  state.connection = client.state();
  if (mode === "play") client.setControls(controlsFromKeys(avatarKind, aimFromMouse()));
  frame = client.sample(now);
  state.ownEntity = frame.ownEntity || state.ownEntity;
  const own = frame.bodies.find((b) => b.own);
  state.avatar = own ? { x: own.position.x, y: own.position.y, angle: own.angle } : null;
  if (own) state.avatarSeen = true;
  const st = client.stats();
  state.stats = st;
  state.snapshotsReceived = st.snapshotsReceived;
  state.snapshotsExpected = st.snapshotsExpected;
  const p = state.prediction;
  for (const chk of client.predictionChecks()) {
    if (chk.tick <= p.lastTick) continue;
    p.lastTick = chk.tick;
    p.checks++;
    p.last = chk;
    if (chk.touching) p.touching++;
    else {
      p.free++;
      if (chk.server.vx !== 0 || chk.server.vy !== 0) p.movingFree++;
      if (chk.agree) p.freeAgree++;
      else if (p.freeDisagreements.length < 8) p.freeDisagreements.push(chk);
    }
    if (chk.agree) p.agree++;
    else {
      p.disagree++;
      p.lastDisagreement = chk;
    }
  }
  state.lastError = typeof client.lastError === "function" ? client.lastError() : "";
}

// Live, the page reports the rectangle the canvas shows as its camera box, with a quarter
// of its size added on each side, again only when the view leaves it or zooms in to less
// than half of it (as arbiter-view does): with the server's --view-radius a player gets
// what it pans or zooms to as well, and a spectator gets exactly its box.
function reportViewBox() {
  if (!client || !state.joined) return;
  const { min, max } = camera.viewBox();
  const w = max.x - min.x, h = max.y - min.y;
  const b = lastViewBox;
  const inside = b && min.x >= b.min.x && min.y >= b.min.y && max.x <= b.max.x && max.y <= b.max.y;
  const small = b && w < 0.5 * (b.max.x - b.min.x) && h < 0.5 * (b.max.y - b.min.y);
  if (inside && !small) return;
  lastViewBox = { min: { x: min.x - 0.25 * w, y: min.y - 0.25 * h }, max: { x: max.x + 0.25 * w, y: max.y + 0.25 * h } };
  client.setViewBox(lastViewBox.min, lastViewBox.max);
}

// ---- replay --------------------------------------------------------------------------

let replayLib = null;
let replay = null;  // { r, playing, speed, acc, ended }

async function openReplayBytes(bytes, name = "log") {
  setMode("replay");
  if (!replayLib) replayLib = await import("./lib/replay.js");
  if (replay) replay.r.close();
  replay = null;
  state.replay = null;
  try {
    const r = await replayLib.openReplay(bytes);
    replay = { r, name, playing: true, speed: Number($("replay-speed").value), acc: 0 };
  } catch (e) {
    setStatus(`${name}: ${e.message}`, "error");
    state.replay = { error: e.message, loaded: false };
    return false;
  }
  if (Number(params.get("follow")) > 0) replay.r.follow(Number(params.get("follow")));
  $("replay-seek").max = String(replay.r.ticks);
  camera.reset();
  frame = replay.r.frame();
  updateReplayState();
  return true;
}

$("replay-file").addEventListener("change", async (e) => {
  const f = e.target.files[0];
  if (f) await openReplayBytes(new Uint8Array(await f.arrayBuffer()), f.name);
  canvas.focus();
});
$("replay-pause").addEventListener("click", () => replayControl("toggle"));
$("replay-step").addEventListener("click", () => replayControl("step"));
$("replay-back").addEventListener("click", () => replayControl("back"));
$("replay-speed").addEventListener("change", (e) => replayControl("speed", Number(e.target.value)));
$("replay-seek").addEventListener("input", (e) => replayControl("seek", Number(e.target.value)));

const SPEEDS = [0.25, 0.5, 1, 2, 4, 8];
function replayControl(what, arg) {
  if (!replay) return;
  const r = replay.r;
  switch (what) {
    case "toggle": replay.playing = !replay.playing; replay.acc = 0; break;
    case "play": replay.playing = true; replay.acc = 0; break;
    case "pause": replay.playing = false; break;
    case "step": replay.playing = false; r.step(1); break;
    case "back": replay.playing = false; r.seekStart(Math.max(0, r.tick - 1)); break;
    case "speed":
      replay.speed = Math.min(8, Math.max(0.25, arg));
      $("replay-speed").value = String(SPEEDS.find((s) => s >= replay.speed) || 8);
      break;
    case "seek": r.seekStart(Math.min(Math.max(0, Math.round(arg)), r.ticks)); replay.acc = 0; break;
  }
  updateReplayState();
}

function updateReplayState() {
  const r = replay.r;
  state.replay = {
    loaded: true,
    name: replay.name,
    ticks: r.ticks,
    tickRate: r.tickRate,
    tick: r.tick,
    checked: r.checked,
    mismatches: r.mismatches,
    mismatch: r.mismatch,
    verified: r.verified,
    lastOk: r.lastOk,
    error: r.error,
    logEnd: r.logEnd,
    playing: replay.playing,
    speed: replay.speed,
    seeking: r.seeking,
    ended: r.tick >= r.ticks,
  };
  $("replay-pause").textContent = replay.playing ? "pause" : "play";
  $("replay-seek").value = String(r.tick);
  const s = state.replay;
  if (s.error) setStatus(`replay stopped: ${s.error}`, "error");
  else if (s.mismatches) setStatus(`hash MISMATCH at tick ${s.mismatch} (${s.mismatches} of ${s.checked} ticks differ)`, "error");
  else setStatus(`tick ${s.tick} / ${s.ticks}: hash matches the recording (${s.checked} ticks checked) - ${s.logEnd}`, "ok");
}

// At most this much simulation per displayed frame: 8x on a slow machine falls behind
// real time instead of freezing the page.
const REPLAY_BUDGET_MS = 25;

function replayTick(dt) {
  const r = replay.r;
  const t0 = performance.now();
  if (r.seeking) {
    r.update(REPLAY_BUDGET_MS);
  } else if (replay.playing && r.tick < r.ticks && !r.error) {
    replay.acc += dt * replay.speed * r.tickRate;
    while (replay.acc >= 1) {
      const n = Math.min(Math.floor(replay.acc), 8);
      const done = r.step(n);
      replay.acc -= n;
      if (done < n) {
        replay.acc = 0;
        break;
      }
      if (performance.now() - t0 > REPLAY_BUDGET_MS) {
        replay.acc = 0;  // behind real time: drop the backlog
        break;
      }
    }
  }
  if (r.tick >= r.ticks || r.error) replay.playing = false;
  frame = r.frame();
  updateReplayState();
}

// ---- the loop ------------------------------------------------------------------------

function overlayLines() {
  const L = (text, colour) => ({ text, colour });
  if (mode === "replay") {
    const s = state.replay;
    if (!s || !s.loaded) return [L("replay: choose a .arbrec file", PALETTE.textDim)];
    const lines = [L(`replay  tick ${s.tick} / ${s.ticks}  ${s.speed}x${s.playing ? "" : "  paused"}${s.seeking ? "  seeking" : ""}`)];
    if (s.error) lines.push(L(`stopped: ${s.error}`, PALETTE.error));
    else if (s.mismatches) lines.push(L(`hash MISMATCH at tick ${s.mismatch}`, PALETTE.error));
    else lines.push(L(`hash matches the recording (${s.checked} ticks checked)`, PALETTE.ok));
    lines.push(L(s.logEnd, PALETTE.textDim));
    return lines;
  }
  const lines = [L(`${mode}  ${state.connection}${state.joined ? `  client ${state.clientId}` : ""}`)];
  if (state.joined && frame) lines.push(L(`server tick ${frame.snapshotTick}  bodies ${frame.bodies.length}`, PALETTE.textDim));
  return lines;
}

function loop(now) {
  const dt = Math.min((now - lastFrameMs) / 1000, 0.25);
  lastFrameMs = now;
  try {
    if ((mode === "play" || mode === "spectate") && client) liveTick(now);
    else if (mode === "replay" && replay) replayTick(dt);
  } catch (e) {
    setStatus(String(e.message || e), "error");
    state.lastError = String(e.message || e);
  }
  if (frame) {
    camera.update(frame, dt);
    renderFrame(ctx, camera, frame, debug);
    state.bodies = frame.bodies.length + frame.statics.length;
    if (mode === "spectate" || mode === "play") reportViewBox();
  } else {
    ctx.fillStyle = PALETTE.background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
  }
  let y = 8 + drawTextBox(ctx, 8, 8, overlayLines());
  if (showStats && state.stats && mode !== "replay") drawTextBox(ctx, 8, y + 8, statsLines(state.stats));
  state.frames++;
  requestAnimationFrame(loop);
}

// ---- start ---------------------------------------------------------------------------

setMode(["play", "spectate", "replay"].includes(params.get("mode")) ? params.get("mode") : "play");
if (params.get("name")) $("player-name").value = params.get("name");
if (["default", "force", "vehicle"].includes(params.get("avatar"))) $("avatar-kind").value = params.get("avatar");
defaultServerUrl().then((url) => {
  $("server-url").value = url;
  if (url && params.get("autoconnect") === "1" && mode !== "replay") startLive();
});
if (params.get("replay")) {
  fetch(params.get("replay"))
    .then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(`${r.status} ${r.statusText}`))))
    .then((b) => openReplayBytes(new Uint8Array(b), params.get("replay")))
    .catch((e) => setStatus(`${params.get("replay")}: ${e.message}`, "error"));
}
requestAnimationFrame(loop);
