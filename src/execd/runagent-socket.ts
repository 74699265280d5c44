/**
 * cf-execd 3.21's runagent socket: a UNIX stream socket at
 * `<statedir>/cf-execd.sockets/runagent.socket` (or in the directory given
 * by `--with-runagent-socket`) on which a local program asks for an agent
 * run. A request is one line: `localhost` or a loopback address runs the
 * local run command (`cfruncommand` of `body server control`); any other
 * host runs `runagent -b -H <host>` against it. The answer is JSON:
 * `{"output": ..., "exit_code": N}` with the command's stdout and stderr, or
 * `{"error": ...}`.
 *
 * Where tend does better than 3.21: 3.21 puts the requested host into a
 * command line unquoted and runs it, so whoever may write to the socket
 * may run any command as root; tend accepts only a host name or address
 * and passes it as one argument. 3.21 also crashes on a local request when
 * the policy has no `cfruncommand`; tend answers with an error. 3.21's
 * daemon never closes its copy of an accepted connection, so a client sees
 * the answer but never the end of it; tend closes it after the answer. And
 * every control character in the output is escaped: the answer is valid JSON.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { type Server, type Socket, createServer } from "node:net";
import { dirname, join } from "node:path";
import { runProgram } from "../providers/acl/posix-acl.js";
import type { Logger } from "../system/logger.js";
import { splitCommand } from "../eval/functions/exec.js";

export const RUNAGENT_SOCKET_NAME = "runagent.socket";

export interface RunagentSocketOptions {
  /** The socket's directory: `<statedir>/cf-execd.sockets` unless given. */
  readonly directory: string;
  /** The command for a local run (`cfruncommand`), read when a request comes. */
  readonly localRunCommand: () => string | undefined;
  /** The argv that runs an agent on another host (`tend runagent -b -H HOST`). */
  readonly remoteRun: (host: string) => readonly string[];
  /** `runagent_socket_allow_users`: given read and write access by ACL. */
  readonly allowUsers: readonly string[];
  readonly logger: Logger;
  readonly env?: NodeJS.ProcessEnv;
}

export interface RunagentSocket {
  readonly path: string;
  close(): Promise<void>;
}

/** Whether a request names this host, as 3.21's StringIsLocalHostIP and "localhost". */
function isLocal(request: string): boolean {
  return request === "localhost" || request.startsWith("127.") || request === "::1";
}

/** A host name, an IPv4 or an IPv6 address (optionally with a port); nothing a shell could read. */
const HOST = /^[A-Za-z0-9._:[\]-]{1,255}$/;

/** JSON string text: 3.21's escapes, and every other control character as \u00XX. */
const jsonText = (text: string): string => JSON.stringify(text).slice(1, -1);

function errorAnswer(message: string): string {
  return `{"error": "${jsonText(message)}"}`;
}

/** Runs argv, stdout and stderr together, as 3.21's cf_popen with stderr captured. */
function collect(
  argv: readonly string[],
  env: NodeJS.ProcessEnv | undefined,
): Promise<{ output: string; code: number } | { error: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const child = spawn(argv[0] as string, argv.slice(1), { env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    child.once("error", (error) => resolve({ error: error.message }));
    child.once("close", (code, signal) =>
      resolve({ output: Buffer.concat(chunks).toString(), code: code ?? (signal ? 128 : 1) }),
    );
  });
}

async function answer(request: string, options: RunagentSocketOptions): Promise<string> {
  let argv: readonly string[];
  let tool: string;
  if (isLocal(request)) {
    tool = "the agent";
    const command = options.localRunCommand();
    if (command === undefined || command.trim() === "")
      return errorAnswer("No cfruncommand in body server control: nothing to run for a local request");
    argv = splitCommand(command);
  } else {
    tool = "runagent";
    if (!HOST.test(request)) return errorAnswer(`Not a host name or address: '${request}'`);
    argv = options.remoteRun(request);
  }
  const result = await collect(argv, options.env);
  if ("error" in result) {
    options.logger.error(`Failed to start ${tool} and connect to its output`);
    return errorAnswer(`Failed to start ${tool} and connect to its output`);
  }
  return `{\n"output" : "${jsonText(result.output)}",\n"exit_code": ${result.code}\n}\n`;
}

function serve(socket: Socket, options: RunagentSocketOptions): void {
  let buffered = "";
  let handled = false;
  const handle = (request: string | undefined): void => {
    if (handled) return;
    handled = true;
    socket.pause();
    if (request === undefined || request === "") {
      options.logger.error("Failed to read the runagent request: no data");
      socket.end(errorAnswer("Failed to read the runagent request: no data"));
      return;
    }
    void answer(request, options).then((text) => socket.end(text));
  };
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffered += chunk;
    const newline = buffered.indexOf("\n");
    if (newline >= 0) handle(buffered.slice(0, newline));
    else if (buffered.length > 4096) handle(buffered.slice(0, 4096));
  });
  socket.on("end", () => handle(buffered));
  socket.on("error", () => socket.destroy());
}

/** Opens the socket; undefined (and an error logged) when it cannot be. */
export async function openRunagentSocket(
  options: RunagentSocketOptions,
): Promise<RunagentSocket | undefined> {
  const { logger } = options;
  const path = join(options.directory, RUNAGENT_SOCKET_NAME);
  if (Buffer.byteLength(path) > 107) {
    logger.error("Failed to create socket for runagent requests");
    return undefined;
  }
  const created = !existsSync(options.directory);
  mkdirSync(options.directory, { recursive: true });
  if (created) chmodSync(options.directory, 0o750);
  // Left-overs of an earlier process.
  rmSync(path, { force: true });
  const server: Server = createServer((socket) => serve(socket, options));
  const listening = await new Promise<boolean>((resolve) => {
    server.once("error", (error) => {
      logger.error(`Failed to bind the runagent socket: ${error.message}`);
      resolve(false);
    });
    server.listen(path, () => resolve(true));
  });
  if (!listening) return undefined;
  // A later instance may take the path over; closing removes only our own socket.
  const inode = statSync(path).ino;
  if (options.allowUsers.length > 0) {
    const ok = options.allowUsers.every(
      (user) =>
        runProgram(["setfacl", "-m", `u:${user}:rw`, path]).status === 0 &&
        runProgram(["setfacl", "-m", `u:${user}:rx`, dirname(path)]).status === 0,
    );
    if (!ok) logger.error("Failed to allow runagent_socket_allow_users users access the runagent socket");
  }
  return {
    path,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          try {
            if (statSync(path).ino === inode) rmSync(path, { force: true });
          } catch {
            // Already gone.
          }
          resolve();
        });
      }),
  };
}
