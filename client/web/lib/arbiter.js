// arbiter-client: the JavaScript face of libarbiter_client compiled to WebAssembly
// (dist/arbiter_web.js + .wasm, built from client/web/src/web_client.c). The wasm module
// does the protocol, interpolation, prediction, reconnects and statistics; this file owns
// the WebSockets (PROTOCOL.md §1.2) and turns the module's flat word buffers into
// objects. The API and the frame format are declared in arbiter.d.ts.

const isNode = typeof process === 'object' && process.versions != null &&
    process.versions.node != null && typeof window === 'undefined';

export const SAMPLE_INTERPOLATED = 0;
export const SAMPLE_EXTRAPOLATED = 1;
export const SAMPLE_HELD = 2;
export const SAMPLE_BLENDING = 4;
export const SAMPLE_PREDICTED = 8;

const STATES = ['disconnected', 'connecting', 'connected', 'reconnect-wait'];
const EVENT_TYPES = [
  'none',
  'connected',
  'rejected',
  'disconnected',
  'entity_entered',
  'entity_left',
  'notice',
  'player_joined',
  'player_left',
  'hit',
];
const BODY_TYPES = ['dynamic', 'static', 'kinematic'];
const AVATAR_KINDS = ['default', 'force', 'vehicle'];
const LINK_KINDS = [null, 'rope', 'spring', 'joint'];
const JOINT_TYPES = [null, 'distance', 'revolute', 'prismatic', 'weld', 'wheel', 'motor', 'mouse'];
const LOG_LEVELS = ['debug', 'info', 'warn', 'error'];
const BUTTON_JUMP = 1, BUTTON_FIRE = 2, BUTTON_USE = 4;
// The order web_client.c's arb_web_stats writes them in.
const STAT_FIELDS = [
  'rtt',
  'rttVariance',
  'packetLoss',
  'snapshotsPerSecond',
  'kbitInPerSecond',
  'kbitOutPerSecond',
  'bytesIn',
  'bytesOut',
  'messagesIn',
  'messagesOut',
  'interpDelay',
  'snapshotInterval',
  'jitter',
  'bufferDepth',
  'extrapolationTime',
  'snapshotsReceived',
  'snapshotsExpected',
  'snapshotsLost',
  'snapshotsLate',
  'baselineMissing',
  'decodeErrors',
  'inputsSent',
  'eventsDropped',
  'connects',
  'reconnects',
  'entityCount',
  'predicting',
  'inputLead',
  'predictChecks',
  'predictCorrections',
  'predictSnaps',
  'inputsLate',
  'predictError',
  'predictErrorMax',
  'predictErrorFree',
  'predictCorrectionMax',
  'predictOffset',
  'inputToMotion',
  'inputToMotionCount',
];
const BOOLEAN_STATS = new Set(['predicting', 'predictErrorFree']);

const now = () => performance.now();

// ---- loading the module --------------------------------------------------------------

function loadScript(url) {
  return new Promise((resolve, reject) => {
    if (typeof document === 'undefined') {
      importScripts(String(url));  // a worker
      resolve();
      return;
    }
    const s = document.createElement('script');
    s.src = String(url);
    s.async = true;
    s.onload = () => resolve();
    s.onerror = () => reject(new Error(`arbiter: cannot load ${url}`));
    document.head.appendChild(s);
  });
}

