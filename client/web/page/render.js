// The canvas renderer of the web page: draws one Frame (client/web/lib/arbiter.d.ts; a
// replay's frames are the same objects) the way the native viewer does
// (client/view/view_render.c): static geometry, world bodies, other players' avatars and
// the own avatar on top, shapes of any kind from their outlines (Shape), vehicle wheels,
// springs, joints, ropes and particles, the same colours (client/view/view_palette.h); a
// camera that fits the level, follows the own avatar and zooms; and the overlay text boxes.
//
// Fills are opaque and drawn without anti-aliasing where the canvas allows, so a fill
// colour lands in the image exactly (the browser test counts pixels by colour).

export const PALETTE = {
  background: "#181b22",
  grid: "#22262f",
  static: "#7c808c",
  staticEdge: "#b4b8c4",
  world: "#3f7fd0",
  worldEdge: "#9cc4f4",
  own: "#38d860",
  ownEdge: "#c0ffd0",
  other: "#e05a48",
  otherEdge: "#ffc4b8",
  sensor: "#40c8b0",
  particle: "#f0d060",
  joint: "#d070e0",
  wheel: "#202020",
  aabb: "#c8c850",
  velocity: "#50e0e0",
  correction: "#ff60c0",
  text: "#e8e8e8",
  textDim: "#9098a8",
  warn: "#ffb040",
  error: "#ff6060",
  ok: "#60e080",
};

const MIN_ZOOM = 0.5;  // pixels per metre
const MAX_ZOOM = 400;

function transform(pos, angle, p) {
  const c = Math.cos(angle), s = Math.sin(angle);
  return { x: pos.x + c * p.x - s * p.y, y: pos.y + s * p.x + c * p.y };
}

function shapeBounds(shape, pos, angle, box) {
  const add = (p, r = 0) => {
    const w = transform(pos, angle, p);
    box.lx = Math.min(box.lx, w.x - r);
    box.ly = Math.min(box.ly, w.y - r);
    box.ux = Math.max(box.ux, w.x + r);
    box.uy = Math.max(box.uy, w.y + r);
  };
  for (const p of shape.points) add(p, shape.radius);
  if (!shape.points.length) add({ x: 0, y: 0 }, 0.1);
}

/** The extent of the level: the static geometry, or everything when there is none. */
export function frameBounds(frame) {
  if (frame.bounds) return frame.bounds;
  const box = { lx: Infinity, ly: Infinity, ux: -Infinity, uy: -Infinity };
  for (const s of frame.statics || []) shapeBounds(s.shape, s.position, s.angle, box);
  if (box.lx === Infinity)
    for (const b of frame.bodies || []) for (const sh of b.shapes) shapeBounds(sh, b.position, b.angle, box);
  if (box.lx === Infinity) return null;
  return { lower: { x: box.lx, y: box.ly }, upper: { x: box.ux, y: box.uy } };
}

/** The own avatar's position, which the camera follows (null: none). */
export function frameFocus(frame) {
  if (frame.focus) return frame.focus;
  for (const b of frame.bodies || []) if (b.own) return b.position;
  return null;
}

/**
 * World metres (y up) to canvas pixels (y down). Follows the focus but never shows more
 * empty space than it must: centred on the level along an axis where the level fits,
 * kept inside it otherwise; the first frame with bounds fits the whole level.
 */
