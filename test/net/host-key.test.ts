/**
 * The agent knows its key as cf-agent does: `sys.key_digest` and the hard
 * class `PK_MD5_<hex>` when ppkeys holds the pair.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createEvalContext } from "../../src/eval/setup.js";
import { generateKeyPair, keyDigest, writeKeyPair } from "../../src/net/keys.js";
import { scratchDirectory } from "../scratch.js";
import { cfengineTool, runInHost, skipReason } from "./hosts.js";

const ref = (name: string) => ({ ns: null, scope: "sys", name, indices: [] });

test("sys.key_digest and PK_MD5_<hex> come from ppkeys/localhost.*", () => {
  const workdir = scratchDirectory("tend-net-hostkey-");
  const none = createEvalContext({ workdir });
  assert.equal(none.getVariable(ref("key_digest")), undefined);
  const pair = generateKeyPair();
  writeKeyPair(join(workdir, "ppkeys"), pair);
  const digest = keyDigest(pair.publicKey);
  const ctx = createEvalContext({ workdir });
  const value = ctx.getVariable(ref("key_digest"));
  assert.equal(value && "value" in value ? value.value : undefined, digest);
  assert.ok(ctx.isClassDefined(`PK_${digest.replace("=", "_")}`));
  assert.deepEqual(ctx.getVariableTags(ref("key_digest")), [
    "inventory",
    "source=agent",
    "attribute_name=CFEngine ID",
  ]);
});

test("no private key, no key digest (as cf-agent)", () => {
  const workdir = scratchDirectory("tend-net-hostkey2-");
  const pair = generateKeyPair();
  writeKeyPair(join(workdir, "ppkeys"), pair, { priv: "elsewhere.priv", pub: "localhost.pub" });
  assert.equal(createEvalContext({ workdir }).getVariable(ref("key_digest")), undefined);
});

test("real cf-agent defines the same digest and class for a key tend wrote", {
  skip: skipReason("cf-agent"),
}, () => {
  const workdir = scratchDirectory("tend-net-hostkey3-");
  const pair = generateKeyPair();
  writeKeyPair(join(workdir, "ppkeys"), pair);
  const digest = keyDigest(pair.publicKey);
  const policy = join(workdir, "p.cf");
  writeFileSync(
    policy,
    `bundle agent main { reports: "digest=$(sys.key_digest)"; PK_${digest.replace("=", "_")}:: "class=yes"; }\n`,
  );
  const result = runInHost(workdir, [cfengineTool("cf-agent") as string, "-Kf", policy]);
  assert.match(result.stdout, new RegExp(`R: digest=${digest}\\n`));
  assert.match(result.stdout, /R: class=yes/);
});
