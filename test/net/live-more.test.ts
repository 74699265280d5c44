/**
 * More of tend's client against a real cf-serverd 3.21: another user than
 * root (ownership refusals), CONTEXT and VAR.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ServerConnection } from "../../src/net/client.js";
import { NetError } from "../../src/net/errors.js";
import { CF_FAILEDSTR } from "../../src/net/frame.js";
import { scratchDirectory } from "../scratch.js";
import {
  cfengineTool,
  freePort,
  loopbackAddress,
  runInHost,
  scratchHost,
  serverPolicy,
  skipReason,
  startCfServerd,
} from "./hosts.js";

const reason = skipReason("cf-serverd", "cf-promises", "cf-agent");

test("another user than root, CONTEXT and VAR against cf-serverd 3.21", { skip: reason }, async (t) => {
  const tree = scratchDirectory("tend-net-more-");
  chmodSync(tree, 0o755);
  mkdirSync(join(tree, "pub"));
  chmodSync(join(tree, "pub"), 0o755);
  writeFileSync(join(tree, "pub", "private"), "root only\n", { mode: 0o600 });
  writeFileSync(join(tree, "pub", "public"), "everyone\n", { mode: 0o644 });
  const server = scratchHost("tend-net-more-srv-");
  const client = scratchHost("tend-net-more-cli-");
  server.trust(client, "nobody");
  server.trust(client, "root");
  client.trust(server, "nobody");
  client.trust(server, "root");
  // Persistent classes for CONTEXT, set by a real cf-agent in the server's work directory.
  const setter = join(server.inputs, "set.cf");
  writeFileSync(
    setter,
    'bundle agent main { classes: "tend_net_one" expression => "any", persistence => "60"; "tend_net_two" expression => "any", persistence => "60"; "other_class" expression => "any", persistence => "60"; }\n',
  );
  const set = runInHost(server.dir, [
    cfengineTool("cf-agent") as string,
    "-Kf",
    "/var/lib/cfengine3/inputs/set.cf",
  ]);
  assert.equal(set.status, 0, set.stdout + set.stderr);
  const address = loopbackAddress();
  const port = await freePort(address);
  const running = await startCfServerd(t, server, {
    address,
    port,
    policy: serverPolicy({
      address,
      port,
      admit: [`${tree}/pub`],
      allowUsers: ["root", "nobody"],
      extra: `
bundle server more
{
  access:
    "tend_net_.*" resource_type => "context", admit_ips => { "127.0.0.0/8" };
    "myliteral" resource_type => "literal", admit_ips => { "127.0.0.0/8" };
}
`,
    }),
  });
  const connect = (user: string) =>
    ServerConnection.connect({
      host: running.address,
      port: running.port,
      keys: client.keys,
      ppkeys: client.ppkeys,
      user,
      trustServer: false,
      timeoutMs: 20_000,
    });

  await t.test("a user may GET a world-readable file, not someone else's private one", async () => {
    const conn = await connect("nobody");
    t.after(() => conn.close());
    const st = await conn.stat(`${tree}/pub/public`);
    assert.equal((await conn.get(`${tree}/pub/public`, st.size))?.toString(), "everyone\n");
    const priv = await conn.stat(`${tree}/pub/private`);
    await assert.rejects(conn.get(`${tree}/pub/private`, priv.size), (error: unknown) => {
      assert.ok(error instanceof NetError);
      assert.equal(error.kind, "refused");
      assert.equal(error.message, CF_FAILEDSTR);
      return true;
    });
    // The framed refusal and the raw block after it are both consumed.
    assert.equal(await conn.version(), "3.21.0");
    assert.equal((await conn.get(`${tree}/pub/public`, st.size))?.toString(), "everyone\n");
  });

  await t.test("CONTEXT gives the persistent classes access admits", async () => {
    const conn = await connect("root");
    t.after(() => conn.close());
    assert.deepEqual((await conn.context("tend_net_.*")).sort(), ["tend_net_one", "tend_net_two"]);
    await assert.rejects(
      conn.context("other_.*"),
      (error: unknown) => error instanceof NetError && error.kind === "refused",
    );
  });

  await t.test("VAR: community answers no value", async () => {
    const conn = await connect("root");
    t.after(() => conn.close());
    const value = await conn.var("myliteral").catch((error: unknown) => error);
    assert.ok(value === undefined || (value instanceof NetError && value.kind === "refused"), String(value));
  });
});
