/**
 * Synchronous network questions for functions that must answer while a
 * policy is evaluated: name lookups and TCP exchanges run in a short-lived
 * Node child process (the only way to block on a socket or the resolver),
 * bounded in time. Every failure is an answer with `ok: false`.
 */
import { spawnSync } from "node:child_process";

/** 3.21's default connection timeout, in seconds. */
export const CONNECT_TIMEOUT_S = 30;

export type ProbeAnswer =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly error: string };

// Runs in the child: reads a JSON request from argv, prints JSON answers.
const CHILD = `
const net = require("node:net"), dns = require("node:dns"), fs = require("node:fs");
const req = JSON.parse(process.argv[1]);
const out = (answers) => { process.stdout.write(JSON.stringify(answers)); process.exit(0); };
function servicePort(port) {
  if (/^\\d+$/.test(port)) return Number(port);
  try {
    for (const line of fs.readFileSync("/etc/services", "utf8").split("\\n")) {
      const f = line.replace(/#.*/, "").trim().split(/\\s+/);
      if (f[0] === port && /\\/tcp$/.test(f[1] || "")) return Number(f[1].split("/")[0]);
    }
  } catch {}
  return NaN;
}
function exchange(host, done) {
  const port = servicePort(req.port);
  if (!Number.isInteger(port)) return done({ ok: false, error: "unknown service " + req.port });
  let finished = false;
  const finish = (a) => { if (!finished) { finished = true; socket.destroy(); clearTimeout(timer); done(a); } };
  const socket = net.connect({ host, port });
  const timer = setTimeout(() => finish({ ok: false, error: "connection timed out" }), req.timeout * 1000);
  socket.on("error", (e) => finish({ ok: false, error: e.message }));
  socket.on("connect", () => {
    if (!req.read) return finish({ ok: true, value: "" });
    if (req.send !== "") socket.write(req.send);
    socket.once("data", (d) => finish({ ok: true, value: d.subarray(0, req.max).toString("latin1") }));
    socket.on("end", () => finish({ ok: true, value: "" }));
  });
}
if (req.kind === "tcp") {
  const answers = [];
  const next = (i) => i >= req.hosts.length ? out(answers) : exchange(req.hosts[i], (a) => { answers.push(a); next(i + 1); });
  next(0);
} else if (req.kind === "lookup") {
  dns.lookup(req.name, (e, address) => out([e ? { ok: false, error: e.message } : { ok: true, value: address }]));
} else {
  dns.lookupService(req.name, 0, (e, host) => out([e ? { ok: false, error: e.message } : { ok: true, value: host }]));
}
`;

function runChild(request: Record<string, unknown>, timeoutMs: number): ProbeAnswer[] | undefined {
  const run = spawnSync(process.execPath, ["-e", CHILD, JSON.stringify(request)], {
    encoding: "utf8",
    timeout: timeoutMs,
  });
  if (run.error || run.status !== 0) return undefined;
  try {
    return JSON.parse(run.stdout) as ProbeAnswer[];
  } catch {
    return undefined;
  }
}

export interface TcpRequest {
  readonly hosts: readonly string[];
  readonly port: string;
  /** Sent once connected, unless empty. */
  readonly send: string;
  /** Whether to wait for the first chunk of the reply (else connecting is enough). */
  readonly read: boolean;
  readonly maxBytes: number;
  readonly timeoutS?: number;
}

/** Connects to each host in turn; one answer per host, the reply's first chunk as value. */
export function tcpExchange(request: TcpRequest): ProbeAnswer[] {
  const timeout = request.timeoutS ?? CONNECT_TIMEOUT_S;
  const answers = runChild(
    {
      kind: "tcp",
      hosts: request.hosts,
      port: request.port,
      send: request.send,
      read: request.read,
      max: request.maxBytes,
      timeout,
    },
    (timeout + 5) * 1000 * Math.max(1, request.hosts.length),
  );
  return answers ?? request.hosts.map(() => ({ ok: false, error: "probe did not finish" }));
}

/** The first address the resolver gives for a name. */
export function lookupAddress(name: string, timeoutS = CONNECT_TIMEOUT_S): ProbeAnswer {
  return runChild({ kind: "lookup", name }, timeoutS * 1000)?.[0] ?? { ok: false, error: "lookup failed" };
}

/** The name the resolver gives for an address. */
export function lookupName(address: string, timeoutS = CONNECT_TIMEOUT_S): ProbeAnswer {
  return (
    runChild({ kind: "reverse", name: address }, timeoutS * 1000)?.[0] ?? {
      ok: false,
      error: "lookup failed",
    }
  );
}
