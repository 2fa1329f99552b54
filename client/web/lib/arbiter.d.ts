// arbiter-client: arbiter's C client library (libarbiter_client) compiled to WebAssembly,
// with a WebSocket transport (PROTOCOL.md §1.2). Works in a browser (the global
// WebSocket) and in Node (the `ws` package). Interpolation, prediction of the own avatar
// (the server's own C game code), reconnect/rejoin and statistics all run in the wasm
// module; this layer only owns the WebSocket and turns C structs into objects.
//
// Units: meters, radians, seconds for simulated quantities; `nowMs` arguments are
// milliseconds on one monotonic clock of the caller's choice (performance.now() is the
// default everywhere a time is optional) that must never go backwards.

/** A point or vector, meters (or m/s). */
export interface Vec2 {
  x: number;
  y: number;
}

// ---- shapes -----------------------------------------------------------------------------

/**
 * One shape of any kind, in its body's frame, as its outline: every point within `radius`
 * of the polyline `points` (the last point joined to the first when `closed`). A circle is
 * its centre and radius; a polygon its vertices (counter-clockwise), closed, with its
 * rounding radius; a segment its two ends; a capsule its two centres and radius; a chain
 * its points (closed when it loops). Level chains arrive as pieces of up to 8 points, each
 * a static body of its own (Frame.statics). A shape the module cannot describe has kind
 * 'none' and no points.
 */
export interface Shape {
  /** the kind's name: 'circle', 'polygon', 'segment', 'capsule', 'chain', ... */
  kind: string;
  points: Vec2[];
  /** meters, >= 0 */
  radius: number;
  closed: boolean;
  /** an inside to fill (false: a line, static geometry only) */
  hasArea: boolean;
  /** a line whose links collide from their left side only (a chain's) */
  oneSided: boolean;
}

// ---- the frame sample() returns --------------------------------------------------------

export type BodyType = 'dynamic'|'static'|'kinematic';
export type AvatarKind = 'default'|'force'|'vehicle';

/** Bit flags of Body.flags (ARB_CLIENT_SAMPLE_*). */
export declare const SAMPLE_INTERPOLATED: 0;
export declare const SAMPLE_EXTRAPOLATED: 1;
export declare const SAMPLE_HELD: 2;
export declare const SAMPLE_BLENDING: 4;
export declare const SAMPLE_PREDICTED: 8;

/** An entity the server sends in snapshots, at the sampled time. */
export interface Body {
  id: number;
  /** client id of the avatar's player; 0 = the world */
  owner: number;
  bodyType: BodyType;
  /** a player's avatar: its kind; null for other bodies */
  avatarKind: AvatarKind|null;
  /** the own avatar (Session.avatarEntity) */
  own: boolean;
  /** the own avatar, predicted (not interpolated): flags & SAMPLE_PREDICTED */
  predicted: boolean;
  position: Vec2;
  /** radians, (-pi, pi] */
  angle: number;
  /** m/s of the motion as sampled (see client.h, arb_client_entity_state) */
  velocity: Vec2;
  angularVelocity: number;
  /** SAMPLE_* bits */
  flags: number;
  /** 1..8 shapes in the body frame (several: a compound body) */
  shapes: Shape[];
}

/** A piece of the level sent in the welcome, placed in the world. */
export interface StaticBody {
  position: Vec2;
  angle: number;
  shape: Shape;
}

/** A Verlet particle (ropes, cloth, soft bodies). */
export interface Particle {
  id: number;
  position: Vec2;
  velocity: Vec2;
  /** meters; 0 = a point */
  radius: number;
  pinned: boolean;
}

export type LinkKind = 'rope'|'spring'|'joint';
export type JointType =|'distance'|'revolute'|'prismatic'|'weld'|'wheel'|'motor'|'mouse';

/** A rope segment (between particles), a spring or a joint (between bodies). */
export interface Link {
  id: number;
  kind: LinkKind;
  /** kind "joint": its type; null otherwise */
  jointType: JointType|null;
  /** the entities (rope: particles) joined; 0 = the world */
  a: number;
  b: number;
  /** the two ends in world coordinates */
  anchorA: Vec2;
  anchorB: Vec2;
}

/** A vehicle wheel seen from above. */
export interface Wheel {
  id: number;
  /** the chassis entity */
  vehicle: number;
  position: Vec2;
  /** chassis rotation turned by the steering angle (radians) */
  angle: number;
  radius: number;
  /** steering angle relative to the chassis */
  steer: number;
  /** rolling angle, (-pi, pi] */
  spin: number;
  spinRate: number;
  skid: boolean;
}

