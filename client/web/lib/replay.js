// arbiter replay in the browser: a .arbrec replay log re-simulated in WebAssembly with the
// server's own game rules (client/web/src/web_replay.c), the recorded world hash checked
// after every tick, and each tick's world as the same Frame objects a live client's
// sample() returns (arbiter.d.ts), so one renderer draws both. Declarations: replay.d.ts.
//
//   import { openReplay } from "./replay.js";
//   const r = await openReplay(new Uint8Array(await file.arrayBuffer()));
//   r.step(60); r.seek(0); const frame = r.frame(); r.verified; r.mismatch;

const BODY_ROLES = ["world", "static", "own", "other"];
const AVATAR_KINDS = ["default", "force", "vehicle"];
// view_link_kind -> (Link.kind, Link.jointType)
const LINK_KINDS = [
  ["joint", "distance"],
  ["spring", null],
  ["joint", "revolute"],
  ["rope", null],
  ["joint", "prismatic"],
  ["joint", "weld"],
  ["joint", "motor"],
];
const FRAME_VERSION = 2;
const HEADER_LEN = 14;

let modulePromise = null;

/**
 * The WebAssembly module, loaded once and shared with the client library (one module,
 * dist/arbiter_web.js, holds both). Options: factory (an emscripten factory to use
 * instead, e.g. in tests), or loadArbiter's options (wasmUrl, moduleUrl, wasmBinary).
 */
export function loadReplayModule(options = {}) {
  if (options.factory) return options.factory({ wasmBinary: options.wasmBinary });
  if (!modulePromise) {
    modulePromise = import("./arbiter.js")
      .then((lib) => lib.loadArbiter(options))
      .then((arbiter) => arbiter.module)
      .catch((e) => {
        modulePromise = null;
        throw e;
      });
  }
  return modulePromise;
}

function vec(x, y) {
  return { x, y };
}

// The shape kinds' names by arb_shape_type (0: "none"), from the module (as arbiter.js).
function kindNames(M) {
  const names = [];
  const n = M._arb_web_shape_kind_count();
  for (let k = 0; k < n; k++) names.push(M.UTF8ToString(M._arb_web_shape_kind_name(k)));
  return names;
}

// One shape (its outline, the same for every kind) from the float array at i; returns
// [shape, next i].
function readShape(a, i, kinds) {
  const type = a[i], flags = a[i + 1], radius = a[i + 2], n = a[i + 3];
  i += 4;
  const points = [];
  for (let k = 0; k < n; k++, i += 2) points.push(vec(a[i], a[i + 1]));
  const shape = { kind: kinds[type] || "none", points, radius, closed: (flags & 1) !== 0, hasArea: (flags & 2) !== 0, oneSided: (flags & 4) !== 0 };
  return [shape, i];
}

/**
 * Decode the flat frame (layout in web_replay.c) into a Frame; kinds: the shape kinds'
 * names by number (a Replay passes its module's).
 */
export function decodeFrame(a, tick, tickRate, nowMs, kinds = []) {
  if (a[0] !== FRAME_VERSION) throw new Error(`arbiter replay: frame version ${a[0]}, expected ${FRAME_VERSION}`);
  const [nb, nl, np, nw] = [a[1], a[2], a[3], a[4]];
  const frame = { nowMs, serverTime: tick / tickRate, snapshotTick: tick, tick, ownEntity: 0, ownClient: a[13] };
  for (const list of ["bodies", "statics", "particles", "links", "wheels"]) frame[list] = [];
  frame.correction = null;  // nothing is predicted in a replay
  frame.focus = a[5] ? vec(a[6], a[7]) : null;
  frame.bounds = a[8] ? { lower: vec(a[9], a[10]), upper: vec(a[11], a[12]) } : null;
  let i = HEADER_LEN;
  let last = null;
  for (let k = 0; k < nb; k++) {
    const slot = a[i], entity = a[i + 1], owner = a[i + 2], avatar = a[i + 3];
    const role = BODY_ROLES[a[i + 4]] || "world";
    const sensor = a[i + 5] !== 0;
    const position = vec(a[i + 6], a[i + 7]);
    const angle = Math.atan2(a[i + 9], a[i + 8]);
    const velocity = vec(a[i + 10], a[i + 11]);
    let shape;
    [shape, i] = readShape(a, i + 12, kinds);
    if (sensor) shape.sensor = true;
    if (role === "static") {
      frame.statics.push({ position, angle, shape });
      continue;
    }
    if (last && last.slot === slot) {  // another shape of a compound body
      last.shapes.push(shape);
      continue;
    }
    const own = role === "own";
    last = {
      id: entity || slot,
      slot,
      owner,
      bodyType: "dynamic",
      avatarKind: owner ? AVATAR_KINDS[avatar] || "default" : null,
      own,
      predicted: false,
      position,
      angle,
      velocity,
      angularVelocity: 0,
      flags: 0,
      shapes: [shape],
    };
    if (own) frame.ownEntity = last.id;
    frame.bodies.push(last);
  }
  for (let k = 0; k < nl; k++, i += 7) {
    const [kind, jointType] = LINK_KINDS[a[i]] || LINK_KINDS[0];
    const link = { id: k + 1, kind, jointType, a: 0, b: 0, anchorA: vec(a[i + 1], a[i + 2]), anchorB: vec(a[i + 3], a[i + 4]) };
    if (kind === "joint" && jointType === "prismatic") link.axis = vec(a[i + 5], a[i + 6]);
    frame.links.push(link);
  }
  for (let k = 0; k < np; k++, i += 4)
    frame.particles.push({ id: k + 1, position: vec(a[i], a[i + 1]), velocity: vec(0, 0), radius: a[i + 2], pinned: a[i + 3] !== 0 });
  for (let k = 0; k < nw; k++, i += 6)
    frame.wheels.push({
      id: k + 1, vehicle: 0, position: vec(a[i], a[i + 1]), angle: Math.atan2(a[i + 3], a[i + 2]),
      radius: a[i + 4], halfWidth: a[i + 5], steer: 0, spin: 0, spinRate: 0, skid: false,
    });
  return frame;
}

