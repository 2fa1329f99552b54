// A WebSocket client of the npm package follows a match that moves between servers
// (docs/SCALING.md, "Moving a match"; PROTOCOL.md §4.5, event `moved`), from Node.
//
//   node test/migrate.test.js ARBITER-SERVER ARBITER-BOT
//
// Three servers with WebSocket ports on 127.0.0.1: A holds the match (the package's client
// over WebSocket and a native arbiter-bot over ENet), B and C are empty with a
// --migrate-port. The match moves A -> B with the WebSocket clients' URL named in the
// request (?ws=, percent-encoded), then B -> C without it (C's own ws port, which C reports
// to B). After each move the package's client is on the new server with the same client
// id and avatar, predicting again; the bot followed over ENet; the servers' logs say who
// rejoined. First a move nobody can follow: both come back to A, which resumes.
import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {loadArbiter} from '../lib/arbiter.js';
import {programs, pumper, sleep, track} from './live_util.js';

const [serverExe, botExe] = programs('migrate.test.js', 'ARBITER-SERVER ARBITER-BOT');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-web-migrate-'));
const adminToken = 'web-client-migrate-test-token-0123';
const tokenFile = path.join(work, 'admin-token');
fs.writeFileSync(tokenFile, adminToken + '\n');

// A server on ephemeral ports, with its log kept for the events it names.
function startServer(name, extra) {
  const srv = spawn(
      serverExe,
      [
        '--port', '0', '--bind', '127.0.0.1', '--http-port', '-1', '--ws-port', '-1',
        '--admin-token', tokenFile, ...extra
      ],
      {stdio: ['ignore', 'ignore', 'pipe']});
  track(srv);
  const s = {name, srv, log: ''};
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${s.log}`)), 10000);
    srv.stderr.on('data', (d) => {
      s.log += d;
      const line = s.log.split('\n').find((l) => l.includes('server_started'));
      if (!line || s.port) return;
      const num = (key) => Number((line.match(new RegExp(`\\b${key}=(\\d+)`)) || [])[1]);
      Object.assign(s, {
        port: num('port'),
        wsPort: num('ws_port'),
        httpPort: num('http_port'),
        migratePort: num('migrate_port')
      });
      clearTimeout(timer);
      resolve(s);
    });
    srv.on('exit', (code) => reject(new Error(`${name} exited (${code}):\n${s.log}`)));
  });
}
const count = (s, event) => s.log.split('\n').filter((l) => l.includes(` ${event} `)).length;

const a = await startServer('A', []);
const b = await startServer('B', ['--migrate-port', '-1']);
const c = await startServer('C', ['--migrate-port', '-1']);
console.log(
    `A ws ${a.wsPort}; B ws ${b.wsPort}, migrate ${b.migratePort}; ` +
    `C ws ${c.wsPort}, migrate ${c.migratePort}`);

const bot = spawn(
    botExe,
    [
      '--host', '127.0.0.1', '--port', String(a.port), '--clients', '1', '--duration', '18',
      '--behaviour', 'random', '--per-client'
    ],
    {stdio: ['ignore', 'pipe', 'ignore']});
track(bot);
let botOut = '';
bot.stdout.on('data', (d) => (botOut += d));
const botDone = new Promise((resolve) => bot.on('exit', (code) => resolve(code)));

const arbiter = await loadArbiter();
const opened = [];
const hostOpen = arbiter.host.open.bind(arbiter.host);
arbiter.host.open = (net, url) => {
  opened.push(url);
  return hostOpen(net, url);
};
const client = arbiter.connect(`ws://127.0.0.1:${a.wsPort}/`, {name: 'webmove'});
const events = [];
const pump = pumper(client, events);
const own = () => client.sample().bodies.find((x) => x.own);
const predicting = async () => {
  for (let i = 0; i < 250 && !(own() && own().predicted); i++) await pump(20);
  return own() && own().predicted;
};

assert.ok(await predicting(), `not welcomed and predicting: ${client.lastError()}`);
const session = client.session();
console.log(`welcomed by A: client ${session.clientId}, avatar ${session.avatarEntity}`);
client.setControls({moveX: 1});
await pump(1500);

// The operator asks `from` to move the match to `to`'s migrate port (`rest`: the clients'
// addresses, path and query); then the client is told `moved` and must be welcomed again
// within waitMs, wherever, as the same client with the same avatar, and predict again.
// Returns the welcome's delay after the request, in ms.
async function requestMove(from, to, rest, waitMs) {
  events.length = 0;
  const res = await fetch(
      `http://127.0.0.1:${from.httpPort}/admin/migrate/127.0.0.1:${to.migratePort}${rest}`,
      {method: 'POST', headers: {Authorization: `Bearer ${adminToken}`}});
  assert.equal(res.status, 202, await res.text());
  const t0 = performance.now();
  for (let i = 0; i < waitMs / 5 && !events.some((e) => e.type === 'connected'); i++)
    await pump(5);
  const welcomedMs = performance.now() - t0;
  const gone = events.find((e) => e.type === 'disconnected');
  const back = events.find((e) => e.type === 'connected');
  assert.ok(gone && gone.willReconnect && /moved/.test(gone.text), JSON.stringify(events));
  assert.ok(back, `not reconnected: ${JSON.stringify(events)} ${client.lastError()}`);
  assert.equal(back.clientId, session.clientId, `the same client:\n${from.log}`);
  assert.equal(back.entityId, session.avatarEntity, 'the same avatar');
  assert.ok(await predicting(), 'predicting again');
  return welcomedMs;
}

// One move: the operator's request to `from`, the client follows to `to`.
async function move(from, to, query) {
  const received = client.stats().snapshotsReceived;
  const welcomedMs = await requestMove(from, to, query, 1250);
  const before = client.stats().snapshotsReceived;
  await pump(500);
  assert.ok(client.stats().snapshotsReceived > before, 'snapshots from the new server');
  console.log(
      `${from.name} -> ${to.name}${query ? ` (${query})` : ''}: opened ${opened.at(-1)}, ` +
      `welcomed back ${welcomedMs.toFixed(0)} ms after the request as client ` +
      `${session.clientId}, avatar ${session.avatarEntity}; ` +
      `${client.stats().snapshotsReceived - received} ` +
      'snapshots since the request');
  assert.equal(opened.at(-1), `ws://127.0.0.1:${to.wsPort}/`);
}

// A move nobody can follow (both client addresses lead nowhere): A calls it off 1.5 s after
// `moved` and resumes, B drops what it restored, and 3 s after `moved` the clients, not
// welcomed anywhere, come back to A with their rejoin tokens (PROTOCOL.md §4.5).
async function moveNowhere(from, to) {
  const dead = '127.0.0.1:1';
  const backMs =
      await requestMove(from, to, `/${dead}?ws=${encodeURIComponent(`ws://${dead}/`)}`, 8000);
  assert.ok(opened.includes(`ws://${dead}/`), 'tried the new server first');
  assert.equal(opened.at(-1), `ws://127.0.0.1:${from.wsPort}/`);
  console.log(
      `${from.name} -> nowhere: back on ${from.name}, the same client and avatar, ` +
      `${backMs.toFixed(0)} ms after the request`);
}

// A server holds an avatar for a rejoin only after 2 s of play (docs/SERVER.md).
await pump(1000);
await moveNowhere(a, b);
await pump(1000);
const reconnectsBefore = client.stats().reconnects;

// A -> B: the URL named by the operator (percent-encoded in the query).
await move(a, b, `?ws=${encodeURIComponent(`ws://127.0.0.1:${b.wsPort}/`)}`);
await pump(1500);
// B -> C: no URL named; C's WebSocket port, as C reported it to B.
await move(b, c, '');
await pump(500);

for (const s of [a, b]) {
  const code = s.srv.exitCode ??
      (await Promise.race(
          [new Promise((r) => s.srv.on('exit', r)), sleep(5000).then(() => 'running')]));
  assert.equal(code, 0, `${s.name} stops after handing the match on:\n${s.log}`);
}
assert.equal(count(b, 'client_rejoined'), 2, b.log);
assert.equal(count(c, 'client_rejoined'), 2, c.log);
assert.ok(/ws_clients_to="?ws:\/\/127\.0\.0\.1/.test(a.log), 'A names the URL it sent');
assert.equal(client.stats().decodeErrors, 0);
assert.equal(client.stats().reconnects - reconnectsBefore, 2);
assert.equal(count(a, 'migrate_cancelled'), 1, a.log);

const closed = await client.close();
assert.equal(closed.code, 1000);
const botCode = await botDone;
const summary = JSON.parse(botOut);
assert.equal(botCode, 0, botOut);
assert.ok(summary.per_client[0].reconnects >= 4,
          'the ENet bot went to nowhere and back, then followed both moves');
c.srv.kill('SIGTERM');
assert.equal(await new Promise((r) => c.srv.on('exit', r)), 0);
fs.rmSync(work, {recursive: true, force: true});
console.log('migrate.test.js: all checks passed');
