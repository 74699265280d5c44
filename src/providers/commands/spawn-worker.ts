/**
 * The spawn worker: a thread that runs the programs of `commands` promises
 * while the agent's thread waits for the reply (spawn-client.ts), starting
 * them from Node, where perl is missing (else perl-runner.ts runs them).
 *
 * Why a thread: the agent evaluates synchronously, but a program's
 * standard output and standard error must go, in the order written, into
 * one real pipe (as with 3.21's popen, so `/dev/stderr` can be reopened)
 * that is read while the program runs (else a chatty program blocks on a
 * full pipe). Node makes no pipes, so the worker reads FIFOs, made with
 * mkfifo and reused: each program gets a fresh write end of an idle one as
 * its standard output and standard error, and its output ends when every
 * writer (it and whatever it started) has closed it, as 3.21 reads to the
 * end of its pipe. A FIFO whose reading stopped early (cfengine-die, time
 * limit) may still have writers and is not used again. A program with a
 * time limit runs in its own process group, killed whole at the limit.
 * Background programs run alongside, each with its own FIFO.
 */
import { execFileSync, spawn } from "node:child_process";
import { closeSync, constants, openSync, rmSync } from "node:fs";
import { Socket } from "node:net";
import { join } from "node:path";
import { type MessagePort, workerData } from "node:worker_threads";
import type { SpawnMessage, SpawnReply, SpawnRequest, SpawnWorkerData } from "./spawn-protocol.js";

/** After SIGTERM at the time limit, how long the group has before SIGKILL. */
const KILL_GRACE_MS = 1000;
/** After the kill, how long to wait for the output to end before giving up on it. */
const DRAIN_GRACE_MS = 2000;

const { fifoDir, ready, port } = workerData as SpawnWorkerData & { port: MessagePort };
const readyFlag = new Int32Array(ready);
let fifoCount = 0;
const idleFifos: string[] = [];

/** An idle FIFO, or a new one. */
function takeFifo(): string {
  const idle = idleFifos.pop();
  if (idle !== undefined) return idle;
  const path = join(fifoDir, `out-${++fifoCount}`);
  execFileSync("mkfifo", ["-m", "600", path], { stdio: "ignore" });
  return path;
}

/** Keeps a FIFO for the next program, or drops one that may still have writers. */
function giveBack(path: string, clean: boolean): void {
  if (clean) idleFifos.push(path);
  else rmSync(path, { force: true });
}

