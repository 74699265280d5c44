/**
 * Path-escape attempts (test/server/fuzz/escapes.ts) against both servers,
 * each on its own scratch host: every attempt that leads out of the admitted
 * directory is refused with 3.21's refusal line, for every command.
 *
 * Recorded on cf-serverd 3.21: all refused with CF_FAILEDSTR, except a path
 * with a NUL in it, which 3.21 reads up to the NUL (so it serves the
 * admitted file before it, and OPENDIR says it cannot open that "dir"):
 * not an escape, and tend may do the same or refuse.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ServerConnection } from "../../src/net/client.js";
import { CF_FAILEDSTR } from "../../src/net/frame.js";
import { generateKeyPair } from "../../src/net/keys.js";
import { type Impl, Lab, tendHas, whyNoReference } from "../net/hosts.js";
import { fuzzServerPolicy, makeFuzzTree } from "./fuzz/campaign.js";
import { ESCAPES, tryEscape, VERBS } from "./fuzz/escapes.js";

const SECRET = "not admitted";

function whyNot(impl: Impl): { skip?: string; todo?: string } {
  if (impl === "cf") {
    const reason = whyNoReference();
    return reason ? { skip: reason } : {};
  }
  if (process.getuid?.() !== 0) return { skip: "needs root (the tree links to /etc, served as root)" };
  return tendHas("serverd") ? {} : { todo: "tend serverd is not on this tree yet" };
}

for (const impl of ["tend", "cf"] as const) {
  test(`${impl === "cf" ? "cf-serverd 3.21" : "tend serverd"} refuses every path that leads out of the admitted directory`, async (t) => {
    const why = whyNot(impl);
    if (why.skip) return t.skip(why.skip);
    if (why.todo) return t.todo(why.todo);
    const lab = new Lab("tend-escape-");
    t.after(() => lab.close());
    const host = await lab.host("server");
    const tree = makeFuzzTree(host.data);
    await host.startServer(
      impl,
      host.writePolicy("server.cf", fuzzServerPolicy(host.address, host.port, [tree.root], 30)),
    );
    const ppkeys = join(lab.root, "agent-ppkeys");
    mkdirSync(ppkeys, { mode: 0o700 });
    const keys = generateKeyPair();
    const connect = () =>
      ServerConnection.connect({
        host: host.address,
        port: host.port,
        keys,
        ppkeys,
        user: "root",
        trustServer: true,
      });

    // The admitted file is served: the refusals below are the ACL's, not a broken setup.
    const ok = await connect();
    assert.equal((await ok.get(tree.file, (await ok.stat(tree.file)).size))?.equals(tree.content), true);
    ok.close();

    for (const attempt of ESCAPES) {
      for (const verb of VERBS) {
        const connection = await connect();
        const outcome = await tryEscape(connection, verb, attempt.path(tree.root));
        connection.close();
        const where = `${attempt.name}, ${verb}`;
        assert.ok(!outcome.includes(SECRET), `${where}: the secret was served: ${outcome}`);
        if (attempt.name.startsWith("a NUL")) {
          assert.match(outcome, /^refused |^served (stat: file|get: "well-behaved|md5)/, where);
          continue;
        }
        assert.equal(outcome, `refused ${CF_FAILEDSTR}`, where);
      }
    }
  });
}
