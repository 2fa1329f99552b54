// arbiter-server over WebSocket with Node's `ws` package, an RFC 6455 implementation
// independent of the server's: the upgrade with the `arbiter` subprotocol, hello ->
// welcome -> scene -> snapshots, inputs acknowledged, arbiter's ping answered by its
// pong, and the client's close 1000 echoed. The messages are msgpack written by hand
// (PROTOCOL.md §2, §4). Exits 0 when every check passed, 1 otherwise.
'use strict';
const {spawn} = require('child_process');
const path = require('path');
const [server, modules] = process.argv.slice(2);
const WebSocket = require(path.join(modules, 'ws'));

const checks = [];
function check(ok, what) {
  checks.push([ok, what]);
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
}

function startServer() {
  return new Promise((resolve, reject) => {
    const p = spawn(
        server, ['--port', '0', '--http-port', '0', '--ws-port', '-1', '--log-format', 'json'],
        {stdio: ['ignore', 'ignore', 'pipe']});
    let buf = '';
    const timer = setTimeout(() => reject(new Error('no server_started within 10 s')), 10000);
    p.stderr.on('data', (d) => {
      buf += d;
      for (const line of buf.split('\n')) {
        if (!line.includes('"server_started"')) continue;
        clearTimeout(timer);
        resolve({p, port: JSON.parse(line).ws_port});
      }
    });
    p.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
}

// [1, 2, "node", bin(0), avatar 0, kbps 0]
const hello = Buffer.from('960102a46e6f6465c4000000', 'hex');
// [7, 42, t] with t a uint64
function ping(t) {
  const b = Buffer.alloc(12);
  b.set([0x93, 0x07, 0x2a, 0xcf]);
  b.writeBigUInt64BE(t, 4);
  return b;
}
// [4, packet_seq, ack_tick, []]: an input without commands (an acknowledgement)
function ack(seq, tick) {
  return Buffer.from([
    0x94, 0x04, 0xce, 0, 0, 0, seq & 0xff, 0xce, (tick >>> 24) & 0xff, (tick >>> 16) & 0xff,
    (tick >>> 8) & 0xff, tick & 0xff, 0x90
  ]);
}
// The uint at b[i] (positive fixint, uint8/16/32/64; msgpack's shortest form varies with
// the value): [value as a BigInt, next index].
function uint(b, i) {
  const t = b[i];
  if (t < 0x80) return [BigInt(t), i + 1];
  if (t === 0xcc) return [BigInt(b[i + 1]), i + 2];
  if (t === 0xcd) return [BigInt(b.readUInt16BE(i + 1)), i + 3];
  if (t === 0xce) return [BigInt(b.readUInt32BE(i + 1)), i + 5];
  if (t === 0xcf) return [b.readBigUInt64BE(i + 1), i + 9];
  throw new Error(`not a uint: ${t.toString(16)}`);
}

async function main() {
  const {p, port} = await startServer();
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`, 'arbiter');
  const seen = {};
  let lastTick = 0;
  let pong = null;
  let closeCode = null;
  ws.on('message', (d, isBinary) => {
    if (!isBinary || (d[0] & 0xf0) !== 0x90) return;
    const type = d[1];
    seen[type] = (seen[type] || 0) + 1;
    if (type === 10) lastTick = Number(uint(d, 2)[0]);  // snapshot: [10, tick, ...]
    if (type === 8) pong = d;
  });
  const closed = new Promise((resolve) => ws.on('close', (code) => {
    closeCode = code;
    resolve();
  }));
  await new Promise((resolve, reject) => {
    ws.on('open', resolve);
    ws.on('error', reject);
  });
  check(ws.protocol === 'arbiter', 'the server selected the arbiter subprotocol');
  ws.send(hello);
  let seq = 0;
  const acks = setInterval(() => {
    if (lastTick) ws.send(ack(++seq, lastTick));
  }, 33);
  await new Promise((r) => setTimeout(r, 1500));
  ws.send(ping(123456789n));
  await new Promise((r) => setTimeout(r, 300));
  clearInterval(acks);
  check(seen[2] === 1, 'one welcome');
  check(seen[9] === 1, 'one scene');
  check((seen[6] || 0) >= 1, 'the rejoin event');
  check((seen[10] || 0) >= 35, `snapshots received: ${seen[10] || 0} in 1.8 s`);
  let id = -1n, time = -1n;
  if (pong !== null) {
    const [v, next] = uint(pong, 2);  // [8, ping_id, client_time_us, ...]
    id = v;
    time = uint(pong, next)[0];
  }
  check(id === 42n && time === 123456789n, `pong echoes the ping id and time (${id}, ${time})`);
  ws.close(1000);
  await Promise.race([closed, new Promise((r) => setTimeout(r, 3000))]);
  check(closeCode === 1000, `close 1000 echoed (got ${closeCode})`);
  p.kill('SIGTERM');
  const code = await new Promise((r) => p.on('exit', r));
  check(code === 0, `server exited cleanly (${code})`);
  const failed = checks.filter(([ok]) => !ok).length;
  console.log(`${checks.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
main().catch((e) => {
  console.log(`FAIL ${e.message}`);
  process.exit(1);
});
