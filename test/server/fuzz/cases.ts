/**
 * The malformed inputs the server fuzzer sends, as data: case `n` of
 * campaign `seed` is always the same bytes, so a failure found by a long run
 * replays from its seed and number. No I/O here (test/server/fuzz/driver.ts
 * sends them).
 *
 * A case says at which point of a connection it strikes (`stage`), what it
 * writes then (each buffer one socket write), how many malformed or
 * truncated units (frames, dialog lines, pre-TLS payloads) those writes
 * carry, and whether the fuzzer then closes abruptly or waits to see what
 * the server does.
 */
import { encodeFrame } from "../../../src/net/frame.js";
import { between, mulberry32, pick, type Random } from "../../../scripts/fuzz/mutate.js";

/**
 * Where a case strikes: `tcp` on a bare TCP connection (before TLS), `tls`
 * right after the TLS handshake (before the server's version line was
 * read), `dialog` after the server's version line, `session` after the
 * whole dialog (OK WELCOME), on a connection the fuzzer reuses while the
 * server keeps it open.
 */
export type Stage = "tcp" | "tls" | "dialog" | "session";

/** `close`: end the connection abruptly after the writes; `wait`: see whether the server replies, closes or stays silent. */
export type Ending = "close" | "wait";

export interface FuzzCase {
  /** The family of the case, for the tallies (`frame-length`, `path-escape`…). */
  readonly kind: string;
  readonly stage: Stage;
  readonly writes: readonly Buffer[];
  /** Malformed or truncated units in `writes`. */
  readonly frames: number;
  readonly ending: Ending;
}

/** What the cases aim at: the server's admitted directory and a file in it. */
export interface FuzzTarget {
  /** An admitted directory, without the trailing slash. */
  readonly root: string;
  /** A regular file inside `root`. */
  readonly file: string;
}

/** An 8-byte header of any text, NUL-padded or cut to 8 bytes as the server reads it. */
function rawHeader(text: string): Buffer {
  const header = Buffer.alloc(8);
  header.write(text.slice(0, 8), "latin1");
  return header;
}

