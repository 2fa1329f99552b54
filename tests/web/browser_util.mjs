// Shared by the browser tests (tests/web/*.mjs): headless Chromium through playwright-core
// (client/web/node_modules, `npm ci` there), arbiter-server processes on ephemeral ports,
// a pass/fail tally, and the skip rule of the determinism matrix: exit 77 (ctest's
// SKIP_RETURN_CODE) when something the test needs is missing, unless
// ARBITER_REQUIRE_MATRIX=1, which makes it a failure.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CHROMIUM = process.env.ARBITER_CHROMIUM || "/usr/bin/chromium";

let passes = 0;
let fails = 0;
export function check(name, ok, detail = "") {
  if (ok) passes++;
  else {
    fails++;
    console.log(`FAIL: ${name}${detail ? `: ${detail}` : ""}`);
  }
  return ok;
}
export function finish() {
  console.log(`${passes} passed, ${fails} failed`);
  process.exit(fails === 0 && passes > 0 ? 0 : 1);
}

/** Exit 77 (skipped) naming what is missing, or 1 when ARBITER_REQUIRE_MATRIX=1. */
export function skip(what) {
  const required = process.env.ARBITER_REQUIRE_MATRIX === "1";
  console.log(`${required ? "FAIL" : "SKIPPED"}: ${what}${required ? " (ARBITER_REQUIRE_MATRIX=1)" : ""}`);
  process.exit(required ? 1 : 77);
}

/** playwright-core's chromium, or a skip when it or the browser is missing. */
export function loadPlaywright() {
  if (!existsSync(CHROMIUM)) skip(`no Chromium at ${CHROMIUM} (scripts/install-deps.sh)`);
  try {
    return createRequire(path.join(root, "client/web/package.json"))("playwright-core");
  } catch (e) {
    skip("playwright-core is not installed (cd client/web && npm ci)");
  }
}

export async function launch(pw) {
  return pw.chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
}

/**
 * Start arbiter-server on ephemeral 127.0.0.1 ports with the extra args; resolves with
 * { proc, port, httpPort, wsPort, log() } once its server_started line is out.
 */
export function startServer(bin, args = []) {
  return new Promise((resolve, reject) => {
    const proc = spawn(bin, ["--port", "0", "--http-port", "-1", "--http-bind", "127.0.0.1", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let done = false;
    const onData = (d) => {
      out += d;
      const m = out.match(/server_started .*?\bport=(\d+) .*?http_port=(\d+)/);
      if (m && !done) {
        done = true;
        const ws = out.match(/\bws_port=(\d+)/);
        resolve({ proc, port: Number(m[1]), httpPort: Number(m[2]), wsPort: ws ? Number(ws[1]) : 0, log: () => out });
      }
    };
    proc.stdout.on("data", onData);
    proc.stderr.on("data", onData);
    proc.on("exit", (code) => {
      if (!done) reject(new Error(`arbiter-server exited ${code} before starting:\n${out}`));
    });
    setTimeout(() => {
      if (!done) {
        proc.kill();
        reject(new Error(`arbiter-server did not start in 10 s:\n${out}`));
      }
    }, 10000);
  });
}

export function stop(proc, signal = "SIGTERM") {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve(proc.exitCode);
    proc.on("exit", (code) => resolve(code));
    proc.kill(signal);
  });
}

/** Pixels of a PNG screenshot (decoded by the page's own browser) not of the background colour. */
export async function countNonBackground(page, png, background = [0x18, 0x1b, 0x22]) {
  return page.evaluate(async ({ b64, bg }) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext("2d");
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] !== bg[0] || d[i + 1] !== bg[1] || d[i + 2] !== bg[2]) n++;
    return { n, total: d.length / 4 };
  }, { b64: png.toString("base64"), bg: background });
}

export function readBytes(p) {
  return new Uint8Array(readFileSync(p));
}
