// The npm package against a live arbiter-server, from Node (no browser): the `ws` package
// is the WebSocket, the wasm module is dist/ (built by the arbiter_web target).
//
//   node test/live.test.js ARBITER-SERVER ARBITER-BOT [WEB-STREAM-REPLAY]
//
// Starts the server with a WebSocket port and two native arbiter-bots (ENet), connects one
// client through the package, and checks that it is welcomed, receives >= 95 % of the
// snapshots the server sent it, moves while a control is held and stays when none is, that
// its predicted avatar equals the server's avatar at the same ticks bit for bit (the
// library's own comparisons, both quantized as on the wire, checked field by field here),
// that it rejoins by itself after its connection is cut, that the bots saw it join and
// leave, and that it leaves with close 1000. With WEB-STREAM-REPLAY (test/stream_replay.c)
// the session up to the cut is recorded (every update, sample, control change and socket
// event, in order) and replayed through the native build of the client library: its
// prediction checks must be the module's, integer for integer.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadArbiter, SAMPLE_PREDICTED } from "../lib/arbiter.js";
import { programs, pumper, sleep, track } from "./live_util.js";

const [serverExe, botExe, replayExe] =
    programs("live.test.js", "ARBITER-SERVER ARBITER-BOT [WEB-STREAM-REPLAY]");

// The server, on ephemeral ports (its server_started log line names them), with the
// operator endpoints on (/admin/sessions counts the snapshots sent to each session).
const adminToken = "web-client-live-test-token";
const tokenFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "arbiter-web-")), "admin-token");
fs.writeFileSync(tokenFile, adminToken + "\n");
function startServer() {
  const srv = spawn(serverExe, ["--port", "0", "--bind", "127.0.0.1", "--http-port", "-1",
                                "--ws-port", "-1", "--admin-token", tokenFile],
                    { stdio: ["ignore", "ignore", "pipe"] });
  track(srv);
  let log = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 10000);
    srv.stderr.on("data", (d) => {
      log += d;
      const line = log.split("\n").find((l) => l.includes("server_started"));
      if (!line) return;
      const port = Number((line.match(/\bport=(\d+)/) || [])[1]);
      const wsPort = Number((line.match(/\bws_port=(\d+)/) || [])[1]);
      const httpPort = Number((line.match(/\bhttp_port=(\d+)/) || [])[1]);
      if (!(port > 0 && wsPort > 0 && httpPort > 0)) return;
      clearTimeout(timer);
      resolve({ srv, port, wsPort, httpPort, log: () => log });
    });
    srv.on("exit", (code) => reject(new Error(`server exited (${code}):\n${log}`)));
  });
}

function runBots(port, clients, seconds) {
  const bot = spawn(botExe, ["--host", "127.0.0.1", "--port", String(port), "--clients",
                             String(clients), "--duration", String(seconds), "--behaviour", "idle"],
                    { stdio: ["ignore", "pipe", "pipe"] });
  track(bot);
  let out = "", err = "";
  bot.stdout.on("data", (d) => (out += d));
  bot.stderr.on("data", (d) => (err += d));
  return new Promise((resolve) =>
    bot.on("exit", (code) => resolve({ code, summary: out ? JSON.parse(out) : null, err })));
}

const { srv, port, wsPort, httpPort } = await startServer();
console.log(`server: udp ${port}, ws ${wsPort}`);
const bots = runBots(port, 2, 16);
await sleep(1000);

const arbiter = await loadArbiter();
// The recording for WEB-STREAM-REPLAY: the sockets' events as they reach the module.
const stream = [];
const hostOpen = arbiter.host.open.bind(arbiter.host);
arbiter.host.open = (net, url) => {
  const id = hostOpen(net, url);
  const entry = arbiter.host.sockets.get(id);
  if (!entry) return id;
  const { onopen, onmessage, onclose } = entry.ws;
  entry.ws.onopen = (ev) => {
    if (entry.live) stream.push("O");
    onopen(ev);
  };
  entry.ws.onmessage = (ev) => {
    if (entry.live) stream.push(`M ${Buffer.from(ev.data).toString("base64")}`);
    onmessage(ev);
  };
  entry.ws.onclose = (ev) => {
    if (entry.live) stream.push(`C ${ev.code}`);
    onclose(ev);
  };
  return id;
};
const client = arbiter.connect(`ws://127.0.0.1:${wsPort}/`, { name: "webnode" });
const f32 = (x) => Math.fround(x || 0);
const seconds = (ms) => (ms / 1000).toPrecision(17);
for (const [name, record] of [
  ["update", (nowMs) => `U ${seconds(nowMs)}`],
  ["sample", (nowMs) => `S ${seconds(nowMs)}`],
  ["setControls", (c) => `K ${[c.moveX, c.moveY, c.aim].map((v) => f32(v).toPrecision(9)).join(" ")} ` +
                         `${(c.jump ? 1 : 0) | (c.fire ? 2 : 0) | (c.use ? 4 : 0)} ` +
                         `${[c.steer, c.throttle, c.brake].map((v) => f32(v).toPrecision(9)).join(" ")}`],
]) {
  const method = client[name].bind(client);
  client[name] = (arg = name === "setControls" ? {} : performance.now()) => {
    stream.push(record(arg));
    return method(arg);
  };
}
const events = [];
const allChecks = new Map(); // tick -> the library's comparison, gathered as the run goes
let checksAt = 0;
const pump = pumper(client, events, () => {
  if (performance.now() - checksAt > 500) {
    checksAt = performance.now();
    for (const c of client.predictionChecks()) allChecks.set(c.tick, c);
  }
});
const own = () => client.sample().bodies.find((b) => b.own);

