// N headless clients of arbiter-server over WebSocket, in one Node process, through the
// npm package (client/web): the load and measurement counterpart of arbiter-bot for the
// WebSocket transport. Every client is the C client library in WebAssembly.
//
// usage: node bench/web/ws_bots.mjs --url ws://HOST:PORT [--clients N] [--duration S]
//          [--behaviour random|toggle|idle] [--seed X] [--no-interp] [--pump-ms MS]
//   random  a new random direction every 0.5-1.5 s (as arbiter-bot's)
//   toggle  right 1 s, stand 1 s, left 1 s, stand 1 s, ... (confirmed-motion samples)
// Progress goes to stderr once a second; a JSON summary to stdout at the end:
// per-client snapshot ratio (received against the snapshot rate since each client's
// first snapshot), kbit/s in and out per client, input-to-confirmed-motion p50/p95 (toggle:
// from the setControls that starts a move to the first snapshot in which the server's
// avatar moves that way, as arbiter-bot --behaviour toggle measures it), the worst stall
// (the longest time between two complete snapshots seen by any client), RTT p50/p99, and
// the clients still connected at the end. With prediction the own avatar moves on screen
// at once whatever the link; the confirmed motion is what the link costs.
import { loadArbiter } from "../../client/web/lib/arbiter.js";
import { xorshift32 } from "./xorshift32.mjs";

const args = process.argv.slice(2);
function flag(name, fallback) {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  if (i + 1 >= args.length) usage(`${name} needs a value`);
  return args[i + 1];
}
function usage(msg) {
  if (msg) process.stderr.write(`ws_bots: ${msg}\n`);
  process.stderr.write("usage: node ws_bots.mjs --url ws://HOST:PORT [--clients N] [--duration S]\n" +
                       "         [--behaviour random|toggle|idle] [--seed X] [--no-interp] [--pump-ms MS]\n");
  process.exit(2);
}
if (args.includes("--help")) usage();
const url = flag("--url");
if (!url) usage("--url is required");
const clients = Number(flag("--clients", "1"));
const duration = Number(flag("--duration", "10"));
const behaviour = flag("--behaviour", "random");
const pumpMs = Number(flag("--pump-ms", "8"));
const uniform = xorshift32(flag("--seed", "1"));
const interp = !args.includes("--no-interp");
if (!(clients >= 1 && clients <= 4000)) usage("--clients must be 1..4000");
if (!(duration > 0)) usage("--duration must be > 0");
if (!["random", "toggle", "idle"].includes(behaviour)) usage(`unknown behaviour '${behaviour}'`);

function quantile(sorted, q) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const arbiter = await loadArbiter();
const start = performance.now();
const bots = [];
for (let i = 0; i < clients; ++i) {
  const client = arbiter.connect(url, { name: `ws-bot-${i}`, interpolate: interp, predict: interp });
  bots.push({ client, nextTurn: 0, seenSnapshots: 0, lastSnapshotMs: 0,
              firstSnapshotMs: 0, worstStallMs: 0, step: 0, dir: 0, moveSince: 0, moveTick: 0, confirmMs: [],
              failed: "" });
}

function steer(b, now) {
  if (behaviour === "idle" || now < b.nextTurn) return;
  if (behaviour === "random") {
    const a = uniform() * 2 * Math.PI;
    b.client.setControls({ moveX: Math.cos(a), moveY: Math.sin(a) });
    b.nextTurn = now + 500 + uniform() * 1000;
  } else {
    // Right 1 s, stand 1 s, left 1 s, stand 1 s (as arbiter-bot's toggle).
    b.dir = [1, 0, -1, 0][b.step++ % 4];
    b.client.setControls({ moveX: b.dir });
    b.nextTurn = now + 1000;
    // Confirmed when a snapshot after this one shows the server's avatar moving that way.
    b.moveSince = b.dir !== 0 ? now : 0;
    b.moveTick = b.client.stats().snapshotsReceived > 0 ? newestCheckTick(b.client) : 0;
  }
}

function newestCheckTick(client) {
  const checks = client.predictionChecks();
  return checks.length > 0 ? checks[checks.length - 1].tick : 0;
}

// The server's avatar state comes with every prediction check (one per snapshot).
function watchConfirm(b, now) {
  if (b.moveSince === 0) return;
  for (const c of b.client.predictionChecks()) {
    if (c.tick > b.moveTick && c.server.vx * b.dir > 0) {
      b.confirmMs.push(now - b.moveSince);
      b.moveSince = 0;
      return;
    }
  }
}

