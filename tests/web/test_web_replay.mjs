// The replay page in headless Chromium (docs/WEB.md): arbiter-server serves the web
// bundle, the page opens each committed .arbrec through its file picker, plays it at 8x
// (the ']' key) and must re-simulate every tick with the recorded hash, ending at the
// tick arbiter-replay verifies natively; seeks (Home, a backward seek, '.' stepping) land
// on ticks whose hash matches; a copy of a log with one tick's recorded hash falsified
// (its record's checksum recomputed, so only the hash is wrong) reports a mismatch at
// exactly that tick; the canvas shows the world (pixels not of the background colour).
//   node test_web_replay.mjs ARBITER_SERVER ARBITER_REPLAY WEB_BUNDLE LOG...
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { check, countNonBackground, finish, launch, loadPlaywright, skip, startServer, stop } from "./browser_util.mjs";

const [serverBin, replayBin, bundle, ...logs] = process.argv.slice(2);
if (!serverBin || !bundle || !logs.length) {
  console.log("usage: test_web_replay.mjs ARBITER_SERVER ARBITER_REPLAY WEB_BUNDLE LOG...");
  process.exit(2);
}
if (!existsSync(path.join(bundle, "dist/arbiter_web.wasm")))
  skip(`no WebAssembly module in ${bundle}/dist (emcc missing when it was built: scripts/install-deps.sh --matrix)`);
const pw = loadPlaywright();

// XXH32 (seed 0), as the replay log's record checksums use it.
function xxh32(buf) {
  const P1 = 2654435761, P2 = 2246822519, P3 = 3266489917, P4 = 668265263, P5 = 374761393;
  const rotl = (x, r) => (x << r) | (x >>> (32 - r));
  const u32 = (i) => buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24);
  let i = 0, h;
  const n = buf.length;
  if (n >= 16) {
    let v1 = (P1 + P2) | 0, v2 = P2 | 0, v3 = 0, v4 = -P1 | 0;
    const round = (v, x) => Math.imul(rotl((v + Math.imul(x, P2)) | 0, 13), P1);
    for (; i + 16 <= n; i += 16) {
      v1 = round(v1, u32(i));
      v2 = round(v2, u32(i + 4));
      v3 = round(v3, u32(i + 8));
      v4 = round(v4, u32(i + 12));
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else h = P5 | 0;
  h = (h + n) | 0;
  for (; i + 4 <= n; i += 4) h = Math.imul(rotl((h + Math.imul(u32(i), P3)) | 0, 17), P4);
  for (; i < n; i++) h = Math.imul(rotl((h + Math.imul(buf[i], P5)) | 0, 11), P1);
  h = Math.imul(h ^ (h >>> 15), P2);
  h = Math.imul(h ^ (h >>> 13), P3);
  return (h ^ (h >>> 16)) >>> 0;
}

// A msgpack unsigned integer at body[i]: [value, next i].
function mpUint(b, i) {
  const t = b[i];
  if (t <= 0x7f) return [t, i + 1];
  const dv = new DataView(b.buffer, b.byteOffset);
  if (t === 0xcc) return [b[i + 1], i + 2];
  if (t === 0xcd) return [dv.getUint16(i + 1), i + 3];
  if (t === 0xce) return [dv.getUint32(i + 1), i + 5];
  if (t === 0xcf) return [Number(dv.getBigUint64(i + 1)), i + 9];
  throw new Error(`msgpack: no unsigned integer at ${i} (0x${t.toString(16)})`);
}

// A copy of the log with the recorded world hash of tick `tick` changed in its lowest
// bit (the last byte of the tick record's body) and the record's XXH32 recomputed.
function falsifyHash(bytes, tick) {
  const b = new Uint8Array(bytes);
  const dv = new DataView(b.buffer);
  let off = 8;  // after the magic
  while (off + 12 <= b.length) {
    const len = dv.getUint32(off, true), kind = b[off + 4];
    const body = off + 8;
    if (kind === 2) {  // a tick record: [tick, ..., world_hash]
      let i = body;
      i += b[i] >= 0x90 && b[i] <= 0x9f ? 1 : b[i] === 0xdc ? 3 : 5;
      const [t] = mpUint(b, i);
      if (t === tick) {
        b[body + len - 1] ^= 1;
        dv.setUint32(body + len, xxh32(b.subarray(off, body + len)), true);
        return b;
      }
    }
    off = body + len + 4;
  }
  throw new Error(`tick ${tick} not found`);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "arb-web-replay-"));