class Replay {
  constructor(M, handle) {
    this.M = M;
    this.h = handle;
    this.ticks = M._wr_last_tick(handle);
    this.tickRate = M._wr_tick_rate(handle);
    this.logEnd = M.UTF8ToString(M._wr_log_end(handle));
    this.kinds = kindNames(M);
  }
  /** the tick the game is at (0 = before the first recorded tick) */
  get tick() {
    return this.M._wr_tick(this.h);
  }
  /** ticks whose hash was compared with the recording */
  get checked() {
    return this.M._wr_checked(this.h);
  }
  get mismatches() {
    return this.M._wr_mismatches(this.h);
  }
  /** the first tick whose hash differed from the recording, or 0 */
  get mismatch() {
    return this.M._wr_first_mismatch(this.h);
  }
  /** every tick checked so far matched, and at least one was checked */
  get verified() {
    return this.checked > 0 && this.mismatches === 0 && this.error === "";
  }
  /** the current tick's hash equals the recorded one */
  get lastOk() {
    return this.M._wr_last_ok(this.h) === 1;
  }
  /** a replay error that stopped playback ("" = none) */
  get error() {
    return this.M.UTF8ToString(this.M._wr_error(this.h));
  }
  /** still going to a seek target (seekStart) */
  get seeking() {
    return this.pendingSeek === true;
  }
  /** n ticks forward (default 1); returns how many were stepped */
  step(n = 1) {
    return this.M._wr_step(this.h, n);
  }
  /** go to a tick (clamped to [0, ticks]) and return it; blocks until there */
  seek(tick) {
    this.M._wr_seek(this.h, tick);
    while (this.M._wr_update(this.h, 1e9)) {}
    this.pendingSeek = false;
    return this.tick;
  }
  /** start going to a tick; update(budgetMs) continues it without freezing a page */
  seekStart(tick) {
    this.M._wr_seek(this.h, tick);
    this.pendingSeek = true;
  }
  /** continue a seek for at most budgetMs; returns true while it is not finished */
  update(budgetMs = 8) {
    this.pendingSeek = this.M._wr_update(this.h, budgetMs) === 1;
    return this.pendingSeek;
  }
  /** whose avatar frames mark as own (client id; 0 = the lowest present) */
  follow(clientId) {
    this.M._wr_follow(this.h, clientId >>> 0);
  }
  /** the world at the current tick */
  frame(nowMs = typeof performance !== "undefined" ? performance.now() : Date.now()) {
    const p = this.M._wr_frame(this.h);
    if (!p) throw new Error("arbiter replay: out of memory building a frame");
    const n = this.M._wr_frame_len(this.h);
    const a = this.M.HEAPF32.subarray(p >> 2, (p >> 2) + n);  // read before anything allocates
    return decodeFrame(a, this.tick, this.tickRate, nowMs, this.kinds);
  }
  close() {
    if (this.h) this.M._wr_close(this.h);
    this.h = 0;
  }
}

/** Open a replay log from its bytes (ArrayBuffer or Uint8Array). Rejects with the reason. */
export async function openReplay(bytes, options = {}) {
  const M = await loadReplayModule(options);
  const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const p = M._malloc(Math.max(data.length, 1));
  if (!p) throw new Error("arbiter replay: out of memory for the log");
  M.HEAPU8.set(data, p);  // HEAPU8 read after the malloc, which may grow memory
  const h = M._wr_open_bytes(p, data.length);
  M._free(p);
  if (!h) throw new Error(M.UTF8ToString(M._wr_open_error()));
  return new Replay(M, h);
}

export default openReplay;