export class Camera {
  constructor(width = 800, height = 600) {
    this.center = { x: 0, y: 0 };
    this.zoom = this.fitZoom = 20;
    this.free = false;
    this.fitted = false;
    this.width = width;
    this.height = height;
  }
  reset() {
    this.free = false;
    this.fitted = false;
  }
  resize(width, height) {
    this.width = width;
    this.height = height;
  }
  update(frame, dt) {
    const b = frameBounds(frame);
    if (!b) return;
    const bw = Math.max(b.upper.x - b.lower.x, 1), bh = Math.max(b.upper.y - b.lower.y, 1);
    this.fitZoom = Math.min(this.width / (bw * 1.04), this.height / (bh * 1.04));
    this.fitZoom = Math.min(Math.max(this.fitZoom, MIN_ZOOM), MAX_ZOOM);
    let snap = false;
    if (!this.fitted) {
      this.zoom = this.fitZoom;
      this.center = { x: 0.5 * (b.lower.x + b.upper.x), y: 0.5 * (b.lower.y + b.upper.y) };
      this.fitted = snap = true;
    }
    if (this.free) return;
    const focus = frameFocus(frame) || this.center;
    const hw = (0.5 * this.width) / this.zoom, hh = (0.5 * this.height) / this.zoom;
    const pad = 1;
    const clampAxis = (t, lo, hi, half) => (hi - lo <= 2 * half ? 0.5 * (lo + hi) : Math.min(Math.max(t, lo + half), hi - half));
    const tx = clampAxis(focus.x, b.lower.x - pad, b.upper.x + pad, hw);
    const ty = clampAxis(focus.y, b.lower.y - pad, b.upper.y + pad, hh);
    const k = snap ? 1 : Math.min(1, dt * 8);
    this.center = { x: this.center.x + k * (tx - this.center.x), y: this.center.y + k * (ty - this.center.y) };
  }
  /** zoom by factor; a free camera keeps the point under (sx, sy) in place */
  zoomAt(factor, sx = this.width / 2, sy = this.height / 2) {
    const before = this.toWorld(sx, sy);
    this.zoom = Math.min(Math.max(this.zoom * factor, MIN_ZOOM), MAX_ZOOM);
    const after = this.toWorld(sx, sy);
    if (this.free) this.center = { x: this.center.x + before.x - after.x, y: this.center.y + before.y - after.y };
  }
  pan(dx, dy) {
    this.center = { x: this.center.x - dx / this.zoom, y: this.center.y + dy / this.zoom };
  }
  toScreen(p) {
    return { x: 0.5 * this.width + (p.x - this.center.x) * this.zoom, y: 0.5 * this.height - (p.y - this.center.y) * this.zoom };
  }
  toWorld(sx, sy) {
    return { x: this.center.x + (sx - 0.5 * this.width) / this.zoom, y: this.center.y - (sy - 0.5 * this.height) / this.zoom };
  }
  /** the world rectangle the canvas shows */
  viewBox() {
    const lo = this.toWorld(0, this.height), hi = this.toWorld(this.width, 0);
    return { min: lo, max: hi };
  }
}

function path(ctx, cam, pts, close = true) {
  ctx.beginPath();
  pts.forEach((p, i) => {
    const s = cam.toScreen(p);
    if (i === 0) ctx.moveTo(s.x, s.y);
    else ctx.lineTo(s.x, s.y);
  });
  if (close) ctx.closePath();
}

function fillStroke(ctx, fill, edge, filled) {
  if (filled && fill) {
    ctx.fillStyle = fill;
    ctx.fill();
  }
  if (edge) {
    ctx.strokeStyle = edge;
    ctx.lineWidth = 1;
    ctx.stroke();
  }
}

function segment(ctx, cam, a, b, colour, width = 1) {
  const sa = cam.toScreen(a), sb = cam.toScreen(b);
  ctx.beginPath();
  ctx.moveTo(sa.x, sa.y);
  ctx.lineTo(sb.x, sb.y);
  ctx.strokeStyle = colour;
  ctx.lineWidth = width;
  ctx.stroke();
}

function circle(ctx, cam, c, r, fill, edge, filled) {
  const s = cam.toScreen(c);
  ctx.beginPath();
  ctx.arc(s.x, s.y, Math.max(r * cam.zoom, 0.5), 0, 2 * Math.PI);
  fillStroke(ctx, fill, edge, filled);
}

// The points (world, counter-clockwise; 2 for a capsule) grown by radius: an arc round
// each corner from the previous edge's outward normal to the next one's.
function rounded(ctx, cam, p, radius, fill, edge, filled) {
  const n = p.length, out = [];
  for (let i = 0; i < n; i++) {
    const prev = p[(i + n - 1) % n], next = p[(i + 1) % n];
    const a0 = Math.atan2(-(p[i].x - prev.x), p[i].y - prev.y);
    let a1 = Math.atan2(-(next.x - p[i].x), next.y - p[i].y);
    if (a1 < a0) a1 += 2 * Math.PI;
    for (let j = 0; j <= 6; j++) {
      const a = a0 + ((a1 - a0) * j) / 6;
      out.push({ x: p[i].x + radius * Math.cos(a), y: p[i].y + radius * Math.sin(a) });
    }
  }
  path(ctx, cam, out);
  fillStroke(ctx, fill, edge, filled);
}