function pump() {
  const now = performance.now();
  for (const b of bots) {
    b.client.update(now);
    for (const ev of b.client.events()) {
      if (ev.type === "rejected") b.failed = `rejected: ${ev.text}`;
    }
    const st = b.client.stats();
    if (st.snapshotsReceived !== b.seenSnapshots) {
      if (b.lastSnapshotMs > 0) b.worstStallMs = Math.max(b.worstStallMs, now - b.lastSnapshotMs);
      else b.firstSnapshotMs = now;
      b.seenSnapshots = st.snapshotsReceived;
      b.lastSnapshotMs = now;
    }
    watchConfirm(b, now);
    if (b.client.state() === "connected") steer(b, now);
  }
}

let lastReport = start, lastIn = 0, lastOut = 0, lastSnaps = 0;
function report(now) {
  let connected = 0, bytesIn = 0, bytesOut = 0, snaps = 0;
  const rtts = [];
  for (const b of bots) {
    const st = b.client.stats();
    if (b.client.state() === "connected") { connected++; rtts.push(st.rtt * 1000); }
    bytesIn += st.bytesIn; bytesOut += st.bytesOut; snaps += st.snapshotsReceived;
  }
  rtts.sort((x, y) => x - y);
  const dt = (now - lastReport) / 1000;
  process.stderr.write(`[${((now - start) / 1000).toFixed(0)}s] connected=${connected} ` +
                       `snapshots/s=${((snaps - lastSnaps) / dt).toFixed(0)} ` +
                       `kbit/s in=${((bytesIn - lastIn) * 8 / 1000 / dt).toFixed(0)} ` +
                       `out=${((bytesOut - lastOut) * 8 / 1000 / dt).toFixed(0)} ` +
                       `rtt p50=${(quantile(rtts, 0.5) ?? 0).toFixed(1)}ms\n`);
  lastReport = now; lastIn = bytesIn; lastOut = bytesOut; lastSnaps = snaps;
}

const timer = setInterval(() => {
  pump();
  const now = performance.now();
  if (now - lastReport >= 1000) report(now);
}, pumpMs);
await new Promise((resolve) => setTimeout(resolve, duration * 1000));
clearInterval(timer);
pump();
const end = performance.now();

const perClient = bots.map((b) => {
  const st = b.client.stats();
  const s = b.client.session();
  const since = b.firstSnapshotMs > 0 ? (end - b.firstSnapshotMs) / 1000 : 0;
  const expected = Math.max(1, Math.floor(since * (s.snapshotRate || 0)));
  return { connected: b.client.state() === "connected", failed: b.failed,
           ratio: b.seenSnapshots === 0 ? 0 : Math.min(1, st.snapshotsReceived / expected),
           bytesIn: st.bytesIn, bytesOut: st.bytesOut, worstStallMs: b.worstStallMs,
           rttMs: st.rtt * 1000, confirmMs: b.confirmMs, corrections: st.predictCorrections };
});
const seconds = (end - start) / 1000;
const ratios = perClient.map((c) => c.ratio).sort((x, y) => x - y);
const confirm = perClient.flatMap((c) => c.confirmMs).sort((x, y) => x - y);
const rtts = perClient.filter((c) => c.connected).map((c) => c.rttMs).sort((x, y) => x - y);
const summary = {
  transport: "websocket",
  clients,
  seconds: Number(seconds.toFixed(2)),
  connected_at_end: perClient.filter((c) => c.connected).length,
  failed: perClient.filter((c) => c.failed).map((c) => c.failed),
  snapshot_ratio_min: ratios[0],
  snapshot_ratio_mean: ratios.reduce((a, x) => a + x, 0) / clients,
  kbit_in_per_client: perClient.reduce((a, c) => a + c.bytesIn, 0) * 8 / 1000 / seconds / clients,
  kbit_out_per_client: perClient.reduce((a, c) => a + c.bytesOut, 0) * 8 / 1000 / seconds / clients,
  confirm_samples: confirm.length,
  confirm_ms_p50: quantile(confirm, 0.5),
  confirm_ms_p95: quantile(confirm, 0.95),
  worst_stall_ms: Math.max(...perClient.map((c) => c.worstStallMs)),
  rtt_ms_p50: quantile(rtts, 0.5),
  rtt_ms_p99: quantile(rtts, 0.99),
  prediction_corrections: perClient.reduce((a, c) => a + c.corrections, 0),
};
await Promise.all(bots.map((b) => b.client.close()));
process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
process.exit(0);
