// The play page in headless Chromium against a live server (docs/WEB.md): arbiter-server
// with --ws-port (on a scene of a floor and four far-apart spawn points) serves the page,
// which learns the WebSocket port from /config.json; three native arbiter-bots (idle)
// join first, then the page connects as a player:
//   - it joined and received >= 95 % of the snapshots the server's rate promised;
//   - its avatar stayed while no key was held, moved while A was held, stayed again after;
//   - the library's checks of the predicted avatar against the server's at the same tick
//     agree bit for bit (the quantized integers) whenever the avatar touched only the
//     level (here: always), at rest and while moving, and there were plenty of them;
//   - the canvas is not blank; a spectator page beside it joins without an avatar and the
//     server holds the camera box it reported;
//   - after it leaves, the bots' summary says they saw it join, move and leave, and the
//     bots themselves received >= 95 % of their snapshots.
//   node test_web_play.mjs ARBITER_SERVER ARBITER_BOT WEB_BUNDLE
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { check, countNonBackground, finish, launch, loadPlaywright, skip, startServer, stop } from "./browser_util.mjs";

const [serverBin, botBin, bundle] = process.argv.slice(2);
if (!serverBin || !botBin || !bundle) {
  console.log("usage: test_web_play.mjs ARBITER_SERVER ARBITER_BOT WEB_BUNDLE");
  process.exit(2);
}
const help = execFileSync(serverBin, ["--help"], { encoding: "utf8" });
if (!help.includes("--ws-port")) skip("arbiter-server has no --ws-port (no WebSocket listener in this build)");
if (!existsSync(path.join(bundle, "dist/arbiter_web.wasm")))
  skip(`no WebAssembly module in ${bundle}/dist (emcc missing when it was built: scripts/install-deps.sh --matrix)`);
const pw = loadPlaywright();

const NAME = "browser-test";
const BOTS = 3;
const BOT_SECONDS = 24;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const dist = (a, b) => Math.hypot(a.x - b.x, a.y - b.y);

// A floor 80 m wide with a spawn point every 12 m and nothing else: the avatars are far
// apart, so the browser's avatar touches only the level while it stands and moves, and
// every prediction check is one the library makes exact (docs/CLIENT.md, "Prediction").
const tmp = mkdtempSync(path.join(os.tmpdir(), "arb-web-play-"));
const scene = path.join(tmp, "floor.json");
const box = (hw, hh, x, y) => ({ type: "static", shape: { box: { half_width: hw, half_height: hh } }, position: [x, y] });
writeFileSync(scene, JSON.stringify({
  version: 1,
  name: "web-play-floor",
  bodies: [box(40, 0.5, 0, -0.5), box(0.5, 5, -40.5, 4.5), box(0.5, 5, 40.5, 4.5)],
  spawn_points: [[-18, 1], [-6, 1], [6, 1], [18, 1]],
}));
const TOKEN = "web-play-test-admin-token-0123456789";
writeFileSync(path.join(tmp, "admin-token"), `${TOKEN}\n`);
const server = await startServer(serverBin, ["--ws-port", "-1", "--web-root", bundle, "--scene", scene,
  "--admin-token", path.join(tmp, "admin-token")]);