async function moduleFactory(options) {
  if (isNode) {
    const {createRequire} = await import('node:module');
    const require = createRequire(import.meta.url);
    const factory = require('../dist/arbiter_web.js');
    let wasmBinary = options.wasmBinary;
    if (!wasmBinary) {
      const fs = await import('node:fs');
      wasmBinary = fs.readFileSync(new URL('../dist/arbiter_web.wasm', import.meta.url));
    }
    let WebSocketClass = options.WebSocket || globalThis.WebSocket;
    if (!WebSocketClass) WebSocketClass = (await import('ws')).default;
    return {factory, args: {wasmBinary}, WebSocketClass};
  }
  const scriptUrl = options.moduleUrl || new URL('../dist/arbiter_web.js', import.meta.url);
  if (typeof globalThis.createArbiterModule !== 'function') await loadScript(scriptUrl);
  const wasmUrl = String(options.wasmUrl || new URL('../dist/arbiter_web.wasm', import.meta.url));
  const args = options.wasmBinary ?
      {wasmBinary: options.wasmBinary} :
      {locateFile: (path, dir) => (path.endsWith('.wasm') ? wasmUrl : dir + path)};
  return {
    factory: globalThis.createArbiterModule,
    args,
    WebSocketClass: options.WebSocket || globalThis.WebSocket,
  };
}

// The sockets of every client of one module. The module calls open/send/close (through
// src/arbiter_ws.js) from inside a call this file made for one client: `current` is that
// client, so each socket knows whose it is.
class SocketHost {
  constructor(WebSocketClass) {
    this.WebSocketClass = WebSocketClass;
    this.sockets = new Map();
    this.nextId = 1;
    this.current = null;
    this.clients = new Map();
    this.M = null;
  }

  open(net, url) {
    const client = this.current;
    const WS = (client && client.WebSocketClass) || this.WebSocketClass;
    if (!WS) return 0;
    let ws;
    try {
      ws = new WS(url, 'arbiter');
    } catch (e) {
      if (client) client.openError = String(e && e.message ? e.message : e);
      return 0;
    }
    ws.binaryType = 'arraybuffer';
    const id = this.nextId++;
    const entry = {ws, net, client, live: true, closed: null, resolveClosed: null};
    entry.closed = new Promise((resolve) => (entry.resolveClosed = resolve));
    const M = this.M;
    ws.onopen = () => {
      if (entry.live) M._cl_net_ws_on_open(net);
    };
    ws.onmessage = (ev) => {
      if (!entry.live || typeof ev.data === 'string') return;
      const bytes = ev.data instanceof ArrayBuffer ?
          new Uint8Array(ev.data) :
          new Uint8Array(ev.data.buffer, ev.data.byteOffset, ev.data.byteLength);
      const p = M._cl_net_ws_on_message(net, bytes.length);
      if (p) M.HEAPU8.set(bytes, p);  // HEAPU8 read after the call: memory may have grown
    };
    ws.onerror = () => {};  // a close event follows
    ws.onclose = (ev) => {
      const info = {code: ev.code, reason: ev.reason || '', wasClean: !!ev.wasClean};
      if (client) client.lastClose = info;
      this.sockets.delete(id);
      if (entry.live) {
        entry.live = false;
        M._cl_net_ws_on_close(net, ev.code);
      }
      entry.resolveClosed(info);
    };
    this.sockets.set(id, entry);
    if (client) client.socket = entry;
    return id;
  }

  send(id, bytes) {
    const entry = this.sockets.get(id);
    if (!entry || !entry.live || entry.ws.readyState !== 1) return -1;
    entry.ws.send(bytes);
    return 0;
  }

  // 1000: the client leaves. 0: abandoned, to come back with a rejoin: no close frame
  // where the implementation can (ws's terminate), which the server takes as a lost
  // connection and holds the avatar for; a browser can only send a close frame (4008).
  close(id, code) {
    const entry = this.sockets.get(id);
    if (!entry || !entry.live) return;
    entry.live = false;
    const ws = entry.ws;
    try {
      if (code === 1000)
        ws.close(1000, 'leaving');
      else if (typeof ws.terminate === 'function')
        ws.terminate();
      else
        ws.close(4008, 'timeout');
    } catch (e) {
      /* already closing */
    }
  }

  log(id, level, message) {
    const client = this.clients.get(id);
    if (client && client.logFn) client.logFn(LOG_LEVELS[level] || 'info', message);
  }