function randomBytes(random: Random, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

function randomText(random: Random, length: number): string {
  let text = "";
  for (let i = 0; i < length; i++) text += String.fromCharCode(32 + Math.floor(random() * 95));
  return text;
}

/** Paths that try to leave the admitted directory or to upset path handling. */
export function hostilePaths(target: FuzzTarget): readonly string[] {
  const { root, file } = target;
  return [
    `${root}/../../../../etc/shadow`,
    `${root}/..`,
    `${root}/../`,
    `${root}/./../${root.split("/").pop() ?? ""}-other`,
    `${root}/escape-dir/passwd`,
    `${root}/escape-dir`,
    `${root}/escape-file`,
    `${root}/escape-dotdot`,
    `${file}\0/../../etc/shadow`,
    `${root}\0`,
    `/etc/shadow`,
    `/etc/../etc/passwd`,
    `/proc/self/environ`,
    `${root}/${"a".repeat(300)}`,
    `${root}/${"x/".repeat(1500)}`,
    `${root}${"/..".repeat(200)}/etc/passwd`,
    `${root.slice(1)}/relative`,
    "",
    "/",
    `//${root}`,
    `${root}//..//..//etc/shadow`,
    `~/../etc/shadow`,
    `${root}/%2e%2e/%2e%2e/etc/shadow`,
    `$(sys.workdir)/ppkeys/localhost.priv`,
    `${root}/\n/../..`,
  ];
}

type Maker = (random: Random, target: FuzzTarget) => FuzzCase;

function session(kind: string, writes: Buffer[], ending: Ending = "wait", frames = writes.length): FuzzCase {
  return { kind, stage: "session", writes, frames, ending };
}

/** A well-framed request whose content is wrong. */
function request(kind: string, payload: Buffer | string): FuzzCase {
  return session(kind, [encodeFrame(payload)]);
}

const BAD_HEADERS = [
  "x 5",
  "T 5",
  "\0 5",
  "t5",
  "t  5",
  "t 0",
  "m 0",
  "t -1",
  "t -4088",
  "t 4089",
  "t 4096",
  "t 9999999",
  "t 99999999999",
  "t abc",
  "t 1e3",
  "t 0x10",
  "t  ",
  "        ",
  "t 5xyz",
  "\xff\xff\xff\xff",
];

const makeBadHeader: Maker = (random) => {
  const header = rawHeader(pick(random, BAD_HEADERS));
  const payload = Buffer.from(randomText(random, between(random, 0, 64)), "latin1");
  return session("frame-header", [Buffer.concat([header, payload])], random() < 0.8 ? "wait" : "close");
};

const makeTruncated: Maker = (random, target) => {
  const payload = Buffer.from(`SYNCH ${Math.floor(Date.now() / 1000)} STAT ${target.file}`);
  const frame = encodeFrame(payload);
  const cut = between(random, 1, frame.length - 1);
  // Mostly an abrupt close mid-frame; sometimes wait, as a slow client would.
  return session("frame-truncated", [frame.subarray(0, cut)], random() < 0.9 ? "close" : "wait");
};

const makeLengthLie: Maker = (random) => {
  const claimed = between(random, 1, 4088);
  const sent = between(random, 0, claimed - 1);
  const header = rawHeader(`t ${claimed}`);
  return session("frame-length", [Buffer.concat([header, randomBytes(random, sent)])], "close");
};

const makeOverlong: Maker = (random) => {
  // More bytes than the header says: the rest is read as the next header.
  const header = rawHeader("t 10");
  return session("frame-overlong", [Buffer.concat([header, randomBytes(random, between(random, 11, 200))])]);
};

const COMMAND_ARGUMENTS: readonly ((random: Random, target: FuzzTarget) => string)[] = [
  () => "",
  () => "   ",
  () => "GET",
  () => "GET abc",
  (_r, t) => `GET ${t.file}`,
  (_r, t) => `GET -1 ${t.file}`,
  (_r, t) => `GET 0 ${t.file}`,
  (_r, t) => `GET 99999999999 ${t.file}`,
  (_r, t) => `GET 1 ${t.file}`,
  (_r, t) => `GET 4096000 ${t.file}`,
  (r, t) => `GET ${between(r, 1, 1 << 30)} ${t.root}`,
  () => "SYNCH",
  () => "SYNCH abc",
  (_r, t) => `SYNCH abc STAT ${t.file}`,
  () => "SYNCH 1 STAT",
  (_r, t) => `SYNCH 1 FOO ${t.file}`,
  (_r, t) => `SYNCH 0 STAT ${t.file}`,
  (_r, t) => `SYNCH 99999999999999999999 STAT ${t.file}`,
  (_r, t) => `SYNCH -5 STAT ${t.file}`,
  () => "OPENDIR",
  () => "OPENDIR /nonexistent/dir",
  (_r, t) => `OPENDIR ${t.file}`,
  () => "MD5",
  (_r, t) => `MD5 ${t.file}`,
  (_r, t) => `MD5 ${t.file}\0\0short`,
  () => "VERSION extra words",
  () => "EXEC",
  () => "EXEC -D",
  () => "EXEC -b ,,,",
  () => "CONTEXT",
  () => "CONTEXT [",
  () => "CONTEXT (a+)+$",
  () => "CONTEXT ((((((((((.*)*)*)*)*)*)*)*)*)*)*x",
  () => "VAR",
  () => "VAR nonexistent.var",
  () => "QUERY",
  () => "QUERY delta",
  () => "COOKIE",
  () => "CALL_ME_BACK collect_calls",
  () => "CAUTH 127.0.0.1 127.0.0.1 root 0",
  () => "SAUTH n 256 256",
  (_r, t) => `SGET 2048 ${t.file}`,
  (_r, t) => `SOPENDIR ${t.root}`,
  (r) => randomText(r, between(r, 1, 40)),
  (r) => `${pick(r, ["get", "stat", "Get", "OPENDIRX", "SYNCHRONIZE", "MD"])} x`,
  (r) => randomText(r, 4088),
];

const makeBadRequest: Maker = (random, target) => {
  const text = pick(random, COMMAND_ARGUMENTS)(random, target);
  // An empty payload cannot be framed (length 0 is illegal): send one NUL.
  return request("request", text === "" ? Buffer.from([0]) : Buffer.from(text, "latin1"));
};

const makeHostilePath: Maker = (random, target) => {
  const path = pick(random, hostilePaths(target)).slice(0, 4000);
  const verb = pick(random, ["STAT", "GET", "OPENDIR", "MD5"]);
  const now = Math.floor(Date.now() / 1000);
  const payload =
    verb === "STAT"
      ? `SYNCH ${now} STAT ${path}`
      : verb === "GET"
        ? `GET 4088 ${path}`
        : verb === "OPENDIR"
          ? `OPENDIR ${path}`
          : `MD5 ${path}\0\0${"\0".repeat(16)}`;
  return request("path-escape", Buffer.from(payload, "latin1"));
};

const makeMoreFrames: Maker = (random, target) => {
  // A command sent as `m` frames, which no command expects.
  const count = between(random, 1, 4);
  const frames: Buffer[] = [];
  for (let i = 0; i < count; i++) frames.push(encodeFrame(`SYNCH 1 STAT ${target.file}`, true));
  return session("frame-more", [Buffer.concat(frames)], "wait", count);
};

const makeGetAbort: Maker = (random, target) => {
  // A GET of a directory's worth of bytes, the connection cut at once.
  const size = pick(random, [1, 2048, 4088, 1 << 20, 1 << 30]);
  return session("get-abort", [encodeFrame(`GET ${size} ${target.file}`)], "close");
};

const makeFrameFlood: Maker = (random, target) => {
  // Many small bad requests in one write: the server must not queue without bound.
  const count = between(random, 2, 20);
  const frames: Buffer[] = [];
  for (let i = 0; i < count; i++)
    frames.push(encodeFrame(pick(random, ["FOO", "SYNCH x", `GET 0 ${target.file}`])));
  return session("frame-burst", [Buffer.concat(frames)], "wait", count);
};

const makeGarbage: Maker = (random) => {
  const bytes = randomBytes(random, between(random, 1, 2000));
  return {
    kind: "pre-tls-garbage",
    stage: "tcp",
    writes: [bytes],
    frames: 1,
    ending: random() < 0.5 ? "wait" : "close",
  };
};

const makeClassic: Maker = (random) => {
  // The classic protocol's first frame: CAUTH at offset 8, what cf-serverd peeks for.
  const line = `CAUTH 127.0.0.1 127.0.0.1 root ${between(random, 0, 1)}`;
  const header = rawHeader(`t ${line.length}`);
  return {
    kind: "classic-cauth",
    stage: "tcp",
    writes: [Buffer.concat([header, Buffer.from(line)])],
    frames: 1,
    ending: "wait",
  };
};

/** An MPI as BN_bn2mpi writes it: a 4-byte big-endian length, then the bytes. */
function mpi(bytes: Buffer, claimed = bytes.length): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(claimed >>> 0, 0);
  return Buffer.concat([head, bytes]);
}

