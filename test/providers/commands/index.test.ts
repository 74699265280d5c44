import assert from "node:assert/strict";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { findExecutable, runCommand } from "../../../src/providers/commands/index.js";

// Every runner the provider may use: each must give the same results.
const RUNNERS = [
  { name: "python", present: existsSync("/usr/bin/python3") },
  { name: "perl", present: existsSync("/usr/bin/perl") },
  { name: "node", present: true },
];

function withRunner(name: string, body: () => void): void {
  const saved = process.env.TEND_SPAWNER;
  process.env.TEND_SPAWNER = name;
  try {
    body();
  } finally {
    if (saved === undefined) delete process.env.TEND_SPAWNER;
    else process.env.TEND_SPAWNER = saved;
  }
}

const text = (output: Buffer) => output.toString("utf8");

for (const runner of RUNNERS) {
  test(`commands provider through the ${runner.name} runner`, (t) => {
    if (!runner.present) {
      t.skip(`${runner.name} is not installed`);
      return;
    }
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "tend-cmd-")));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    withRunner(runner.name, () => {
      const argv = runCommand({ command: { argv: ["/bin/echo", "a  b", "$HOME"] } });
      assert.equal(argv.exitCode, 0);
      assert.equal(text(argv.output), "a  b $HOME\n");

      const shell = runCommand({ command: { shell: "echo out; echo err >&2; exit 3" } });
      assert.equal(shell.exitCode, 3);
      assert.equal(text(shell.output), "out\nerr\n");

      const stdout = runCommand({ command: { shell: "echo out; echo err >&2" }, output: "stdout" });
      assert.equal(text(stdout.output), "out\n");
      const stderr = runCommand({ command: { shell: "echo out; echo err >&2" }, output: "stderr" });
      assert.equal(text(stderr.output), "err\n");

      const env = runCommand({
        command: { shell: 'echo "$TEND_A/$TEND_B"' },
        env: { TEND_A: "one", TEND_B: "x=y" },
      });
      assert.equal(text(env.output), "one/x=y\n");
      const removed = runCommand({ command: { shell: "env | grep -c ^HOME=" }, env: { HOME: null } });
      assert.equal(text(removed.output), "0\n");
      // The agent's own environment is inherited.
      assert.equal(text(runCommand({ command: { shell: 'echo "$PATH"' } }).output), `${process.env.PATH}\n`);

      const cwd = runCommand({ command: { argv: ["/bin/pwd"] }, cwd: dir, umask: 0o027 });
      assert.equal(text(cwd.output), `${dir}\n`);
      const umask = runCommand({ command: { shell: "umask" }, umask: 0o027 });
      assert.equal(text(umask.output).trim(), "0027");

      const stdin = runCommand({ command: { argv: ["/bin/cat"] }, stdin: "fed\n" });
      assert.equal(text(stdin.output), "fed\n");

      const missing = runCommand({ command: { argv: ["/no/such/program"] } });
      assert.equal(missing.exitCode, null);
      assert.ok(missing.error);

      const badDir = runCommand({ command: { argv: ["/bin/true"] }, cwd: join(dir, "absent") });
      assert.equal(badDir.setupFailure?.step, "chdir");
      assert.match(badDir.error ?? "", /Couldn't chdir to '.*absent'\. \(chdir: No such file or directory\)/);

      const slow = runCommand({ command: { argv: ["/bin/sleep", "30"] }, timeoutMs: 200 });
      assert.equal(slow.timedOut, true);
      assert.equal(slow.exitCode, null);
      assert.equal(slow.signal, "SIGTERM");
    });
  });
}

test("commands provider: a bare name is looked up along the search path", () => {
  assert.equal(findExecutable("sh", ["/nonexistent", "/bin"]), "/bin/sh");
  assert.equal(findExecutable("no-such-program-here", ["/bin", "/usr/bin"]), undefined);
  assert.equal(findExecutable("/bin/sh", []), "/bin/sh");
  // A directory is not a program.
  assert.equal(findExecutable("bin", ["/"]), undefined);
});