/** Everything there is to draw at one moment. */
export interface Frame {
  /** the `nowMs` passed to sample() */
  nowMs: number;
  /** server time (seconds, tick / tickRate) the bodies were sampled at */
  serverTime: number;
  /** tick of the newest snapshot received (0 = none yet) */
  snapshotTick: number;
  /** the own avatar's entity id (0 = none: spectating or not connected) */
  ownEntity: number;
  /** every known entity, in id order (the own avatar predicted while predicting) */
  bodies: Body[];
  /** the level (static geometry of the welcome); the same array until a new welcome */
  statics: StaticBody[];
  particles: Particle[];
  /** ropes, springs and joints (ends placed on the bodies as sampled) */
  links: Link[];
  wheels: Wheel[];
  /** the correction still fading out of the drawn own avatar (null: not predicting) */
  correction: Vec2|null;
}

// ---- controls, events, stats ------------------------------------------------------------

/** What the own avatar does, held until replaced. Omitted fields are 0 / false. */
export interface Controls {
  /** [-1, 1] each */
  moveX?: number;
  moveY?: number;
  /** radians, [-pi, pi] */
  aim?: number;
  jump?: boolean;
  fire?: boolean;
  use?: boolean;
  /** vehicles: [-1, 1], positive turns left */
  steer?: number;
  /** vehicles: [0, 1] */
  throttle?: number;
  brake?: number;
}

export type EventType =|'connected'|'rejected'|'disconnected'|'entity_entered'|'entity_left'|
    'notice'|'player_joined'|'player_left'|'hit';

export interface ArbiterEvent {
  type: EventType;
  /** entity_*, player_joined (their avatar), connected (ours), hit (avatar hit) */
  entityId: number;
  /** player_*, connected (ours), entity_entered (owner), hit (shooter) */
  clientId: number;
  /** rejected / disconnected / player_left: the protocol's reason code (PROTOCOL.md §8) */
  code: number;
  /** disconnected: the library reconnects (and rejoins) after its backoff delay */
  willReconnect: boolean;
  /** the nowMs of the update that produced it */
  timeMs: number;
  /** reason, notice, scene name (connected) or player name */
  text: string;
  /** disconnected: the WebSocket close code (1000, 4001..4009, 1006 ...), 0 if none */
  closeCode: number;
}

export type ClientState = 'disconnected'|'connecting'|'connected'|'reconnect-wait';

/** What the server said in its welcome (zeros while not connected). */
export interface Session {
  clientId: number;
  avatarEntity: number;
  tickRate: number;
  snapshotRate: number;
  welcomeTick: number;
  sceneName: string;
  /** 16 hex digits */
  sceneHash: string;
}

export interface Stats {
  /** seconds, smoothed round trip (arbiter ping/pong) */
  rtt: number;
  rttVariance: number;
  /** [0, 1] recent fraction of snapshots that never arrived */
  packetLoss: number;
  snapshotsPerSecond: number;
  kbitInPerSecond: number;
  kbitOutPerSecond: number;
  bytesIn: number;
  bytesOut: number;
  /** WebSocket messages */
  messagesIn: number;
  messagesOut: number;
  interpDelay: number;
  snapshotInterval: number;
  jitter: number;
  bufferDepth: number;
  extrapolationTime: number;
  /** complete snapshots accepted */
  snapshotsReceived: number;
  /** snapshots received + snapshots lost: what the snapshot ticks seen promised */
  snapshotsExpected: number;
  /** expected snapshots never completed */
  snapshotsLost: number;
  snapshotsLate: number;
  baselineMissing: number;
  decodeErrors: number;
  inputsSent: number;
  eventsDropped: number;
  connects: number;
  reconnects: number;
  entityCount: number;
  // prediction (docs/CLIENT.md, "Prediction")
  predicting: boolean;
  inputLead: number;
  predictChecks: number;
  predictCorrections: number;
  predictSnaps: number;
  inputsLate: number;
  predictError: number;
  predictErrorMax: number;
  predictErrorFree: boolean;
  predictCorrectionMax: number;
  predictOffset: number;
  inputToMotion: number;
  inputToMotionCount: number;
}

/**
 * One comparison of the predicted own avatar with the server's at the same tick, exactly
 * as the library makes it for every complete snapshot: both quantized as on the wire
 * (integers; equal means the same bits on both sides, not a tolerance).
 */
