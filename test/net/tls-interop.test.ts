/**
 * allowtlsversion and allowciphers beside cf-serverd 3.21: the same
 * `body server control` given to a real cf-serverd and to tend serverd,
 * the same TLS clients (each pinned to versions and ciphers) sent to both;
 * each client must get the same answer from both (the version and cipher
 * negotiated and the server's banner, or no handshake), and the lines tend
 * logs setting TLS up must be lines cf-serverd logs too (tend's one notice
 * aside). On this OpenSSL 3, TLS 1.0/1.1 only completes with `@SECLEVEL=0`
 * in allowciphers, for both servers.
 *
 * Skipped with the reason when cfengine3 is absent or not root.
 */
import assert from "node:assert/strict";
import tls from "node:tls";
import { after, test } from "node:test";
import { selfSignedCertificate } from "../../src/net/certificate.js";
import { generateKeyPair, privateKeyPem } from "../../src/net/keys.js";
import { type Host, type Impl, Lab, serverControl, whyNoReference } from "./hosts.js";

const noReference = whyNoReference();
const lab = new Lab("tend-tls-");
after(() => lab.close());

interface Probe {
  readonly name: string;
  readonly minVersion?: tls.SecureVersion;
  readonly maxVersion?: tls.SecureVersion;
  readonly ciphers?: string;
}

const OLD = "ALL:@SECLEVEL=0";
const PROBES: Readonly<Record<string, Probe>> = {
  tls10: { name: "TLS 1.0 only", minVersion: "TLSv1", maxVersion: "TLSv1", ciphers: OLD },
  tls11: { name: "TLS 1.1 only", minVersion: "TLSv1.1", maxVersion: "TLSv1.1", ciphers: OLD },
  tls12: { name: "TLS 1.2 at most", maxVersion: "TLSv1.2" },
  tls12sha: { name: "TLS 1.2, AES256-SHA only", maxVersion: "TLSv1.2", ciphers: "AES256-SHA" },
  any: { name: "any version" },
};

interface Case {
  readonly name: string;
  readonly control: readonly string[];
  readonly probes: readonly (keyof typeof PROBES)[];
}

const CASES: readonly Case[] = [
  { name: "allowtlsversion 1.1", control: ['allowtlsversion => "1.1";'], probes: ["tls11", "tls12", "any"] },
  {
    name: "allowtlsversion 1.1 with @SECLEVEL=0 in allowciphers",
    control: [
      'allowtlsversion => "1.1";',
      'allowciphers => "AES256-SHA:AES256-GCM-SHA384:@SECLEVEL=0:TLS_AES_256_GCM_SHA384";',
    ],
    probes: ["tls10", "tls11", "any"],
  },
  { name: "allowtlsversion 1.3", control: ['allowtlsversion => "1.3";'], probes: ["tls12", "any"] },
  {
    name: "allowciphers without a TLS 1.3 suite",
    control: ['allowciphers => "AES256-GCM-SHA384";'],
    probes: ["any", "tls12sha"],
  },
  {
    name: "allowciphers with TLS 1.3 suites only",
    control: ['allowciphers => "TLS_AES_256_GCM_SHA384";'],
    probes: ["tls12", "any"],
  },
  {
    name: "allowtlsversion not a version",
    control: ['allowtlsversion => "bogus";'],
    probes: ["tls10", "any"],
  },
];

const clientKeys = generateKeyPair();

/** What a client pinned to `probe` gets: "TLSv1.2 AES256-GCM-SHA384 CFE_v3", or "no handshake". */
function probe(host: Host, p: Probe): Promise<string> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host: host.address,
      port: host.port,
      key: privateKeyPem(clientKeys),
      cert: selfSignedCertificate(clientKeys),
      rejectUnauthorized: false,
      checkServerIdentity: () => undefined,
      ...(p.minVersion ? { minVersion: p.minVersion } : {}),
      ...(p.maxVersion ? { maxVersion: p.maxVersion } : {}),
      ...(p.ciphers ? { ciphers: p.ciphers } : {}),
    });
    let negotiated = "";
    let banner = "";
    const done = (what: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(what);
    };
    const timer = setTimeout(() => done(negotiated ? `${negotiated} (no banner)` : "timeout"), 10_000);
    socket.on("secureConnect", () => {
      negotiated = `${socket.getProtocol()} ${socket.getCipher().name}`;
    });
    socket.on("data", (chunk: Buffer) => {
      banner += chunk.toString("latin1");
      if (banner.includes("\n")) done(`${negotiated} ${banner.split(" ")[0]}`);
    });
    socket.on("error", () => done("no handshake"));
    socket.on("close", () => done(negotiated && banner === "" ? `${negotiated} (closed)` : "no handshake"));
  });
}

function policy(host: Host, control: readonly string[]): string {
  const body = serverControl(host).replace(/\n}\n$/, `\n  ${control.join("\n  ")}\n}\n`);
  return `body common control { bundlesequence => { "main" }; }
bundle agent main { }
${body}`;
}

/** The lines a server logged setting TLS up (not those of connections, "127.0.0.1>  …"), without the log prefix. */
function tlsLines(log: string): string[] {
  return log
    .split("\n")
    .filter((l) => /TLS version|cipher|allowtlsversion|allowciphers/i.test(l) && !/negotiated|\d>\s/.test(l))
    .map((l) => l.replace(/^\s*\w+: /, "").trim());
}

let count = 0;

async function serve(impl: Impl, c: Case): Promise<{ host: Host; log: () => string }> {
  const host = await lab.host(`s${++count}-${impl}`);
  const daemon = await host.startServer(impl, host.writePolicy("promises.cf", policy(host, c.control)), [
    "-v",
  ]);
  return { host, log: () => daemon.log };
}

for (const c of CASES) {
  test(`TLS settings beside cf-serverd: ${c.name}`, { timeout: 120_000 }, async (t) => {
    if (noReference) return t.skip(noReference);
    const cf = await serve("cf", c);
    const tend = await serve("tend", c);
    for (const name of c.probes) {
      const p = PROBES[name] as Probe;
      const [theirs, ours] = await Promise.all([probe(cf.host, p), probe(tend.host, p)]);
      t.diagnostic(`${p.name}: ${theirs}`);
      assert.equal(ours, theirs, `${p.name}: tend serverd answered '${ours}', cf-serverd '${theirs}'`);
    }
    const reference = new Set(tlsLines(cf.log()));
    const ourLines = tlsLines(tend.log()).filter((l) => !l.includes("@SECLEVEL=0' to the cipher list"));
    assert.ok(ourLines.length > 0, tend.log());
    for (const line of ourLines)
      assert.ok(
        reference.has(line),
        `tend logs '${line}', cf-serverd does not:\n${[...reference].join("\n")}`,
      );
  });
}

test("allowciphers matching nothing: cf-serverd's error, and no server", { timeout: 60_000 }, async (t) => {
  if (noReference) return t.skip(noReference);
  const outputs: string[] = [];
  for (const impl of ["cf", "tend"] as const) {
    const host = await lab.host(`bad-${impl}`);
    const file = host.writePolicy("promises.cf", policy(host, ['allowciphers => "NO-SUCH";']));
    const run =
      impl === "cf"
        ? host.runCf("cf-serverd", ["-F", "-f", file], { timeoutMs: 30_000 })
        : host.runTend("serverd", ["-F", "-f", file], { timeoutMs: 30_000 });
    outputs.push(run.stdout + run.stderr);
  }
  for (const out of outputs) assert.match(out, /error: No valid ciphers in the cipher list: NO-SUCH/, out);
});