const server = await startServer(serverBin, ["--web-root", bundle]);
const browser = await launch(pw);
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`http://127.0.0.1:${server.httpPort}/?mode=replay`);
  const state = () => page.evaluate(() => window.arbiter.state.replay);
  const open = async (file) => {
    await page.setInputFiles("#replay-file", file);
    await page.waitForFunction((name) => {
      const r = window.arbiter.state.replay;
      return r && (r.error !== undefined) && (r.name === name || r.loaded === false);
    }, path.basename(file), { timeout: 20000 });
  };

  for (const log of logs) {
    const name = path.basename(log);
    // The native verifier's figure for the same log.
    let nativeTicks = null;
    if (replayBin && existsSync(replayBin)) {
      const out = execFileSync(replayBin, ["verify", log, "--quiet"], { encoding: "utf8" });
      const m = out.match(/(\d+) ticks verified/);
      nativeTicks = m ? Number(m[1]) : null;
    }
    await open(log);
    await page.focus("#view");
    for (let k = 0; k < 3; k++) await page.keyboard.press("BracketRight");  // 1x -> 8x
    const t0 = Date.now();
    await page.waitForFunction(() => {
      const r = window.arbiter.state.replay;
      return r.ended || r.error || r.mismatches > 0;
    }, null, { timeout: 120000, polling: 100 });
    const s = await state();
    const secs = (Date.now() - t0) / 1000;
    console.log(`${name}: tick ${s.tick}/${s.ticks}, ${s.checked} checked, ${s.mismatches} mismatches, ${s.speed}x, ${secs.toFixed(1)} s; ${s.logEnd}`);
    check(`${name}: speed 8x from the ] key`, s.speed === 8, `${s.speed}`);
    check(`${name}: verified`, s.verified && s.mismatches === 0 && s.error === "", JSON.stringify(s));
    check(`${name}: every tick checked`, s.checked === s.ticks && s.tick === s.ticks, `${s.checked} of ${s.ticks}`);
    if (nativeTicks !== null) check(`${name}: same ticks as arbiter-replay verify`, s.ticks === nativeTicks, `${s.ticks} vs ${nativeTicks}`);
    check(`${name}: the status says so`, (await page.textContent("#status")).includes(`hash matches the recording (${s.ticks} ticks checked)`));

    // Home, a backward seek and single steps land on hash-checked ticks.
    await page.keyboard.press("Home");
    await page.waitForFunction(() => !window.arbiter.state.replay.seeking && window.arbiter.state.replay.tick === 0);
    check(`${name}: Home goes to tick 0`, (await state()).tick === 0);
    const mid = Math.floor(s.ticks / 2);
    await page.evaluate((t) => window.arbiter.replayControl("seek", t), mid);
    await page.waitForFunction((t) => !window.arbiter.state.replay.seeking && window.arbiter.state.replay.tick === t, mid);
    await page.keyboard.press("Period");
    await page.keyboard.press("Period");
    let r = await state();
    check(`${name}: seek + two steps`, r.tick === mid + 2 && r.lastOk && !r.playing, JSON.stringify(r));
    await page.keyboard.press("Comma");
    await page.waitForFunction((t) => !window.arbiter.state.replay.seeking && window.arbiter.state.replay.tick === t, mid + 1);
    r = await state();
    check(`${name}: one step back`, r.tick === mid + 1 && r.lastOk && r.mismatches === 0, JSON.stringify(r));
    check(`${name}: re-simulating does not count twice`, r.checked === s.ticks, `${r.checked}`);
  }

  // The world on the canvas (a paused mid-log frame).
  const shot = await page.locator("#view").screenshot();
  const px = await countNonBackground(page, shot);
  console.log(`screenshot: ${px.n} of ${px.total} pixels not background`);
  check("replay screenshot is not blank", px.n > 0.01 * px.total, `${px.n}`);

  // A falsified recorded hash: reported at exactly that tick.
  const base = logs.find((l) => path.basename(l) === "default.arbrec") || logs[0];
  const badTick = 500;
  const bad = path.join(tmp, "falsified.arbrec");
  writeFileSync(bad, falsifyHash(readFileSync(base), badTick));
  await open(bad);
  await page.focus("#view");
  for (let k = 0; k < 3; k++) await page.keyboard.press("BracketRight");
  await page.waitForFunction(() => window.arbiter.state.replay.ended, null, { timeout: 120000, polling: 100 });
  const f = await state();
  console.log(`falsified.arbrec: ${f.mismatches} mismatches, first at tick ${f.mismatch}`);
  check("falsified hash: mismatch reported", f.mismatches === 1 && !f.verified, JSON.stringify(f));
  check("falsified hash: at that tick", f.mismatch === badTick, `${f.mismatch}`);
  check("falsified hash: the status says so", (await page.textContent("#status")).includes(`MISMATCH at tick ${badTick}`));
  // Not a replay log at all.
  writeFileSync(path.join(tmp, "junk.arbrec"), "not a replay log\n");
  await page.setInputFiles("#replay-file", path.join(tmp, "junk.arbrec"));
  await page.waitForFunction(() => window.arbiter.state.replay && window.arbiter.state.replay.loaded === false);
  check("junk file: refused with a reason", (await page.textContent("#status")).includes("not a readable replay log"), await page.textContent("#status"));
  check("no page errors", errors.length === 0, errors.join("; "));
} finally {
  await browser.close();
  await stop(server.proc);
  rmSync(tmp, { recursive: true, force: true });
}
finish();