const sessions = async () => {
  const res = await fetch(`http://127.0.0.1:${server.httpPort}/admin/sessions`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  return (await res.json()).sessions;
};
const ws = server.log().match(/\bws_port=(\d+)/);
check("the server logs its WebSocket port", !!ws, server.log());
check("the server logs the page's URL", /web_page url="?http:\/\/127\.0\.0\.1:\d+\//.test(server.log()), server.log());

let botOut = "", botErr = "";
const bots = spawn(botBin, ["--port", String(server.port), "--clients", String(BOTS), "--duration", String(BOT_SECONDS), "--behaviour", "idle"], { stdio: ["ignore", "pipe", "pipe"] });
bots.stdout.on("data", (d) => (botOut += d));
bots.stderr.on("data", (d) => (botErr += d));
const botsDone = new Promise((resolve) => bots.on("exit", (code) => resolve(code)));
const browser = await launch(pw);
try {
  await sleep(1500);  // the bots are in before the browser joins: they see it join
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(`http://127.0.0.1:${server.httpPort}/?mode=play&autoconnect=1&name=${NAME}&avatar=${process.env.ARB_TEST_AVATAR || "force"}`);
  const st = () => page.evaluate(() => JSON.parse(JSON.stringify(window.arbiter.state)));
  await page.waitForFunction(() => window.arbiter.state.joined && window.arbiter.state.avatar, null, { timeout: 15000 });
  let s = await st();
  check("joined as a player", s.joined && s.clientId > 0 && s.ownEntity > 0, JSON.stringify({ c: s.clientId, e: s.ownEntity }));
  check("the server URL came from /config.json", (await page.inputValue("#server-url")).includes(`:${ws ? ws[1] : "?"}`));
  await page.focus("#view");

  // Settle (spawn drop), then no keys: it stays. Prediction checks count from here.
  await sleep(2500);
  await page.evaluate(() => window.arbiter.resetPrediction());
  const p0 = (await st()).avatar;
  await sleep(1500);
  const p1 = (await st()).avatar;
  console.log(`idle: (${p0.x.toFixed(3)}, ${p0.y.toFixed(3)}) -> (${p1.x.toFixed(3)}, ${p1.y.toFixed(3)})`);
  check("no key held: the avatar stays", dist(p0, p1) < 0.05, `${dist(p0, p1)} m`);

  // A held: it moves left.
  await page.keyboard.down("KeyA");
  await sleep(1500);
  await page.keyboard.up("KeyA");
  const p2 = (await st()).avatar;
  console.log(`A held 1.5 s: (${p1.x.toFixed(3)}, ${p1.y.toFixed(3)}) -> (${p2.x.toFixed(3)}, ${p2.y.toFixed(3)})`);
  check("A held: the avatar moved left", p1.x - p2.x > 1.0, `${p1.x - p2.x} m`);

  // Released: it comes to rest and stays.
  await sleep(2500);
  const p3 = (await st()).avatar;
  await sleep(1500);
  const p4 = (await st()).avatar;
  check("keys released: the avatar stays", dist(p3, p4) < 0.05, `${dist(p3, p4)} m`);

  s = await st();
  const ratio = s.snapshotsExpected > 0 ? s.snapshotsReceived / s.snapshotsExpected : 0;
  console.log(`snapshots ${s.snapshotsReceived}/${s.snapshotsExpected} (${(100 * ratio).toFixed(1)} %), rtt ${(s.stats.rtt * 1000).toFixed(1)} ms`);
  check("received >= 95 % of the snapshots", ratio >= 0.95 && s.snapshotsExpected > 100, `${ratio}`);
  const p = s.prediction;
  const ps = s.stats;
  console.log(`prediction stats: lead ${ps.inputLead}, late inputs ${ps.inputsLate}, corrections ${ps.predictCorrections}, snaps ${ps.predictSnaps}, error max ${ps.predictErrorMax}`);
  console.log(`prediction: ${p.checks} checks, ${p.agree} agree, ${p.touching} touching, ${p.freeAgree}/${p.free} agree among the level-only ones`);
  check("prediction checked many ticks", p.free >= 100, `${p.free}`);
  check("predicted == server, bit for bit (level-only ticks)", p.freeAgree === p.free, JSON.stringify(p.freeDisagreements));
  check("some of them while moving", p.movingFree > 0, `${p.movingFree}`);
  check("the last check is of quantized integers", p.last && Number.isInteger(p.last.predicted.x) && Number.isInteger(p.last.server.x), JSON.stringify(p.last));

  const shot = await page.locator("#view").screenshot();
  const px = await countNonBackground(page, shot);
  console.log(`screenshot: ${px.n} of ${px.total} pixels not background`);
  check("screenshot is not blank", px.n > 0.01 * px.total, `${px.n}`);
  const own = await countNonBackground(page, shot, [0x38, 0xd8, 0x60]);
  check("the own avatar is drawn in its colour", own.total - own.n > 20, `${own.total - own.n} px`);

  // A spectator page beside it: joined without an avatar, and the server holds the camera
  // box it reported (the canvas's view with a quarter added on each side).
  const spec = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  spec.on("pageerror", (e) => errors.push(e.message));
  await spec.goto(`http://127.0.0.1:${server.httpPort}/?mode=spectate&autoconnect=1&name=${NAME}-spectator`);
  await spec.waitForFunction(() => window.arbiter.state.joined && window.arbiter.state.snapshotsReceived > 10, null, { timeout: 15000 });
  await sleep(1000);
  const sp = await spec.evaluate(() => ({ s: JSON.parse(JSON.stringify(window.arbiter.state)), box: window.arbiter.camera.viewBox() }));
  check("spectator: joined without an avatar", sp.s.joined && sp.s.ownEntity === 0 && !sp.s.avatar, JSON.stringify({ e: sp.s.ownEntity }));
  const list = await sessions();
  const specSession = list.find((q) => q.name === `${NAME}-spectator`);
  const playSession = list.find((q) => q.name === NAME);
  console.log(`server sessions: player ${JSON.stringify(playSession)}; spectator ${JSON.stringify(specSession)}`);
  check("the player is a WebSocket session", !!playSession && playSession.transport === "ws" && !playSession.spectator);
  const v = specSession && specSession.view;
  check("spectator: a WebSocket spectator session", !!specSession && specSession.spectator && specSession.transport === "ws");
  check("spectator: the server holds its camera box, around what the canvas shows",
    !!v && v[0] <= sp.box.min.x + 0.01 && v[1] <= sp.box.min.y + 0.01 && v[2] >= sp.box.max.x - 0.01 && v[3] >= sp.box.max.y - 0.01 &&
    v[2] - v[0] <= 1.6 * (sp.box.max.x - sp.box.min.x), JSON.stringify({ v, box: sp.box }));
  await spec.click("#disconnect");
  await spec.close();

  await page.click("#disconnect");
  await page.waitForFunction(() => !window.arbiter.state.joined && window.arbiter.state.connection === "disconnected");
  check("no page errors", errors.length === 0, errors.join("; "));

  const code = await botsDone;
  let summary = null;
  try {
    summary = JSON.parse(botOut);
  } catch (e) {
    check("the bots' summary is JSON", false, botOut + botErr);
  }
  if (summary) {
    check("the bots ran fine", code === 0 && summary.ok, `exit ${code}`);
    check("the bots received >= 95 % of their snapshots", summary.snapshot_ratio >= 0.95, `${summary.snapshot_ratio}`);
    const seen = summary.players_seen.find((q) => q.name === NAME);
    console.log(`bots saw: ${JSON.stringify(seen)}`);
    check("the bots saw the browser player join", !!seen && seen.client_id === s.clientId);
    check("the bots saw it move", !!seen && seen.sampled && seen.moved_m > 1.0, JSON.stringify(seen));
    check("the bots saw it leave", !!seen && seen.left);
  }
} finally {
  await browser.close();
  bots.kill();
  await stop(server.proc);
  rmSync(tmp, { recursive: true, force: true });
}
finish();