// Welcomed, and the own avatar predicted.
for (let i = 0; i < 250 && !(own() && own().predicted); i++) await pump(20);
const connected = events.find((e) => e.type === "connected");
assert.ok(connected, `no welcome: ${JSON.stringify(events)} ${client.lastError()}`);
const session = client.session();
console.log(`welcomed: client ${session.clientId}, avatar ${session.avatarEntity}, scene ` +
            `${session.sceneName} (${session.sceneHash}), ${session.tickRate} Hz, ` +
            `${session.snapshotRate} snapshots/s`);
assert.ok(session.avatarEntity > 0);
assert.ok(own(), "the own avatar is in the frame");
assert.ok(own().flags & SAMPLE_PREDICTED, "the own avatar is predicted");

// The frame: the level and every body with its shapes.
const frame = client.sample();
assert.ok(frame.statics.length > 0, "the level's static bodies");
assert.ok(frame.bodies.length >= 3, "the avatars of the bots and ours");
for (const b of frame.bodies) assert.ok(b.shapes.length >= 1 && b.shapes[0].kind !== "none");
const kinds = new Set(frame.bodies.flatMap((b) => b.shapes.map((s) => s.kind)));
console.log(`frame: ${frame.bodies.length} bodies (${[...kinds].join(", ")}), ` +
            `${frame.statics.length} static pieces, tick ${frame.snapshotTick}`);

const ticksPerSnapshot = session.tickRate / session.snapshotRate;
const firstTick = client.sample().snapshotTick;
const firstReceived = client.stats().snapshotsReceived;

// At rest: no control, the avatar stays.
await pump(1000);
const restA = own().position;
await pump(1000);
const restB = own().position;
const restMove = Math.hypot(restB.x - restA.x, restB.y - restA.y);
console.log(`no control for 1 s: moved ${restMove.toFixed(4)} m`);
assert.ok(restMove < 0.01, "the avatar stays when no control is held");

// Held towards the side with more room (away from the nearest dynamic body on the
// avatar's level, so that it runs in free space for a while): it moves.
const me = own();
const others = client.sample().bodies.filter((b) => !b.own && b.bodyType === "dynamic" &&
                                                    Math.abs(b.position.y - me.position.y) < 1.5);
const room = (dir) => Math.min(40, ...others.map((b) => (b.position.x - me.position.x) * dir)
                                       .filter((d) => d > 0));
const dir = room(1) >= room(-1) ? 1 : -1;
client.setControls({ moveX: dir });
await pump(1000);
const held = own().position;
const moved = (held.x - restB.x) * dir;
console.log(`${dir > 0 ? "right" : "left"} held for 1 s (room ${room(dir).toFixed(1)} m): ` +
            `moved ${moved.toFixed(3)} m`);
assert.ok(moved > 0.5, "the avatar moves while a control is held");

// Released: it comes to rest and stays.
client.setControls({});
await pump(1500);
const stopA = own().position;
await pump(1000);
const stopB = own().position;
const stopMove = Math.hypot(stopB.x - stopA.x, stopB.y - stopA.y);
console.log(`released, then 1 s: moved ${stopMove.toFixed(4)} m`);
assert.ok(stopMove < 0.01, "the avatar stays after the control is released");

// Snapshots: received against what the server says it sent this session, and against
// what the snapshot ticks since the first one promise.
const sessions = await (await fetch(`http://127.0.0.1:${httpPort}/admin/sessions`, {
  headers: { Authorization: `Bearer ${adminToken}` },
})).json();
const mine = sessions.sessions.find((x) => x.client === session.clientId);
const stats = client.stats();
console.log(`server: session ${JSON.stringify(mine)}; received ${stats.snapshotsReceived} of the ` +
            `${mine && mine.snapshots_sent} snapshots it sent`);
assert.ok(mine, "the server lists the session");
assert.equal(mine.transport, "ws");
assert.ok(mine.snapshots_sent > 100);
assert.ok(stats.snapshotsReceived >= 0.95 * mine.snapshots_sent,
          `${stats.snapshotsReceived} of the ${mine.snapshots_sent} snapshots the server sent`);
const lastTick = client.sample().snapshotTick;
const expected = Math.floor((lastTick - firstTick) / ticksPerSnapshot) + 1;
const received = stats.snapshotsReceived - firstReceived + 1;
console.log(`snapshots: ${received} of ${expected} (${(received / expected * 100).toFixed(1)} %), ` +
            `${stats.snapshotsPerSecond.toFixed(1)}/s, rtt ${(stats.rtt * 1000).toFixed(2)} ms, ` +
            `in ${stats.kbitInPerSecond.toFixed(1)} kbit/s, out ${stats.kbitOutPerSecond.toFixed(1)} kbit/s, ` +
            `decode errors ${stats.decodeErrors}`);