export interface QuantizedState {
  x: number;
  y: number;
  angle: number;
  vx: number;
  vy: number;
  w: number;
}
export interface PredictionCheck {
  tick: number;
  /** predicted and server states are the same integers */
  agree: boolean;
  /** the predicted avatar touched a non-static body at that tick (predicted approximately) */
  touching: boolean;
  predicted: QuantizedState;
  server: QuantizedState;
}

// ---- loading and connecting ------------------------------------------------------------

/** A WebSocket class: the browser's global WebSocket or the `ws` package's default export. */
export type WebSocketClass = new (url: string, protocols?: string|string[]) => any;

export interface LoadOptions {
  /**
   * browser: URL of the module's loader arbiter_web.js, added as a classic script (default:
   * ../dist/arbiter_web.js relative to arbiter.js, via import.meta.url)
   */
  moduleUrl?: string|URL;
  /** browser: URL of arbiter_web.wasm (default: next to the loader, in dist/) */
  wasmUrl?: string|URL;
  /** Node or a bundler: the module's bytes (default in Node: read from dist/ next to lib/) */
  wasmBinary?: ArrayBuffer|Uint8Array;
  /** WebSocket class (default: globalThis.WebSocket, else in Node the `ws` package) */
  WebSocket?: WebSocketClass;
}

export interface ConnectOptions {
  /** player name shown to others (default "player") */
  name?: string;
  /** requested avatar kind (default "default": the scene's) */
  avatar?: AvatarKind;
  /** watch without an avatar (whole world, nothing predicted) */
  spectate?: boolean;
  /** connect token text from the game's backend (arbiter-token mint) */
  token?: string;
  /** after a lost connection reconnect by itself, rejoining the held avatar (default true) */
  rejoin?: boolean;
  /** predict the own avatar (default true) */
  predict?: boolean;
  /** keep history for sample() (default true; false: a headless client) */
  interpolate?: boolean;
  /**
   * pump the network and prediction by itself every this many ms (setInterval); 0 / false
   * = call update() yourself (default: 0)
   */
  autoPump?: number|false;
  /** seconds to get welcomed (default 5) */
  connectTimeout?: number;
  /** seconds of silence before the link counts as lost (default 3) */
  timeout?: number;
  /** input packets per second at most; 0 = one per server tick (default) */
  inputRate?: number;
  /** snapshot kbit/s to ask the server for; 0 = its default */
  maxKbps?: number;
  /** "debug" | "info" | "warn" | "error" log lines, to `log` (default: none) */
  logLevel?: 'debug'|'info'|'warn'|'error';
  log?: (level: string, message: string) => void;
  /** WebSocket class for this client (default: the one of loadArbiter) */
  WebSocket?: WebSocketClass;
}

export interface CloseResult {
  /** the WebSocket close code the connection ended with (1000: clean) */
  code: number;
  reason: string;
  wasClean: boolean;
}

export interface Client {
  /** set the controls to send from now on (quantized as the server will) */
  setControls(controls: Controls): void;
  /** the controls as the server will apply them (quantized) */
  getControls(): Required<Controls>;
  /** report the camera rectangle (world meters), or null to stop */
  setViewBox(min: Vec2|null, max?: Vec2): void;
  /**
   * Do all network work due at nowMs: deliver received messages, send inputs at the tick
   * rate, advance the prediction, time out, reconnect. Call once per frame (or use
   * autoPump). Never blocks.
   */
  update(nowMs?: number): void;
  /** The world to draw at nowMs: interpolated, with the own avatar predicted. */
  sample(nowMs?: number): Frame;
  /** Events since the last call, oldest first. */
  events(): ArbiterEvent[];
  stats(): Stats;
  state(): ClientState;
  session(): Session;
  /** estimated server tick at nowMs */
  serverTick(nowMs?: number): number;
  /** the most recent comparisons of predicted and server avatar (up to 64), oldest first */
  predictionChecks(): PredictionCheck[];
  /** the last decode error, or "" */
  lastError(): string;
  /**
   * Leave: close 1000 and free the client. Resolves with how the WebSocket closed
   * (after the server's closing handshake, or at once if it was not open).
   */
  close(): Promise<CloseResult>;
}

export interface Arbiter {
  /** Create a client and start connecting to ws://host:port/path. */
  connect(url: string, options?: ConnectOptions): Client;
  /** emscripten's module (for tests and add-ons that call exported C functions) */
  readonly module: any;
}

/** Load the wasm module (once per Arbiter; several clients share it). */
export declare function loadArbiter(options?: LoadOptions): Promise<Arbiter>;
export default loadArbiter;