  call(client, fn) {
    const saved = this.current;
    this.current = client;
    try {
      return fn();
    } finally {
      this.current = saved;
    }
  }
}

// ---- reading the module's word buffers -------------------------------------------------

// A cursor over 32-bit words copied out of the module (the buffer is reused by the next
// call), readable as unsigned integers and as float32.
class Words {
  constructor(M, ptr, count) {
    const start = ptr >>> 2;
    this.u = M.HEAPU32.slice(start, start + count);
    this.f = new Float32Array(this.u.buffer);
    this.i = 0;
  }
  u32() { return this.u[this.i++]; }
  f32() { return this.f[this.i++]; }
  vec() {
    const x = this.f[this.i++];
    return {x, y: this.f[this.i++]};
  }
}

// The words a shape takes (put_shape in web_client.c), reading from `u` at `i`.
function shapeWords(u, i) {
  return 4 + 2 * u[i + 3];
}

// The shape kinds' names by arb_shape_type (0: 'none'), read from the module once.
const kindNamesOf = new WeakMap();
function kindNames(M) {
  let names = kindNamesOf.get(M);
  if (!names) {
    names = [];
    const n = M._arb_web_shape_kind_count();
    for (let k = 0; k < n; k++) names.push(M.UTF8ToString(M._arb_web_shape_kind_name(k)));
    kindNamesOf.set(M, names);
  }
  return names;
}

// A shape: its outline, the same words for every kind (put_shape in web_client.c).
function readShape(w, kinds) {
  const type = w.u32(), flags = w.u32(), radius = w.f32(), n = w.u32();
  const points = [];
  for (let k = 0; k < n; k++) points.push(w.vec());
  return {
    kind: kinds[type] || 'none',
    points,
    radius,
    closed: (flags & 1) !== 0,
    hasArea: (flags & 2) !== 0,
    oneSided: (flags & 4) !== 0,
  };
}

// Copies of buffers whose length is only known by walking them: the description of an
// entity (4 words and its shapes) and the level.
function entityWords(M, ptr) {
  const u = M.HEAPU32;
  let i = ptr >>> 2;
  const start = i;
  const shapes = u[i + 3];
  i += 4;
  for (let k = 0; k < shapes; k++) i += shapeWords(u, i);
  return new Words(M, ptr, i - start);
}

function staticsWords(M, ptr) {
  const u = M.HEAPU32;
  let i = ptr >>> 2;
  const start = i;
  const n = u[i++];
  for (let k = 0; k < n; k++) {
    i += 3;
    i += shapeWords(u, i);
  }
  return new Words(M, ptr, i - start);
}

function withCString(M, text, fn) {
  if (text == null) return fn(0);
  const n = M.lengthBytesUTF8(text) + 1;
  const p = M._malloc(n);
  try {
    M.stringToUTF8(text, p, n);
    return fn(p);
  } finally {
    M._free(p);
  }
}

// ---- the client ------------------------------------------------------------------------

let nextClientId = 1;