assert.ok(received >= 0.95 * expected, "at least 95 % of the snapshots");
assert.equal(stats.decodeErrors, 0);

// Prediction: the library compared its predicted avatar with the server's at each
// snapshot's tick. Until the avatar first touches a body the client does not simulate
// exactly (another player, a box: it is then predicted approximately and corrected into
// the server's quantization cell, docs/CLIENT.md), both are the same integers.
for (const c of client.predictionChecks()) allChecks.set(c.tick, c);
const checks = [...allChecks.values()].sort((a, b) => a.tick - b.tick);
const firstTouch = checks.findIndex((c) => c.touching);
const free = firstTouch < 0 ? checks : checks.slice(0, firstTouch);
const fields = ["x", "y", "angle", "vx", "vy", "w"];
const differing = free.filter((c) => fields.some((f) => c.predicted[f] !== c.server[f]));
const moving = free.filter((c) => c.server.vx !== 0 || c.server.vy !== 0);
console.log(`prediction: ${stats.predictChecks} checks, ${stats.predictCorrections} corrections; ` +
            `${checks.length} seen, ${free.length} before the first contact with another body ` +
            `(${moving.length} of them moving): ${differing.length} differ`);
for (const c of checks.filter((k) => !k.agree).slice(0, 3)) console.log(`  differs: ${JSON.stringify(c)}`);
assert.ok(checks[0].tick <= firstTick + 2 * ticksPerSnapshot, "comparisons from the start");
assert.ok(free.length >= 60, "enough comparisons before any contact");
assert.ok(moving.length >= 15, "comparisons while moving (falling after the join, running)");
assert.equal(differing.length, 0, "the predicted avatar is the server's, bit for bit");
assert.ok(free.every((c) => c.agree));

// The same session through the native library: the same predictions.
if (replayExe) {
  const file = path.join(path.dirname(tokenFile), "stream");
  fs.writeFileSync(file, stream.join("\n") + "\n");
  const native = await new Promise((resolve, reject) => {
    const p = spawn(replayExe, [file], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`replay exited ${code}`))));
  });
  const line = (c) => [c.tick, c.agree ? 1 : 0, c.touching ? 1 : 0,
                       ...fields.map((f) => c.predicted[f]), ...fields.map((f) => c.server[f])]
                        .join(" ");
  for (const c of client.predictionChecks()) allChecks.set(c.tick, c);
  const wasm = [...allChecks.values()].sort((a, b) => a.tick - b.tick).map(line);
  const nat = native.trim().split("\n");
  console.log(`native replay of the recorded session (${stream.length} steps): ` +
              `${nat.length} checks, ${nat.filter((l, i) => l === wasm[i]).length} equal to the module's`);
  assert.ok(nat.length >= 100);
  assert.deepEqual(nat, wasm, "the native library predicts what the module predicted");
}

// A lost connection (the TCP stream ends without a close frame): the library reconnects
// by itself and rejoins with the server's rejoin token: the same client and avatar.
events.length = 0;
for (const entry of arbiter.host.sockets.values()) entry.ws.terminate();
for (let i = 0; i < 150 && !events.some((e) => e.type === "connected"); i++) await pump(20);
const lost = events.find((e) => e.type === "disconnected");
const back = events.find((e) => e.type === "connected");
console.log(`link lost: ${JSON.stringify(lost)}; back: client ${back && back.clientId}, ` +
            `avatar ${back && back.entityId}`);
assert.ok(lost && lost.willReconnect && lost.closeCode === 1006, "the loss is reported");
assert.ok(back, "reconnected");
assert.equal(back.clientId, session.clientId, "rejoined as the same client");
assert.equal(back.entityId, session.avatarEntity, "with the same avatar");
for (let i = 0; i < 100 && !(own() && own().predicted); i++) await pump(20);
assert.ok(own() && own().predicted, "predicting again");
assert.equal(client.stats().reconnects, 1);

// Leaving: close 1000.
const closed = await client.close();
console.log(`closed: ${JSON.stringify(closed)}`);
assert.equal(closed.code, 1000);
assert.equal(closed.wasClean, true);

// The bots saw it join and leave.
const botRun = await bots;
assert.equal(botRun.code, 0, botRun.err);
const seen = (botRun.summary.players_seen || []).find((p) => p.name === "webnode");
console.log(`bots: ${JSON.stringify(seen)}, their snapshot ratio ${botRun.summary.snapshot_ratio}`);
assert.ok(seen, "the bots saw it join");
assert.equal(seen.client_id, session.clientId);
assert.ok(seen.left, "the bots saw it leave");

srv.kill("SIGTERM");
const code = await new Promise((r) => srv.on("exit", (c) => r(c)));
assert.equal(code, 0, "the server stops cleanly");
fs.rmSync(path.dirname(tokenFile), { recursive: true, force: true });
console.log("live.test.js: all checks passed");
