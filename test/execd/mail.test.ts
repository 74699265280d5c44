/**
 * Mailing a run's output as cf-execd 3.21 does: the SMTP dialogue and
 * headers against a server the test runs on a loopback port it picks, and
 * 3.21's messages when the mail server cannot be reached (the unknown host
 * compared with real cf-execd's).
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { main } from "../../src/cli/app.js";
import type { CliIo } from "../../src/cli/io.js";
import { Executor } from "../../src/execd/daemon.js";
import { Logger } from "../../src/system/logger.js";
import { freePort, runInHost, skipReason } from "../net/hosts.js";
import { scratchDirectory } from "../scratch.js";

function workdir(body: string): string {
  const dir = scratchDirectory("tend-execd-mail-");
  mkdirSync(join(dir, "inputs"));
  writeFileSync(
    join(dir, "inputs", "promises.cf"),
    `body common control { bundlesequence => { "main" }; }\nbody executor control {\n${body}\n}\nbundle agent main { reports: "x"; }\n`,
  );
  return dir;
}

function executor(dir: string, log: string[], smtpPort: number): Executor {
  return new Executor({
    file: "promises.cf",
    workdir: dir,
    logger: new Logger((r) => log.push(`${r.level}: ${r.message}`), "info"),
    tendCommand: ["false"],
    fqname: "host.example.org",
    smtpPort,
  });
}

test("the output is mailed with 3.21's dialogue and headers, cut at mailmaxlines", async (t) => {
  const port = await freePort();
  const transcript: string[] = [];
  const server = createServer((socket) => {
    let data = false;
    let buffer = "";
    socket.write("220 test ESMTP\r\n");
    socket.on("data", (chunk) => {
      buffer += chunk.toString();
      let nl = buffer.indexOf("\r\n");
      while (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        transcript.push(line);
        if (data) {
          if (line === ".") {
            data = false;
            socket.write("250 queued\r\n");
          }
        } else if (line === "DATA") {
          data = true;
          socket.write("354 go on\r\n");
        } else if (line === "QUIT") {
          socket.end("221 bye\r\n");
        } else if (line.startsWith("HELO")) socket.write("250-test\r\n250 ok\r\n");
        else socket.write("250 ok\r\n");
        nl = buffer.indexOf("\r\n");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  t.after(() => server.close());
  const dir = workdir(`exec_command => "/bin/sh -c 'echo one; echo .two; echo noise; echo three; echo four'";
  mailto => "admin@example.org";
  mailfrom => "execd@example.org";
  smtpserver => "127.0.0.1";
  mailmaxlines => "3";
  mailfilter_exclude => { "noise" };`);
  const log: string[] = [];
  const e = executor(dir, log, port);
  assert.ok(e.start().ok);
  const result = await e.runOnce(true);
  assert.ok(result?.file);
  // No info lines of the output: they go by mail.
  assert.deepEqual(log, []);
  const headerEnd = transcript.indexOf("");
  assert.deepEqual(transcript.slice(0, 4), [
    "HELO host.example.org",
    "MAIL FROM: <execd@example.org>",
    "RCPT TO: <admin@example.org>",
    "DATA",
  ]);
  const headers = transcript.slice(4, headerEnd);
  assert.match(headers[0] as string, /^Subject: \[host\.example\.org\/.*\]$/);
  assert.match(
    headers[1] as string,
    /^X-CFEngine: vfqhost="host\.example\.org";ip-addresses=".*";policyhub="\(none\)";pkhash=""$/,
  );
  assert.match(
    headers[2] as string,
    /^Date: [A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d [+-]\d{4}$/,
  );
  assert.deepEqual(headers.slice(3), ["From: execd@example.org", "To: admin@example.org"]);
  assert.deepEqual(transcript.slice(headerEnd + 1), [
    "one",
    "..two",
    "three",
    "",
    `[Mail truncated by CFEngine. File is at ${result.file} on host.example.org]`,
    ".",
    "QUIT",
  ]);
});

test("a refused connection is logged as 3.21 logs it", async () => {
  const port = await freePort();
  const dir = workdir(
    `exec_command => "/bin/echo hello"; mailto => "root@localhost"; smtpserver => "127.0.0.1";`,
  );
  const log: string[] = [];
  const e = executor(dir, log, port);
  assert.ok(e.start().ok);
  await e.runOnce(true);
  assert.deepEqual(log, [
    "error: Mail report: couldn't connect to host '127.0.0.1'. (connect: Connection refused)",
  ]);
});

const UNKNOWN_HOST = `exec_command => "/bin/echo hello"; mailto => "root@localhost"; smtpserver => "no-such-host.invalid";`;

test("an unknown mail host: the same message as real cf-execd 3.21's", async (t) => {
  const dir = workdir(UNKNOWN_HOST);
  const out: string[] = [];
  const io: CliIo = {
    stdout: (s) => out.push(s),
    stderr: (s) => out.push(s),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env: process.env,
    cwd: dir,
  };
  assert.equal(await main(["execd", "--once", "-I", "-w", dir], io), 0);
  const expected =
    "   error: Mail report: unknown host 'no-such-host.invalid' ('smtpserver' in body executor control). Make sure that fully qualified names can be looked up at your site.\n";
  assert.equal(out.join(""), expected);
  const reason = skipReason("cf-execd");
  if (reason) return t.skip(reason);
  const ref = workdir(UNKNOWN_HOST);
  const done = runInHost(ref, ["cf-execd", "--once", "-I"]);
  assert.equal(done.status, 0);
  assert.equal(done.stdout, expected);
});
