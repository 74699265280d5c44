/**
 * Every command of tend serverd through tend's own client: replies and
 * refusals as cf-serverd 3.21 gives them (server_tls.c, server_common.c).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { isNetError } from "../../../src/net/errors.js";
import { FAILED } from "../../../src/server/daemon/protocol.js";
import { handPolicy, startTestServer } from "./harness.js";

/** data/ (admitted) with files, secret/ (not admitted) beside it. */
function tree(dir: string): { data: string; secret: string } {
  const data = join(dir, "data");
  const secret = join(dir, "secret");
  mkdirSync(join(data, "sub"), { recursive: true });
  mkdirSync(secret);
  writeFileSync(join(data, "hello.txt"), "hello world\n");
  writeFileSync(join(data, "sub", "deep.txt"), "deep\n");
  writeFileSync(join(secret, "key"), "secret\n");
  return { data, secret };
}

const policyFor = (dir: string) => handPolicy({ acl: [{ path: `${join(dir, "data")}/` }] });

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isNetError(error, "refused")) return error.message;
    throw error;
  }
  assert.fail("expected a refusal");
}

test("VERSION answers OK: 3.21.0", async (t) => {
  const s = await startTestServer(t, handPolicy());
  const c = await s.connect();
  assert.equal(await c.version(), "3.21.0");
  assert.equal(await c.raw("VERSION"), "OK: 3.21.0");
  assert.equal(c.serverBanner, "CFE_v3 cf-serverd 3.21.0");
});

test("STAT of an admitted file, directory and link inside", async (t) => {
  const s = await startTestServer(t, policyFor);
  const { data } = tree(s.dir);
  symlinkSync("hello.txt", join(data, "link"));
  const c = await s.connect();
  const file = await c.stat(join(data, "hello.txt"));
  assert.equal(file.type, "file");
  assert.equal(file.size, 12);
  const dir = await c.stat(data);
  assert.equal(dir.type, "dir");
  // A link is resolved before the ACL is asked: the target is what is stat'ed.
  const link = await c.stat(join(data, "link"));
  assert.equal(link.type, "file");
  assert.equal(link.size, 12);
});

test("STAT refusals: missing, not admitted, relative; the connection stays usable", async (t) => {
  const s = await startTestServer(t, policyFor);
  const { data, secret } = tree(s.dir);
  const c = await s.connect();
  assert.equal(await refusal(c.stat(join(data, "missing"))), FAILED);
  assert.equal(await refusal(c.stat(join(secret, "key"))), FAILED);
  assert.equal(await refusal(c.stat("relative/path")), FAILED);
  assert.equal(await c.version(), "3.21.0");
  assert.ok(s.logs.some((l) => l.includes("access denied to STAT:")));
});

test("paths leading out of an admitted directory are refused", async (t) => {
  const s = await startTestServer(t, policyFor);
  const { data, secret } = tree(s.dir);
  symlinkSync(secret, join(data, "escape"));
  symlinkSync(join(secret, "key"), join(data, "escape-file"));
  const c = await s.connect();
  for (const path of [
    `${data}/../secret/key`,
    `${data}/sub/../../secret/key`,
    `${data}//..//secret/key`,
    join(data, "escape", "key"),
    join(data, "escape-file"),
  ]) {
    assert.equal(await refusal(c.stat(path)), FAILED, path);
    assert.equal(await refusal(c.get(path, 7)), FAILED, path);
    assert.equal(await refusal(c.md5Differs(path, Buffer.alloc(16))), FAILED, path);
  }
  assert.equal(await refusal(c.opendir(`${data}/../secret`)), FAILED);
  assert.deepEqual(
    (await c.opendir(`${data}/sub/..`)).sort(),
    [".", "..", "escape", "escape-file", "hello.txt", "sub"].sort(),
  );
});