class ArbiterClient {
  constructor(arbiter, url, options) {
    const M = arbiter.module;
    this.M = M;
    this.host = arbiter.host;
    this.id = nextClientId++;
    this.WebSocketClass = options.WebSocket || null;
    this.logFn = options.log || null;
    this.lastClose = null;
    this.openError = '';
    this.socket = null;
    this.queue = [];
    this.descs = new Map();
    this.statics = null;
    this.timer = null;
    const avatar = AVATAR_KINDS.indexOf(options.avatar || 'default');
    if (avatar < 0) throw new Error(`arbiter: unknown avatar kind '${options.avatar}'`);
    const logLevel = options.logLevel ? LOG_LEVELS.indexOf(options.logLevel) : 4;
    this.host.clients.set(this.id, this);
    const opt = (v, d) => (v === undefined || v === null ? d : v);
    this.w = withCString(
        M, url,
        (u) => withCString(
            M, opt(options.name, 'player'),
            (n) => withCString(
                M, opt(options.token, ''),
                (t) => M._arb_web_create(
                    this.id, u, n, t, avatar, options.spectate ? 1 : 0,
                    opt(options.rejoin, true) ? 1 : 0, opt(options.predict, true) ? 1 : 0,
                    opt(options.interpolate, true) ? 1 : 0, opt(options.connectTimeout, 0),
                    opt(options.timeout, 0), opt(options.inputRate, 0), opt(options.maxKbps, 0),
                    logLevel < 0 ? 4 : logLevel))));
    if (!this.w) {
      this.host.clients.delete(this.id);
      throw new Error('arbiter: invalid connect options (url, name, token length or ranges)');
    }
    const rc = this.host.call(this, () => M._arb_web_connect(this.w));
    if (rc !== 0) {
      const why = this.openError || 'cannot open a WebSocket';
      this.host.call(this, () => M._arb_web_destroy(this.w));
      this.w = 0;
      this.host.clients.delete(this.id);
      throw new Error(`arbiter: connect ${url}: ${why}`);
    }
    const pump = options.autoPump;
    if (pump) this.timer = setInterval(() => this.update(), pump);
  }

  alive() {
    if (!this.w) throw new Error('arbiter: the client is closed');
  }

  setControls(c) {
    this.alive();
    const num = (v) => (typeof v === 'number' ? v : 0);
    const buttons =
        (c.jump ? BUTTON_JUMP : 0) | (c.fire ? BUTTON_FIRE : 0) | (c.use ? BUTTON_USE : 0);
    const rc = this.M._arb_web_set_controls(
        this.w, num(c.moveX), num(c.moveY), num(c.aim), buttons, num(c.steer), num(c.throttle),
        num(c.brake));
    if (rc !== 0) throw new Error('arbiter: controls must be finite numbers');
  }

  getControls() {
    this.alive();
    const w = new Words(this.M, this.M._arb_web_get_controls(this.w), 7);
    const moveX = w.f32(), moveY = w.f32(), aim = w.f32(), buttons = w.u32();
    return {
      moveX,
      moveY,
      aim,
      jump: (buttons & BUTTON_JUMP) !== 0,
      fire: (buttons & BUTTON_FIRE) !== 0,
      use: (buttons & BUTTON_USE) !== 0,
      steer: w.f32(),
      throttle: w.f32(),
      brake: w.f32(),
    };
  }

  setViewBox(min, max) {
    this.alive();
    const rc = min ? this.M._arb_web_set_view_box(this.w, 1, min.x, min.y, max.x, max.y) :
                     this.M._arb_web_set_view_box(this.w, 0, 0, 0, 0, 0);
    if (rc !== 0)
      throw new Error('arbiter: invalid view box (finite, min <= max, sides <= 1000 m)');
  }

  update(nowMs = now()) {
    if (!this.w) return;
    const M = this.M;
    this.host.call(this, () => M._arb_web_update(this.w, nowMs / 1000));
    for (;;) {
      const p = M._arb_web_poll_event(this.w);
      if (!p) break;
      const time = M.HEAPF64[p >>> 3];
      const u = M.HEAPU32;
      const i = (p >>> 2) + 2;
      const ev = {
        type: EVENT_TYPES[u[i]] || 'none',
        entityId: u[i + 1],
        clientId: u[i + 2],
        code: u[i + 3] | 0,
        willReconnect: u[i + 4] !== 0,
        timeMs: time * 1000,
        text: M.UTF8ToString(p + 28),
        closeCode: 0,
      };
      if (ev.type === 'entity_entered' || ev.type === 'entity_left') this.descs.delete(ev.entityId);
      if (ev.type === 'connected') {
        this.statics = null;
        this.descs.clear();
      }
      if (ev.type === 'disconnected' || ev.type === 'rejected') {
        ev.closeCode = this.lastClose ? this.lastClose.code : 0;
        this.lastClose = null;
      }
      this.queue.push(ev);
    }
  }