// A segment with a visible thickness (static walls made of segments must show their fill).
function thickSegment(ctx, cam, a, b, fill, edge) {
  const px = Math.max(3, 0.08 * cam.zoom);
  const sa = cam.toScreen(a), sb = cam.toScreen(b);
  const dx = sb.x - sa.x, dy = sb.y - sa.y, len = Math.hypot(dx, dy);
  if (len < 1e-3) return;
  const nx = (-dy / len) * 0.5 * px, ny = (dx / len) * 0.5 * px;
  ctx.beginPath();
  ctx.moveTo(sa.x + nx, sa.y + ny);
  ctx.lineTo(sb.x + nx, sb.y + ny);
  ctx.lineTo(sb.x - nx, sb.y - ny);
  ctx.lineTo(sa.x - nx, sa.y - ny);
  ctx.closePath();
  fillStroke(ctx, fill, edge, true);
}

/**
 * One shape of a body at (pos, angle), from its outline alone (any kind): one point is a
 * circle with a line showing the rotation; a closed outline with area a (rounded)
 * polygon; an open one with area each link grown by the radius, and the core line; a
 * line its links (thick when filled), with a tick towards the front of one-sided links.
 */
export function drawShape(ctx, cam, shape, pos, angle, fill, edge, filled) {
  const T = (p) => transform(pos, angle, p);
  const pts = shape.points.map(T), n = pts.length, r = shape.radius;
  if (n === 0) {  // a shape without an outline: a small marker
    const d = 0.1;
    path(ctx, cam, [{ x: pos.x - d, y: pos.y - d }, { x: pos.x + d, y: pos.y - d }, { x: pos.x + d, y: pos.y + d }, { x: pos.x - d, y: pos.y + d }]);
    fillStroke(ctx, fill, edge, filled);
    return;
  }
  if (n === 1) {
    circle(ctx, cam, pts[0], r, fill, edge, filled);
    segment(ctx, cam, pts[0], T({ x: shape.points[0].x + r, y: shape.points[0].y }), edge);
    return;
  }
  const links = shape.closed ? n : n - 1;
  if (shape.hasArea && shape.closed) {
    if (n < 3) return;
    if (r > 0) rounded(ctx, cam, pts, r, fill, edge, filled);
    else {
      path(ctx, cam, pts);
      fillStroke(ctx, fill, edge, filled);
    }
    return;
  }
  if (shape.hasArea) {
    for (let i = 0; i < links; i++) rounded(ctx, cam, [pts[i], pts[i + 1]], r, fill, edge, filled);
    for (let i = 0; i < links; i++) segment(ctx, cam, pts[i], pts[i + 1], edge);  // the core shows the rotation
    return;
  }
  for (let i = 0; i < links; i++) {
    const a = pts[i], b = pts[(i + 1) % n];
    if (r > 0) rounded(ctx, cam, [a, b], r, fill, edge, filled);
    else if (filled) thickSegment(ctx, cam, a, b, fill, edge);
    else segment(ctx, cam, a, b, edge);
    if (!shape.oneSided) continue;
    const mid = { x: 0.5 * (a.x + b.x), y: 0.5 * (a.y + b.y) };
    const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    const k = 8 / Math.max(cam.zoom, 1e-3);
    segment(ctx, cam, mid, { x: mid.x - ((b.y - a.y) / len) * k, y: mid.y + ((b.x - a.x) / len) * k }, edge);
  }
}

function spring(ctx, cam, a, b) {
  const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy);
  if (len < 1e-4) return;
  const nx = (-dy / len) * 0.12, ny = (dx / len) * 0.12;
  const pts = [a];
  for (let i = 1; i <= 10; i++) {
    const t = i / 11, sgn = i & 1 ? 1 : -1;
    pts.push({ x: a.x + dx * t + sgn * nx, y: a.y + dy * t + sgn * ny });
  }
  pts.push(b);
  path(ctx, cam, pts, false);
  ctx.strokeStyle = PALETTE.joint;
  ctx.lineWidth = 1;
  ctx.stroke();
}