test("GET sends the file, small or of many blocks", async (t) => {
  const s = await startTestServer(t, policyFor);
  const { data } = tree(s.dir);
  const big = Buffer.alloc(10_000 + 17);
  for (let i = 0; i < big.length; i++) big[i] = (i * 31) % 251;
  writeFileSync(join(data, "big.bin"), big);
  const c = await s.connect();
  assert.equal((await c.get(join(data, "hello.txt"), 12))?.toString(), "hello world\n");
  assert.ok((await c.get(join(data, "big.bin"), big.length))?.equals(big));
  assert.equal(await c.version(), "3.21.0");
});

test("GET: a user other than root has only files it owns or anyone may read", async (t) => {
  const s = await startTestServer(t, policyFor);
  const { data } = tree(s.dir);
  writeFileSync(join(data, "private"), "private\n");
  chmodSync(join(data, "private"), 0o600);
  chmodSync(join(data, "hello.txt"), 0o644);
  const c = await s.connect({ user: "nobody" });
  assert.equal((await c.get(join(data, "hello.txt"), 12))?.toString(), "hello world\n");
  assert.equal(await refusal(c.get(join(data, "private"), 8)), FAILED);
  assert.ok(s.logs.some((l) => l.includes("Remote user 'nobody' is not owner of the file")));
});

test("OPENDIR lists every name, over several frames when long", async (t) => {
  const s = await startTestServer(t, policyFor);
  const { data } = tree(s.dir);
  const many = join(data, "many");
  mkdirSync(many);
  const names = Array.from({ length: 120 }, (_, i) => `${"n".repeat(60)}-${i}`);
  for (const name of names) writeFileSync(join(many, name), "");
  const c = await s.connect();
  assert.deepEqual((await c.opendir(many)).sort(), [".", "..", ...names].sort());
  assert.equal(await refusal(c.opendir(join(data, "nothere"))), FAILED);
  assert.match(
    await refusal(c.opendir(join(data, "hello.txt"))),
    /^BAD: cfengine, couldn't open dir .*hello\.txt\/$/,
  );
});

test("MD5 says whether the file differs", async (t) => {
  const s = await startTestServer(t, policyFor);
  const { data } = tree(s.dir);
  const c = await s.connect();
  const same = createHash("md5").update("hello world\n").digest();
  assert.equal(await c.md5Differs(join(data, "hello.txt"), same), false);
  assert.equal(await c.md5Differs(join(data, "hello.txt"), Buffer.alloc(16)), true);
});

test("shortcuts are expanded before the path is checked", async (t) => {
  const s = await startTestServer(t, (dir) =>
    handPolicy({ acl: [{ path: `${join(dir, "data")}/` }], shortcuts: { masterfiles: join(dir, "data") } }),
  );
  tree(s.dir);
  const c = await s.connect();
  assert.equal((await c.stat("masterfiles/hello.txt")).size, 12);
  assert.equal((await c.get("masterfiles/hello.txt", 12))?.toString(), "hello world\n");
  assert.equal(await refusal(c.stat("masterfiles/../secret/key")), FAILED);
});

test("denybadclocks refuses a client two hours off", async (t) => {
  const s = await startTestServer(t, policyFor, { server: { now: () => Date.now() + 2 * 3600_000 } });
  const { data } = tree(s.dir);
  const c = await s.connect();
  assert.match(
    await refusal(c.stat(join(data, "hello.txt"))),
    /^BAD: Clocks are too far unsynchronized \d+\/\d+$/,
  );
});

test("CONTEXT answers the admitted persistent classes matching", async (t) => {
  const s = await startTestServer(t, handPolicy({ contexts: ["shared_.*"] }));
  const state = join(s.workdir, "state");
  mkdirSync(state, { recursive: true, mode: 0o700 });
  const later = Date.now() + 3600_000;
  writeFileSync(
    join(state, "persistent-classes.json"),
    JSON.stringify({
      shared_one: { expires: later, tags: [] },
      shared_two: { expires: later, tags: [] },
      private_one: { expires: later, tags: [] },
      shared_old: { expires: Date.now() - 1000, tags: [] },
    }),
    { mode: 0o600 },
  );
  const c = await s.connect();
  assert.deepEqual((await c.context("shared_.*")).sort(), ["shared_one", "shared_two"]);
  assert.equal(await refusal(c.context("private_.*")), FAILED);
  assert.equal(await refusal(c.context("nothing")), FAILED);
});