/** The SAUTH frame's payload: its text in the first 24 bytes (CF_RSA_PROTO_OFFSET), then the challenge. */
function sauth(text: string, challenge: Buffer): Buffer {
  const head = Buffer.alloc(24);
  head.write(text.slice(0, 24), "latin1");
  return Buffer.concat([head, challenge]).subarray(0, 4088);
}

/** A modulus-like number: `bytes` random bytes, top bit set, odd. */
function modulus(random: Random, bytes: number): Buffer {
  const n = randomBytes(random, bytes);
  n[0] = ((n[0] as number) | 0x80) & 0xff;
  n[bytes - 1] = ((n[bytes - 1] as number) | 1) & 0xff;
  return n;
}

const CAUTH_LINES = [
  "CAUTH 127.0.0.1 localhost root 0",
  "CAUTH 127.0.0.1 localhost root 1",
  "CAUTH",
  "CAUTH 127.0.0.1",
  "CAUTH 127.0.0.1 localhost",
  "CAUTH 10.0.0.1 other.example root 0",
  "CAUTH 127.0.0.1 localhost ../../etc 0",
  "CAUTH 127.0.0.1 localhost nobody 0",
];

/**
 * The classic protocol's key dialogue (CAUTH, SAUTH with its challenge, the
 * client's key as two MPIs, the counter-challenge's answer and the session
 * key), each step well framed and each written at once, one step wrong:
 * lengths that lie, challenges that decrypt to nothing, malformed or absurd
 * keys (a random odd modulus is taken as a key, so the dialogue goes on
 * to the counter-challenge), wrong answers, cut anywhere. Only a server with
 * `allowlegacyconnects` gets past CAUTH.
 */