function drawLink(ctx, cam, l) {
  const px = 4 / cam.zoom, a = l.anchorA, b = l.anchorB;
  if (l.kind === "spring") return spring(ctx, cam, a, b);
  if (l.kind === "rope") return segment(ctx, cam, a, b, PALETTE.particle);
  switch (l.jointType) {
    case "revolute":
      return circle(ctx, cam, a, px, null, PALETTE.joint, false);
    case "prismatic":
    case "wheel":
      if (l.axis) segment(ctx, cam, { x: a.x - l.axis.x, y: a.y - l.axis.y }, { x: a.x + l.axis.x, y: a.y + l.axis.y }, PALETTE.joint);
      segment(ctx, cam, a, b, PALETTE.joint);
      return circle(ctx, cam, b, px, null, PALETTE.joint, false);
    case "weld":
      path(ctx, cam, [{ x: a.x - px, y: a.y - px }, { x: a.x + px, y: a.y - px }, { x: a.x + px, y: a.y + px }, { x: a.x - px, y: a.y + px }]);
      return fillStroke(ctx, null, PALETTE.joint, false);
    case "motor":
    case "mouse":
      segment(ctx, cam, a, b, PALETTE.joint);
      segment(ctx, cam, { x: b.x - px, y: b.y - px }, { x: b.x + px, y: b.y + px }, PALETTE.joint);
      return segment(ctx, cam, { x: b.x - px, y: b.y + px }, { x: b.x + px, y: b.y - px }, PALETTE.joint);
    default:  // distance joint: the rod and a dot at each anchor
      segment(ctx, cam, a, b, PALETTE.joint);
      circle(ctx, cam, a, 3 / cam.zoom, PALETTE.joint, PALETTE.joint, true);
      return circle(ctx, cam, b, 3 / cam.zoom, PALETTE.joint, PALETTE.joint, true);
  }
}

function drawGrid(ctx, cam) {
  let step = 1;
  while (step * cam.zoom < 24) step *= 10;
  while (step * cam.zoom > 240) step *= 0.1;
  const { min, max } = cam.viewBox();
  ctx.strokeStyle = PALETTE.grid;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let x = Math.floor(min.x / step) * step; x <= max.x; x += step) {
    const s = cam.toScreen({ x, y: 0 });
    ctx.moveTo(s.x, 0);
    ctx.lineTo(s.x, cam.height);
  }
  for (let y = Math.floor(min.y / step) * step; y <= max.y; y += step) {
    const s = cam.toScreen({ x: 0, y });
    ctx.moveTo(0, s.y);
    ctx.lineTo(cam.width, s.y);
  }
  ctx.stroke();
}

function bodyColours(b) {
  if (b.own) return [PALETTE.own, PALETTE.ownEdge];
  if (b.owner) return [PALETTE.other, PALETTE.otherEdge];
  if (b.bodyType === "static") return [PALETTE.static, PALETTE.staticEdge];
  return [PALETTE.world, PALETTE.worldEdge];
}

/**
 * Draw a frame. debug: { grid, aabbs, velocities, corrections } (the native viewer's G,
 * F3, F5, F7 layers). The canvas is cleared with the background colour first.
 */