test("VAR: BAD: Not found, or refused when not admitted", async (t) => {
  const s = await startTestServer(t, handPolicy({ literals: { motd: "hello there" } }));
  const c = await s.connect();
  assert.equal(await c.raw("VAR nothing"), FAILED);
  assert.equal(await c.raw("VAR motd"), "hello there");
});

test("Enterprise commands not admitted are refused, the connection kept", async (t) => {
  const s = await startTestServer(t, handPolicy());
  const c = await s.connect();
  assert.equal(await c.raw("QUERY delta 0 0"), FAILED);
  assert.equal(await c.raw("COOKIE"), FAILED);
  assert.equal(await c.version(), "3.21.0");
});

test("unknown and malformed requests: BAD: Request denied, then closed", async (t) => {
  const s = await startTestServer(t, handPolicy());
  for (const request of [
    "FROBNICATE now",
    "GET 0 /etc/passwd",
    "GET 5000 /etc/passwd",
    "SYNCH x STAT /",
    "OPENDIR",
  ]) {
    const c = await s.connect();
    assert.equal(await c.raw(request), "BAD: Request denied", request);
    await assert.rejects(c.version(), request);
    c.close();
  }
  assert.ok(s.logs.some((l) => l.includes("Unexpected protocol command: FROBNICATE now")));
});

test("EXEC runs cfruncommand with admitted classes and bundles", async (t) => {
  const s = await startTestServer(t, (dir) => {
    const script = join(dir, "run.sh");
    writeFileSync(script, '#!/bin/sh\necho "args: $*"\necho "to stderr" >&2\nexit 3\n', { mode: 0o755 });
    return handPolicy({
      acl: [{ path: script }],
      control: { cfRunCommand: `${script} -K`, allowUsers: ["root"], allowAllConnects: ["127.0.0.1"] },
      roles: { "allowed_.*": ["root"] },
      bundles: ["ok_bundle"],
    });
  });
  const lines: string[] = [];
  const c = await s.connect();
  const code = await c.exec({ defineClasses: ["allowed_one"], bundles: ["ok_bundle"] }, (l) => lines.push(l));
  c.close();
  assert.equal(code, 3);
  assert.match(
    lines[0] ?? "",
    /^cf-serverd executing cfruncommand: .*run\.sh -K -D allowed_one --bundlesequence ok_bundle\n$/,
  );
  assert.ok(lines.includes("> args: -K -D allowed_one --bundlesequence ok_bundle\n"), lines.join(""));
  assert.ok(lines.includes("> to stderr\n"), lines.join(""));
  const denied: string[] = [];
  const d = await s.connect();
  await d.exec({ defineClasses: ["forbidden"] }, (l) => denied.push(l));
  d.close();
  assert.deepEqual(denied, ["EXEC denied role activation (check cf-serverd verbose output)"]);
  const bundle: string[] = [];
  const b = await s.connect();
  await b.exec({ bundles: ["other"] }, (l) => bundle.push(l));
  assert.deepEqual(bundle, ["EXEC denied bundle activation (check cf-serverd verbose output)"]);
});

test("EXEC is refused without cfruncommand, or for a user not in allowusers", async (t) => {
  const s = await startTestServer(t, handPolicy());
  const lines: string[] = [];
  const c = await s.connect();
  await c.exec({}, (l) => lines.push(l));
  assert.deepEqual(lines, [FAILED]);
  assert.ok(s.logs.some((l) => l.includes("EXEC denied due to empty cfruncommand")));
});