function failure(error: string): SpawnReply {
  return { exitCode: null, signal: null, timedOut: false, output: new Uint8Array(0), error };
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** The worker's environment with the request's variables set or (null) removed. */
function childEnvironment(changes: Readonly<Record<string, string | null>>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** What becomes of a program once launched. */
interface LaunchEvents {
  started(pid: number): void;
  failed(message: string): void;
  exited(code: number | null, signal: string | null): void;
}

/** Runs one program to its end (or its time limit) and collects its output. */
function run(request: SpawnRequest, started: () => void): Promise<SpawnReply> {
  let path: string;
  let reader: number;
  try {
    path = takeFifo();
    // The read end first (without blocking), so that opening the write end does not wait.
    reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return Promise.resolve(failure(`cannot make the output pipe: ${(error as Error).message}`));
  }
  return new Promise((resolve) =>
    collect(request, path, reader, started, (reply, clean) => {
      giveBack(path, clean);
      resolve(reply);
    }),
  );
}

/** Starts the program with the FIFO as its standard output and standard error. */
function launch(request: SpawnRequest, path: string, events: LaunchEvents): void {
  const group = request.timeoutMs !== undefined;
  let writer: number;
  try {
    writer = openSync(path, constants.O_WRONLY);
  } catch (error) {
    events.failed((error as Error).message);
    return;
  }
  const [program, ...args] = request.argv;
  let input: number | "ignore" = "ignore";
  try {
    if (request.stdinPath !== undefined) input = openSync(request.stdinPath, constants.O_RDONLY);
    const child = spawn(program, args, {
      stdio: [input, writer, writer],
      env: request.env === undefined ? process.env : childEnvironment(request.env),
      cwd: request.cwd,
      // Node takes ids as 32-bit signed numbers (uid -2 for 4294967294).
      uid: request.uid === undefined ? undefined : request.uid | 0,
      gid: request.gid === undefined ? undefined : request.gid | 0,
      detached: group,
    });
    child.on("error", (thrown) => events.failed(thrown.message));
    child.on("exit", (code, signal) => events.exited(code, signal));
    if (child.pid !== undefined) events.started(child.pid);
  } catch (thrown) {
    events.failed((thrown as Error).message);
  } finally {
    // Only the program (and what it starts) may hold the write end now.
    closeSync(writer);
    if (typeof input === "number") closeSync(input);
  }
}

function collect(
  request: SpawnRequest,
  path: string,
  reader: number,
  started: () => void,
  resolve: (reply: SpawnReply, clean: boolean) => void,
): void {
  const limited = request.timeoutMs !== undefined;
  const chunks: Buffer[] = [];
  let kept = 0;
  let line = "";
  let exit: { code: number | null; signal: string | null } | undefined;
  let error: string | undefined;
  let outputDone = false;
  /** Whether the output was read to its end (no writer is left). */
  let clean = true;
  let timedOut = false;
  const timers: NodeJS.Timeout[] = [];

  const output = new Socket({ fd: reader, readable: true, writable: false });
  // The reply waits for the reader's close: until Node has let go of its
  // descriptor, a new reader may not be given the same number.
  let readerClosed = false;
  const finish = (): void => {
    if (!outputDone || !readerClosed || (exit === undefined && error === undefined)) return;
    for (const timer of timers) clearTimeout(timer);
    const data = new Uint8Array(Buffer.concat(chunks));
    if (error !== undefined) resolve({ ...failure(error), output: data }, clean);
    else resolve({ exitCode: exit!.code, signal: exit!.signal, timedOut, output: data }, clean);
  };
  const endOutput = (early: boolean): void => {
    if (outputDone) return;
    if (early) clean = false;
    outputDone = true;
    output.destroy();
    finish();
  };
  output.on("data", (chunk: Buffer) => {
    if (kept < request.maxOutput) chunks.push(chunk.subarray(0, request.maxOutput - kept));
    kept += chunk.length;
    // Past the limit the pipe is closed: a program that goes on writing gets SIGPIPE.
    if (kept >= request.maxOutput) {
      endOutput(true);
      return;
    }
    if (request.stopAt !== undefined) {
      // Only the current line can newly hold the text: keep its start.
      const text = line + chunk.toString("latin1");
      if (text.includes(request.stopAt)) {
        // 3.21 closes its pipe there: more output from the program gets SIGPIPE.
        endOutput(true);
        return;
      }
      line = text.slice(text.lastIndexOf("\n") + 1).slice(-request.stopAt.length);
    }
  });
  output.on("close", () => {
    readerClosed = true;
    finish();
  });
  output.on("end", () => endOutput(false));
  output.on("error", () => endOutput(true));

  let pid: number | undefined;
  launch(request, path, {
    started(childPid) {
      pid = childPid;
      started();
      if (limited) timers.push(setTimeout(() => onTimeout(childPid), request.timeoutMs));
    },
    failed(message) {
      error = message;
      started();
      // A program that never ran leaves no writer; the output ends now.
      if (pid === undefined) endOutput(false);
      finish();
    },
    exited(code, signal) {
      exit = { code, signal };
      finish();
    },
  });

  function onTimeout(group: number): void {
    timedOut = true;
    killGroup(group, "SIGTERM");
    timers.push(setTimeout(() => killGroup(group, "SIGKILL"), KILL_GRACE_MS));
    timers.push(
      setTimeout(() => {
        // Something outside the group still holds the pipe: leave it, and the FIFO, behind.
        endOutput(true);
        if (exit === undefined && error === undefined) error = "the program did not end after SIGKILL";
        finish();
      }, KILL_GRACE_MS + DRAIN_GRACE_MS),
    );
  }
}

/** Requests not answered yet. */
const inFlight = new Set<number>();

function post(message: SpawnMessage): void {
  if (message.kind === "done") port.postMessage(message, [message.reply.output.buffer as ArrayBuffer]);
  else port.postMessage(message);
  Atomics.add(readyFlag, 0, 1);
  Atomics.notify(readyFlag, 0);
}

function answer(id: number, reply: SpawnReply): void {
  if (!inFlight.delete(id)) return;
  post({ id, kind: "done", reply });
}

// The agent's thread waits for replies without running its event loop, so
// every request must get one whatever happens here.
process.on("uncaughtException", (thrown) => {
  for (const id of [...inFlight]) answer(id, failure(`spawn worker: ${thrown.message}`));
});

port.on("message", (request: SpawnRequest) => {
  const { id } = request;
  inFlight.add(id);
  const started = () => {
    if (request.background) post({ id, kind: "started" });
  };
  run(request, started).then(
    (reply) => answer(id, reply),
    (thrown: Error) => answer(id, failure(`spawn worker: ${thrown.message}`)),
  );
});
