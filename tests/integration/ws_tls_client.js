// A session over wss:// (through test_server_ws_tls.sh's nginx) with Node's ws package and
// a self-signed certificate accepted (rejectUnauthorized: false): the arbiter subprotocol,
// welcome, snapshots, and the close 1000 echoed. Exits 0 when every check passed.
'use strict';
const path = require('path');
const [modules, url] = process.argv.slice(2);
const WebSocket = require(path.join(modules, 'ws'));

let failed = 0;
function check(ok, what) {
  if (!ok) failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
}

const ws = new WebSocket(url, 'arbiter', {rejectUnauthorized: false});
const seen = {};
let closeCode = null;
ws.on('message', (d, isBinary) => {
  if (isBinary && (d[0] & 0xf0) === 0x90) seen[d[1]] = (seen[d[1]] || 0) + 1;
});
ws.on('error', (e) => {
  check(false, `error: ${e.message}`);
  process.exit(1);
});
ws.on('open', () => {
  check(ws.protocol === 'arbiter', 'the arbiter subprotocol through the proxy');
  ws.send(Buffer.from('960102a3746c73c4000000', 'hex'));  // hello "tls"
  setTimeout(() => {
    check(seen[2] === 1, 'welcomed');
    check((seen[10] || 0) >= 20, `snapshots over wss: ${seen[10] || 0} in 1 s`);
    ws.close(1000);
  }, 1000);
});
ws.on('close', (code) => {
  closeCode = code;
  check(closeCode === 1000, `close 1000 echoed through the proxy (got ${closeCode})`);
  process.exit(failed ? 1 : 0);
});
setTimeout(() => {
  check(false, 'timed out');
  process.exit(1);
}, 8000);