const makeClassicHandshake: Maker = (random) => {
  const writes: Buffer[] = [];
  const cauth = random() < 0.85 ? (CAUTH_LINES[0] as string) : pick(random, CAUTH_LINES);
  writes.push(encodeFrame(cauth));
  const roll = random();
  const nonce = randomBytes(random, 32);
  if (roll < 0.2) {
    // SAUTH itself wrong: its fields, its lengths against what it carries.
    const text = pick(random, [
      "SAUTH",
      "SAUTH n",
      "SAUTH n 0 0 c",
      "SAUTH n 32 16 c",
      "SAUTH n 4096 4096 c",
      "SAUTH n -1 -1 c",
      "SAUTH n 99999999999 32 c",
      "SAUTH x 32 32 c",
      "SAUTH n 512 512 c",
      `SAUTH n ${between(random, 1, 600)} ${between(random, 1, 600)} c`,
    ]);
    writes.push(encodeFrame(sauth(text, randomBytes(random, between(random, 0, 64)))));
  } else {
    const crypted = random() < 0.2;
    const challenge = crypted ? randomBytes(random, 256) : nonce;
    writes.push(encodeFrame(sauth(`SAUTH ${crypted ? "y" : "n"} ${challenge.length} 32 c`, challenge)));
    const keyRoll = random();
    if (keyRoll < 0.35) {
      // A malformed key: lengths that lie, nothing, a negative number, an even exponent.
      const bad = pick(random, [
        () => mpi(Buffer.alloc(0)),
        () => mpi(randomBytes(random, 16), 4000),
        () => mpi(randomBytes(random, 300), 12),
        () => Buffer.from([0, 0]),
        () => mpi(Buffer.from([0x80, 1, 2, 3])),
        () => mpi(randomBytes(random, between(random, 1, 8))),
        () => randomBytes(random, between(random, 1, 600)),
      ])();
      writes.push(encodeFrame(bad.length === 0 ? Buffer.from([0]) : bad));
      writes.push(encodeFrame(random() < 0.5 ? mpi(Buffer.from([2])) : mpi(Buffer.from([1, 0, 1]))));
    } else {
      // A random odd modulus and e = 65537: a key as far as the server can tell.
      writes.push(
        encodeFrame(
          mpi(Buffer.concat([Buffer.alloc(1), modulus(random, pick(random, [64, 128, 256, 512]))])),
        ),
      );
      writes.push(encodeFrame(mpi(Buffer.from([1, 0, 1]))));
      // The counter-challenge's answer (wrong: it cannot be decrypted here) and a session key.
      if (random() < 0.8) writes.push(encodeFrame(randomBytes(random, pick(random, [1, 15, 16, 17, 256]))));
      if (random() < 0.6) writes.push(encodeFrame(randomBytes(random, pick(random, [16, 256, 4088]))));
    }
  }
  if (random() < 0.25) {
    // Cut anywhere: the server must not wait for the rest forever or read past it.
    const all = Buffer.concat(writes);
    const cut = between(random, 1, all.length - 1);
    return {
      kind: "classic-handshake",
      stage: "tcp",
      writes: [all.subarray(0, cut)],
      frames: 1,
      ending: "close",
    };
  }
  return { kind: "classic-handshake", stage: "tcp", writes, frames: writes.length, ending: "wait" };
};