export function renderFrame(ctx, cam, frame, debug = {}) {
  ctx.imageSmoothingEnabled = false;
  ctx.fillStyle = PALETTE.background;
  ctx.fillRect(0, 0, cam.width, cam.height);
  if (debug.grid) drawGrid(ctx, cam);
  for (const s of frame.statics || []) {
    const sensor = s.shape.sensor;
    drawShape(ctx, cam, s.shape, s.position, s.angle, sensor ? PALETTE.sensor : PALETTE.static, sensor ? PALETTE.sensor : PALETTE.staticEdge, !sensor);
  }
  // World bodies, then other players' avatars, then the own avatar on top.
  const order = (b) => (b.own ? 2 : b.owner ? 1 : 0);
  const bodies = [...(frame.bodies || [])].sort((a, b) => order(a) - order(b));
  for (const b of bodies) {
    const [fill, edge] = bodyColours(b);
    for (const sh of b.shapes) {
      const sensor = sh.sensor;
      drawShape(ctx, cam, sh, b.position, b.angle, sensor ? PALETTE.sensor : fill, sensor ? PALETTE.sensor : edge, !sensor);
    }
  }
  for (const w of frame.wheels || []) {
    const hl = w.radius, hw = w.halfWidth || 0.4 * w.radius;
    const pts = [{ x: hl, y: hw }, { x: -hl, y: hw }, { x: -hl, y: -hw }, { x: hl, y: -hw }].map((p) => transform(w.position, w.angle, p));
    path(ctx, cam, pts);
    fillStroke(ctx, PALETTE.wheel, PALETTE.staticEdge, true);
  }
  for (const l of frame.links || []) drawLink(ctx, cam, l);
  for (const p of frame.particles || []) {
    const r = p.radius > 0 ? p.radius : 2 / cam.zoom;
    circle(ctx, cam, p.position, r, PALETTE.particle, p.pinned ? PALETTE.text : PALETTE.particle, true);
  }
  for (const b of frame.bodies || []) {
    if (debug.aabbs) {
      const box = { lx: Infinity, ly: Infinity, ux: -Infinity, uy: -Infinity };
      for (const sh of b.shapes) shapeBounds(sh, b.position, b.angle, box);
      path(ctx, cam, [{ x: box.lx, y: box.ly }, { x: box.ux, y: box.ly }, { x: box.ux, y: box.uy }, { x: box.lx, y: box.uy }]);
      fillStroke(ctx, null, PALETTE.aabb, false);
    }
    if (debug.velocities && b.velocity) {
      segment(ctx, cam, b.position, { x: b.position.x + 0.25 * b.velocity.x, y: b.position.y + 0.25 * b.velocity.y }, PALETTE.velocity);
    }
    if (debug.corrections && b.own && frame.correction) {
      // Where the prediction has the avatar now, and the correction still being faded out.
      const sim = { x: b.position.x - frame.correction.x, y: b.position.y - frame.correction.y };
      for (const sh of b.shapes) drawShape(ctx, cam, sh, sim, b.angle, null, PALETTE.correction, false);
      segment(ctx, cam, sim, b.position, PALETTE.correction);
    }
  }
}

/**
 * A box of text lines at (x, y): [{ text, colour }]. Returns its height in pixels.
 */
export function drawTextBox(ctx, x, y, lines) {
  if (!lines.length) return 0;
  ctx.font = "13px monospace";
  const lh = 17, pad = 6;
  const w = Math.max(...lines.map((l) => ctx.measureText(l.text).width)) + 2 * pad;
  const h = lines.length * lh + 2 * pad - 4;
  ctx.fillStyle = "rgba(10, 12, 16, 0.78)";
  ctx.fillRect(x, y, w, h);
  ctx.textBaseline = "top";
  lines.forEach((l, i) => {
    ctx.fillStyle = l.colour || PALETTE.text;
    ctx.fillText(l.text, x + pad, y + pad + i * lh);
  });
  return h;
}

/** The live overlay's lines from a client's stats() (round trip, snapshots/s, kbit/s, corrections). */
export function statsLines(stats) {
  const L = (text, colour) => ({ text, colour });
  return [
    L(`round trip   ${(stats.rtt * 1000).toFixed(1)} ms`),
    L(`snapshots/s  ${stats.snapshotsPerSecond.toFixed(1)}  (${stats.snapshotsReceived}/${stats.snapshotsExpected}, loss ${(stats.packetLoss * 100).toFixed(1)} %)`),
    L(`kbit/s       in ${stats.kbitInPerSecond.toFixed(1)}  out ${stats.kbitOutPerSecond.toFixed(1)}`),
    L(`interp delay ${(stats.interpDelay * 1000).toFixed(0)} ms  buffer ${stats.bufferDepth}`),
    L(`entities     ${stats.entityCount}`),
    L(
      `prediction   ${stats.predicting ? "on" : "off"}  checks ${stats.predictChecks}  corrections ${stats.predictCorrections}`,
      stats.predictCorrections ? PALETTE.warn : PALETTE.textDim,
    ),
  ];
}
