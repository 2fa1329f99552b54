// arbiter replay in the browser (replay.js): a .arbrec log re-simulated in WebAssembly
// with the server's game rules, the recorded world hash checked after every tick. Frames
// are the live client's Frame (arbiter.d.ts) with a few replay fields added.

import type { Frame, LoadOptions, Vec2 } from "./arbiter.js";

/**
 * How to load the WebAssembly module: by default the client library's (loadArbiter in
 * arbiter.js: dist/arbiter_web.js, which holds the replay player too), loaded once.
 */
export interface ReplayLoadOptions extends LoadOptions {
  /** an emscripten factory to use instead (called with { wasmBinary }) */
  factory?: (init: object) => Promise<any>;
}

/** A Frame of a replay: what the native viewer draws of the re-simulated world. */
export interface ReplayFrame extends Frame {
  /** the tick shown (also snapshotTick; serverTime = tick / tickRate) */
  tick: number;
  /** the client whose avatar is marked own (0 = none) */
  ownClient: number;
  /** the own avatar's position, followed by the camera (null: no avatar) */
  focus: Vec2 | null;
  /** extent of the static geometry (null: none) */
  bounds: { lower: Vec2; upper: Vec2 } | null;
}

export interface Replay {
  /** the last tick recorded in the log */
  readonly ticks: number;
  readonly tickRate: number;
  /** how the log ends: "log complete", or where a truncated or torn log stops */
  readonly logEnd: string;
  /** the tick the game is at (0 = before the first recorded tick) */
  readonly tick: number;
  /** ticks whose hash was compared with the recording (each once) */
  readonly checked: number;
  /** compared ticks whose hash differed */
  readonly mismatches: number;
  /** the first tick whose hash differed, 0 = none */
  readonly mismatch: number;
  /** at least one tick checked, none differed, no error */
  readonly verified: boolean;
  /** the current tick's hash equals the recorded one */
  readonly lastOk: boolean;
  /** a replay error that stopped playback ("" = none) */
  readonly error: string;
  /** a seek started with seekStart is still running */
  readonly seeking: boolean;
  /** n ticks forward (default 1), each hash-checked; returns how many were stepped */
  step(n?: number): number;
  /** go to a tick (clamped to [0, ticks]), re-simulating from the nearest checkpoint; returns it */
  seek(tick: number): number;
  /** start a seek that update() continues in slices (a page stays responsive) */
  seekStart(tick: number): void;
  /** continue a seek for at most budgetMs; true while not finished */
  update(budgetMs?: number): boolean;
  /** whose avatar frames mark as own (a client id; 0 = the lowest present) */
  follow(clientId: number): void;
  /** the world at the current tick */
  frame(nowMs?: number): ReplayFrame;
  /** free the replay's memory in the module */
  close(): void;
}

/** Load the WebAssembly module once (openReplay does it when needed). */
export declare function loadReplayModule(options?: ReplayLoadOptions): Promise<any>;
/** Open a replay log from its bytes; rejects with the reason when it is not readable. */
export declare function openReplay(
  bytes: ArrayBuffer | Uint8Array,
  options?: ReplayLoadOptions,
): Promise<Replay>;
/**
 * Decode the module's flat frame (web_replay.c) into a ReplayFrame. kinds: the shape
 * kinds' names by number (Shape.kind; without them every kind is "none").
 */
export declare function decodeFrame(
  floats: Float32Array,
  tick: number,
  tickRate: number,
  nowMs: number,
  kinds?: string[],
): ReplayFrame;
export default openReplay;