const makeHelloCut: Maker = (random) => {
  // A TLS handshake record that claims more than it carries.
  const length = between(random, 40, 512);
  const head = Buffer.from([0x16, 0x03, 0x01, length >> 8, length & 0xff, 0x01]);
  const body = randomBytes(random, between(random, 0, length - 2));
  return {
    kind: "tls-hello-cut",
    stage: "tcp",
    writes: [Buffer.concat([head, body])],
    frames: 1,
    ending: "close",
  };
};

const makeEarlyClose: Maker = (random) => ({
  kind: "close-early",
  stage: pick(random, ["tcp", "tls", "dialog"] as const),
  writes: [],
  frames: 0,
  ending: "close",
});

const VERSION_LINES = [
  "CFE_v9 cf-agent 3.21.0\n",
  "CFE_v0 cf-agent 3.21.0\n",
  "CFE_v1 cf-agent 3.21.0\n",
  "CFE_v-1 cf-agent\n",
  "CFE_v99999999999999999999 x\n",
  "CFE_v\n",
  "CFE_v3",
  "\n",
  "cfe_v3 cf-agent\n",
  "CFE_v3 cf-agent 3.21.0\nIDENTITY\n",
  "CFE_v3 cf-agent 3.21.0\nIDENTITY USERNAME=\n",
  "CFE_v3 cf-agent 3.21.0\nIDENTITY =root\n",
  "CFE_v3 cf-agent 3.21.0\nIDENTITY FOO=bar\n",
  "CFE_v3 cf-agent 3.21.0\nIDENTITY USERNAME=ro\0ot\n",
  "CFE_v3 cf-agent 3.21.0\nIDENTITY USERNAME=../../etc\n",
  "CFE_v3 cf-agent 3.21.0\nIDENTITY USERNAME=root",
  "CFE_v3 cf-agent 3.21.0\nVERSION\n",
  "CFE_v3 cf-agent 3.21.0\n\n\n\n",
  "t 22    CFE_v3 cf-agent 3.21.0",
];

const makeBadDialog: Maker = (random) => {
  const roll = random();
  let line: string;
  if (roll < 0.6) line = pick(random, VERSION_LINES);
  else if (roll < 0.75)
    line = `CFE_v3 cf-agent 3.21.0\nIDENTITY USERNAME=${"u".repeat(between(random, 64, 6000))}\n`;
  else if (roll < 0.85) line = `CFE_v3 ${"v".repeat(between(random, 1000, 9000))}`;
  else line = randomText(random, between(random, 1, 300));
  return {
    kind: "dialog",
    stage: random() < 0.3 ? "tls" : "dialog",
    writes: [Buffer.from(line, "latin1")],
    frames: 1,
    ending: random() < 0.8 ? "wait" : "close",
  };
};

/** The families, with their weights: most cases strike inside a session, the cheapest place to send many. */
const MAKERS: readonly (readonly [Maker, number])[] = [
  [makeBadHeader, 14],
  [makeTruncated, 6],
  [makeLengthLie, 5],
  [makeOverlong, 4],
  [makeBadRequest, 30],
  [makeHostilePath, 18],
  [makeMoreFrames, 3],
  [makeGetAbort, 2],
  [makeFrameFlood, 4],
  [makeGarbage, 4],
  [makeClassic, 2],
  [makeClassicHandshake, 3],
  [makeHelloCut, 2],
  [makeEarlyClose, 2],
  [makeBadDialog, 6],
];
const TOTAL_WEIGHT = MAKERS.reduce((sum, [, weight]) => sum + weight, 0);

/** Case `n` of campaign `seed`. */
export function makeFuzzCase(seed: number, n: number, target: FuzzTarget): FuzzCase {
  const random = mulberry32((seed ^ Math.imul(n + 1, 0x9e3779b9)) >>> 0);
  let roll = random() * TOTAL_WEIGHT;
  for (const [maker, weight] of MAKERS) {
    roll -= weight;
    if (roll < 0) return maker(random, target);
  }
  return makeBadRequest(random, target);
}