  events() {
    const out = this.queue;
    this.queue = [];
    return out;
  }

  desc(id) {
    let d = this.descs.get(id);
    if (d) return d;
    const p = this.M._arb_web_entity(this.w, id);
    if (!p) return {bodyType: 'dynamic', owner: 0, avatarKind: null, shapes: []};
    const w = entityWords(this.M, p);
    const bodyType = BODY_TYPES[w.u32()] || 'dynamic';
    const owner = w.u32();
    const kind = w.u32();
    const count = w.u32();
    const shapes = [];
    for (let k = 0; k < count; k++) shapes.push(readShape(w, kindNames(this.M)));
    d = {bodyType, owner, avatarKind: kind ? AVATAR_KINDS[kind] || 'default' : null, shapes};
    this.descs.set(id, d);
    return d;
  }

  level() {
    if (this.statics) return this.statics;
    const p = this.M._arb_web_statics(this.w);
    const out = [];
    if (p) {
      const w = staticsWords(this.M, p);
      const n = w.u32();
      for (let k = 0; k < n; k++) {
        const position = w.vec();
        const angle = w.f32();
        out.push({position, angle, shape: readShape(w, kindNames(this.M))});
      }
    }
    this.statics = out;
    return out;
  }

  sample(nowMs = now()) {
    this.alive();
    const M = this.M;
    const p = M._arb_web_sample(this.w, nowMs / 1000);
    const frame = {
      nowMs,
      serverTime: M._arb_web_sample_time(this.w),
      snapshotTick: M._arb_web_snapshot_tick(this.w),
      ownEntity: M.HEAPF64[(M._arb_web_session(this.w) >>> 3) + 1],
      bodies: [],
      statics: [],
      particles: [],
      links: [],
      wheels: [],
      correction: null,
    };
    if (!p) return frame;
    const head = M.HEAPU32.subarray(p >>> 2, (p >>> 2) + 4);
    const [nb, np, nl, nw] = head;
    const w = new Words(M, p, 7 + 9 * nb + 7 * np + 9 * nl + 11 * nw);
    w.i = 4;
    const hasCorrection = w.u32() !== 0;
    const corr = w.vec();
    if (hasCorrection) frame.correction = corr;
    const raw = [];
    for (let k = 0; k < nb; k++) {
      const id = w.u32(), owner = w.u32(), flags = w.u32();
      const position = w.vec();
      const angle = w.f32();
      const velocity = w.vec();
      raw.push({id, owner, flags, position, angle, velocity, angularVelocity: w.f32()});
    }
    for (let k = 0; k < np; k++) {
      const id = w.u32();
      const position = w.vec();
      const velocity = w.vec();
      const radius = w.f32();
      frame.particles.push({id, position, velocity, radius, pinned: w.u32() !== 0});
    }
    for (let k = 0; k < nl; k++) {
      const id = w.u32(), kind = w.u32(), joint = w.u32(), a = w.u32(), b = w.u32();
      const anchorA = w.vec();
      const anchorB = w.vec();
      frame.links.push({
        id,
        kind: LINK_KINDS[kind] || 'joint',
        jointType: kind === 3 ? JOINT_TYPES[joint] || null : null,
        a,
        b,
        anchorA,
        anchorB,
      });
    }
    for (let k = 0; k < nw; k++) {
      const id = w.u32(), vehicle = w.u32();
      const position = w.vec();
      const c = w.f32(), s = w.f32();
      const radius = w.f32(), steer = w.f32(), spin = w.f32(), spinRate = w.f32();
      frame.wheels.push({
        id,
        vehicle,
        position,
        angle: Math.atan2(s, c),
        radius,
        steer,
        spin,
        spinRate,
        skid: w.u32() !== 0,
      });
    }
    // Descriptions last: fetching one reuses the module's buffer the sample was in.
    for (const r of raw) {
      const d = this.desc(r.id);
      frame.bodies.push({
        id: r.id,
        owner: r.owner,
        bodyType: d.bodyType,
        avatarKind: d.avatarKind,
        own: r.id === frame.ownEntity && r.id !== 0,
        predicted: (r.flags & SAMPLE_PREDICTED) !== 0,
        position: r.position,
        angle: r.angle,
        velocity: r.velocity,
        angularVelocity: r.angularVelocity,
        flags: r.flags,
        shapes: d.shapes,
      });
    }
    frame.statics = this.level();
    return frame;
  }

