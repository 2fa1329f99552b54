// A TCP proxy that delays each direction of every connection by DELAY ± JITTER ms,
// keeping the byte stream in order: one queue per direction, and a chunk is released no
// earlier than the chunk before it (a timer per chunk with jittered delays would reorder
// the stream). It adds latency at the application level only; loss, if any, comes from
// the IP layer below (bench/web/tcp_cost.sh drops packets with iptables).
//
// usage: node bench/web/delay_proxy.mjs LISTEN_HOST:PORT TARGET_HOST:PORT DELAY_MS JITTER_MS [SEED]
// Prints "listening on HOST:PORT" once bound (PORT 0 = ephemeral).
import net from "node:net";

import { xorshift32 } from "./xorshift32.mjs";

function usage(msg) {
  if (msg) process.stderr.write(`delay_proxy: ${msg}\n`);
  process.stderr.write(
      "usage: node delay_proxy.mjs LISTEN_HOST:PORT TARGET_HOST:PORT DELAY_MS JITTER_MS [SEED]\n");
  process.exit(2);
}
function hostPort(text) {
  const i = text.lastIndexOf(":");
  const port = Number(text.slice(i + 1));
  if (i <= 0 || !Number.isInteger(port) || port < 0 || port > 65535) usage(`bad address '${text}'`);
  return { host: text.slice(0, i), port };
}
if (process.argv.includes("--help")) usage();
if (process.argv.length < 6) usage("missing arguments");
const listen = hostPort(process.argv[2]);
const target = hostPort(process.argv[3]);
const delay = Number(process.argv[4]);
const jitter = Number(process.argv[5]);
if (!(delay >= 0) || !(jitter >= 0) || jitter > delay) usage("need 0 <= JITTER_MS <= DELAY_MS");

// xorshift32: the same seed gives the same delays for the same traffic.
const uniform = xorshift32(process.argv[6] ?? 1);

// One direction: chunks wait in a FIFO until their release time.
function pipe(from, to) {
  const queue = [];
  let last = 0;
  let timer = null;
  const pump = () => {
    timer = null;
    const now = performance.now();
    while (queue.length > 0 && queue[0].at <= now) to.write(queue.shift().data);
    if (queue.length > 0) timer = setTimeout(pump, Math.max(0, queue[0].at - now));
  };
  from.on("data", (data) => {
    const at = Math.max(last, performance.now() + delay + (uniform() * 2 - 1) * jitter);
    last = at;
    queue.push({ at, data });
    if (timer === null) timer = setTimeout(pump, Math.max(0, at - performance.now()));
  });
  // The end of the stream travels behind the data, with the same delay.
  from.on("end", () => {
    const at = Math.max(last, performance.now() + delay);
    setTimeout(() => to.end(), Math.max(0, at - performance.now()) + 1);
  });
}

const server = net.createServer((client) => {
  const upstream = net.connect(target.port, target.host);
  client.setNoDelay(true);
  upstream.setNoDelay(true);
  pipe(client, upstream);
  pipe(upstream, client);
  const drop = () => { client.destroy(); upstream.destroy(); };
  client.on("error", drop);
  upstream.on("error", drop);
  // A reset travels at once (there is no in-order data to keep behind it).
  client.on("close", (hadError) => { if (hadError) upstream.destroy(); });
  upstream.on("close", (hadError) => { if (hadError) client.destroy(); });
});
server.listen(listen.port, listen.host, () => {
  const a = server.address();
  process.stdout.write(`listening on ${a.address}:${a.port}\n`);
});
