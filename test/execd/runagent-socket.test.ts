/**
 * cf-execd 3.21's runagent socket in tend execd: a local request runs the
 * policy's cfruncommand, another host runs runagent against it, and the
 * answer is the JSON cf-execd writes (compared with real cf-execd 3.21 on
 * the same policy). Where 3.21 would run a shell command made of the
 * request, or crash without a cfruncommand, tend refuses with an error;
 * where 3.21 never closes the connection, tend does.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openRunagentSocket } from "../../src/execd/runagent-socket.js";
import { Logger } from "../../src/system/logger.js";
import { scratchHost, skipReason, spawnInHost } from "../net/hosts.js";

const TEND = fileURLToPath(new URL("../../../bin/tend.js", import.meta.url));

function ask(path: string, request: string | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (c: string) => {
      answer += c;
      // cf-execd 3.21 keeps its end of the connection open (the parent never
      // closes it): a whole answer is the end.
      if (/}\n?$/.test(answer)) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
    if (request === undefined) socket.end();
    else socket.write(request);
  });
}

async function waitFor(path: string): Promise<void> {
  for (let i = 0; i < 300 && !existsSync(path); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(existsSync(path), `no socket at ${path}`);
}

function shortDir(t: TestContext): string {
  // A UNIX socket's path is limited to 107 bytes: stay near /tmp.
  const dir = mkdtempSync(join(tmpdir().length < 40 ? tmpdir() : "/tmp", "tend-rs-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("local and remote requests, and what tend refuses", async (t) => {
  const dir = shortDir(t);
  const errors: string[] = [];
  let command: string | undefined = "/bin/echo ran locally";
  const socket = await openRunagentSocket({
    directory: join(dir, "sockets"),
    localRunCommand: () => command,
    remoteRun: (host) => ["/bin/sh", "-c", 'echo "asked $0"; printf "\\001 bell\\n" >&2; exit 3', host],
    allowUsers: [],
    logger: new Logger((r) => errors.push(r.message), "error"),
  });
  assert.ok(socket);
  t.after(() => socket.close());
  assert.equal(socket.path, join(dir, "sockets", "runagent.socket"));

  assert.equal(await ask(socket.path, "localhost\n"), '{\n"output" : "ran locally\\n",\n"exit_code": 0\n}\n');
  assert.deepEqual(JSON.parse(await ask(socket.path, "127.0.0.1\n")), {
    output: "ran locally\n",
    exit_code: 0,
  });
  assert.deepEqual(JSON.parse(await ask(socket.path, "host-b.example\n")), {
    output: "asked host-b.example\n\u0001 bell\n",
    exit_code: 3,
  });
  assert.deepEqual(JSON.parse(await ask(socket.path, "x; touch /tmp/owned\n")), {
    error: "Not a host name or address: 'x; touch /tmp/owned'",
  });
  assert.deepEqual(JSON.parse(await ask(socket.path, undefined)), {
    error: "Failed to read the runagent request: no data",
  });
  command = undefined;
  assert.match(JSON.parse(await ask(socket.path, "localhost\n")).error, /No cfruncommand/);
  assert.deepEqual(errors, ["Failed to read the runagent request: no data"]);
});

const POLICY = `body common control { bundlesequence => { "main" }; }
body server control { cfruncommand => "/bin/echo ran from the socket"; }
body executor control { schedule => { "never_ever" }; }
bundle agent main { }
`;

async function answerOf(t: TestContext, child: ReturnType<typeof spawn>, path: string): Promise<string> {
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  await waitFor(path);
  // The socket's file exists from bind(2), a moment before listen(2): a
  // connection in between is refused, and made nothing happen. Ask again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await ask(path, "localhost\n");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ECONNREFUSED" || attempt >= 50) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

test("tend execd answers a local request as cf-execd 3.21 does", async (t) => {
  const dir = shortDir(t);
  mkdirSync(join(dir, "inputs"), { recursive: true });
  writeFileSync(join(dir, "inputs/promises.cf"), POLICY);
  const child = spawn(process.execPath, [TEND, "execd", "-F", "-w", dir], { stdio: "ignore" });
  const path = join(dir, "state/cf-execd.sockets/runagent.socket");
  const ours = await answerOf(t, child, path);
  assert.equal(ours, '{\n"output" : "ran from the socket\\n",\n"exit_code": 0\n}\n');
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
  assert.equal(existsSync(path), false, "the socket is removed at exit");

  const reason = skipReason("cf-execd");
  if (reason) return t.skip(`cf-execd not compared: ${reason}`);
  const host = scratchHost("tend-rs-cf-");
  writeFileSync(join(host.dir, "inputs/promises.cf"), POLICY);
  const reference = spawnInHost(t, host.dir, ["cf-execd", "-F"]);
  assert.equal(await answerOf(t, reference, join(host.dir, "state/cf-execd.sockets/runagent.socket")), ours);
});