  stats() {
    this.alive();
    const M = this.M;
    const p = M._arb_web_stats(this.w) >>> 3;
    const v = M.HEAPF64;
    const out = {};
    STAT_FIELDS.forEach(
        (name, k) => (out[name] = BOOLEAN_STATS.has(name) ? v[p + k] !== 0 : v[p + k]));
    return out;
  }

  state() {
    this.alive();
    return STATES[this.M._arb_web_state(this.w)] || 'disconnected';
  }

  session() {
    this.alive();
    const M = this.M;
    const p = M._arb_web_session(this.w) >>> 3;
    const v = M.HEAPF64;
    const text = M._arb_web_session_text(this.w);
    return {
      clientId: v[p],
      avatarEntity: v[p + 1],
      tickRate: v[p + 2],
      snapshotRate: v[p + 3],
      welcomeTick: v[p + 4],
      sceneName: M.UTF8ToString(text),
      sceneHash: M.UTF8ToString(text + 64, 16),
    };
  }

  serverTick(nowMs = now()) {
    this.alive();
    const s = this.session();
    return Math.floor(this.M._arb_web_server_time(this.w, nowMs / 1000) * s.tickRate);
  }

  predictionChecks() {
    this.alive();
    const M = this.M;
    const p = M._arb_web_predict_checks(this.w);
    if (!p) return [];
    const n = M.HEAPU32[p >>> 2];
    const v = new Int32Array(M.HEAPU32.slice((p >>> 2) + 1, (p >>> 2) + 1 + 15 * n).buffer);
    const q = (k) =>
        ({x: v[k], y: v[k + 1], angle: v[k + 2], vx: v[k + 3], vy: v[k + 4], w: v[k + 5]});
    const out = [];
    for (let k = 0; k < n; k++) {
      const b = 15 * k;
      out.push({
        tick: v[b] >>> 0,
        agree: v[b + 1] !== 0,
        touching: v[b + 2] !== 0,
        predicted: q(b + 3),
        server: q(b + 9)
      });
    }
    return out;
  }

  lastError() {
    this.alive();
    return this.M.UTF8ToString(this.M._arb_web_last_error(this.w));
  }

  close() {
    if (!this.w)
      return Promise.resolve(this.lastClose || {code: 0, reason: 'closed', wasClean: false});
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const entry = this.socket && this.socket.live ? this.socket : null;
    this.host.call(this, () => this.M._arb_web_destroy(this.w));
    this.w = 0;
    this.host.clients.delete(this.id);
    if (entry) return entry.closed;
    return Promise.resolve(this.lastClose || {code: 0, reason: 'not connected', wasClean: false});
  }
}

/** Load the wasm module; see arbiter.d.ts. */
export async function loadArbiter(options = {}) {
  const {factory, args, WebSocketClass} = await moduleFactory(options);
  const host = new SocketHost(WebSocketClass);
  const M = await factory({...args, arbiterHost: host});
  host.M = M;
  const arbiter = {
    module: M,
    host,
    connect(url, connectOptions = {}) { return new ArbiterClient(arbiter, url, connectOptions); },
  };
  return arbiter;
}

export default loadArbiter;
