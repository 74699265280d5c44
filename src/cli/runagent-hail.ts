/**
 * What `tend runagent` does once its command line is read: the settings of
 * `body runagent control`, then each host hailed (one after the other, or
 * in parallel with `-b`), and the exit code from their answers.
 */
import { lookup } from "node:dns/promises";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { writeFileAtomically } from "../system/atomic.js";
import type { Logger } from "../system/logger.js";
import { ServerConnection } from "../net/client.js";
import { isNetError } from "../net/errors.js";
import type { CliIo } from "./io.js";
import { EXIT_FAILURE } from "./io.js";
import { errorText, loadKeyPair, networkDirectories, parseHostPort, stdoutLogger } from "./remote.js";
import { OTHER_ERROR, type RunagentOptions } from "./runagent.js";
import { readRunagentControl, type RunagentControl } from "./runagent-control.js";

/** Where one host's lines go: straight out, or held until the host is done (background). */
interface HostOutput {
  readonly io: CliIo;
  readonly log: Logger;
}

export async function hailHosts(options: RunagentOptions, io: CliIo): Promise<number> {
  const log = stdoutLogger(io, options.level, options.timestamp);
  const dirs = networkDirectories(io, options.workdir);
  const control = readRunagentControl(options, dirs.workdir, io, log);
  if (!control) return EXIT_FAILURE;
  let background = options.background !== undefined;
  if (control.background !== undefined) {
    if (background || options.interactive)
      log.warning(
        "'background_children' setting from 'body runagent control' is overridden by command-line option.",
      );
    else background = control.background;
  }
  // As 3.21, max_children of the policy wins over -b's number.
  const width = control.maxChildren ?? options.background ?? 50;
  if (background && options.interactive) {
    log.error("You cannot specify background mode and interactive mode together");
    return OTHER_ERROR;
  }
  const hosts = options.hosts ?? control.hosts;
  const context = { options, control, dirs, background };
  const oneHost = hosts.length === 1;
  const codes = background
    ? await hailInParallel(hosts, Math.max(1, width), io, log, (host, out) => hailServer(context, host, out))
    : await hailInTurn(hosts, (host) => hailServer(context, host, { io, log }));
  return exitCode(codes, oneHost, background);
}

async function hailInTurn(
  hosts: readonly string[],
  hail: (host: string) => Promise<number>,
): Promise<number[]> {
  const codes: number[] = [];
  for (const host of hosts) codes.push(await hail(host));
  return codes;
}

/** At most `width` hosts at once; each host's reply lines are printed together when it is done. */
async function hailInParallel(
  hosts: readonly string[],
  width: number,
  io: CliIo,
  log: Logger,
  hail: (host: string, out: HostOutput) => Promise<number>,
): Promise<number[]> {
  const codes: number[] = new Array(hosts.length);
  let next = 0;
  const worker = async () => {
    while (next < hosts.length) {
      const i = next++;
      const held: string[] = [];
      const bufferedIo: CliIo = { ...io, stdout: (text) => held.push(text), stdoutBytes: undefined };
      // As 3.21's children: log lines at once, the host's replies when it is done.
      const out = { io: bufferedIo, log };
      codes[i] = await hail(hosts[i], out);
      io.stdout(held.join(""));
    }
  };
  const workers = Array.from({ length: Math.min(width, hosts.length) }, worker);
  if (hosts.length > 0) log.notice("Waiting for child processes to finish");
  await Promise.all(workers);
  return codes;
}

/**
 * 3.21's exit code: one host's own code (a host that gave none: 255, or
 * 101 in background mode), else the count of failed hosts (at most 100).
 */
export function exitCode(codes: readonly number[], oneHost: boolean, background: boolean): number {
  if (oneHost) return codes[0] < 0 && background ? OTHER_ERROR : codes[0] & 0xff;
  let failed = 0;
  for (const code of codes) if (code !== 0) failed = Math.min(failed + 1, 100);
  return failed;
}

interface HailContext {
  readonly options: RunagentOptions;
  readonly control: RunagentControl;
  readonly dirs: { workdir: string; ppkeys: string };
  readonly background: boolean;
}

/** Asks one host to run its agent; its exit code, or -1 when there was none. */
async function hailServer(context: HailContext, entry: string, out: HostOutput): Promise<number> {
  const target = parseHostPort(entry);
  if (!target) {
    out.log.info("No remote hosts were specified to connect to");
    return -1;
  }
  let address: string;
  try {
    address = (await lookup(target.host)).address;
  } catch {
    out.log.error(`HailServer: ERROR, could not resolve '${target.host}'`);
    return -1;
  }
  if (context.background) out.log.info(`Hailing ${target.host} : ${target.port} (in the background)`);
  else {
    out.log.info("........................................................................");
    out.log.info(`Hailing ${target.host} : ${target.port}`);
    out.log.info("........................................................................");
  }
  const conn = await connectServer(context, target, address, out);
  if (!conn) {
    out.log.error(`Failed to connect to host: ${target.host}`);
    return -1;
  }
  return hailExec(context, conn, target.host, out);
}

async function connectServer(
  context: HailContext,
  target: { host: string; port: number },
  address: string,
  out: HostOutput,
): Promise<ServerConnection | undefined> {
  const keys = loadKeyPair(context.dirs.ppkeys, out.log);
  if (!keys) return undefined;
  const attempt = (trustServer: boolean) =>
    ServerConnection.connect({
      host: address,
      port: target.port,
      keys,
      ppkeys: context.dirs.ppkeys,
      lastSeen: join(context.dirs.workdir, "state"),
      trustServer,
      timeoutMs: context.options.timeoutSeconds * 1000,
      logger: out.log,
    });
  try {
    return await attempt(false);
  } catch (error) {
    if (isNetError(error, "untrusted") && context.options.interactive) {
      const digest = /(?:MD5|SHA)=[0-9a-f]+/.exec(error.message)?.[0] ?? "an unknown key";
      if (await askTrust(out.io, target.host, address, digest))
        return attempt(true).catch((again: unknown) => {
          out.log.verbose(errorText(again));
          return undefined;
        });
    }
    if (isNetError(error, "untrusted")) out.log.error(error.message);
    else out.log.verbose(errorText(error));
    return undefined;
  }
}

/** Asks on the terminal whether to trust the key `digest` of `host`; true for "yes". */
async function askTrust(io: CliIo, host: string, address: string, digest: string): Promise<boolean> {
  io.stdout(`WARNING - You do not have a public key from host ${host} = ${address}\n`);
  io.stdout(`          It presented the key ${digest}\n`);
  io.stdout("          Do you want to accept one on trust? (yes/no)\n\n--> ");
  const lines = createInterface({ input: process.stdin, terminal: false });
  try {
    for await (const line of lines) {
      const reply = line.trim();
      if (reply === "yes") {
        io.stdout("Will trust the key...\n");
        return true;
      }
      if (reply === "no") {
        io.stdout("Will not trust the key...\n");
        return false;
      }
      io.stdout(`Please reply yes or no...(${reply})\n`);
    }
    io.stdout("EOF trying to read answer from terminal\n");
    return false;
  } finally {
    lines.close();
  }
}

/** EXEC and its reply lines, printed (or written to a file) as cf-runagent does. */
async function hailExec(
  context: HailContext,
  conn: ServerConnection,
  peer: string,
  out: HostOutput,
): Promise<number> {
  const sink = outputSink(context, peer, out);
  const ip = conn.address.replace(/:\d+$/, "").replace(/^\[(.*)\]$/, "$1");
  let code = -1;
  try {
    await conn.exec(
      {
        defineClasses: context.options.defineClasses,
        bundles: context.options.bundles,
        sendClasses: context.options.selectClasses,
      },
      (line) => {
        const exit = /^\(exit code: (-?\d+)\)/.exec(line);
        if (exit) code = Number(exit[1]);
        sink.write(formatReply(ip, line));
      },
    );
  } catch (error) {
    out.log.verbose(`The connection to ${peer} ended: ${errorText(error)}`);
  } finally {
    conn.close();
    sink.close();
  }
  return code;
}

/**
 * One reply frame as cf-runagent prints it: `IP> line`, `IP> -> output`,
 * `IP> !! refusal`, with a newline added when the frame has none (a
 * refusal always gets one more, as in 3.21).
 */
export function formatReply(ip: string, line: string): string {
  let text: string;
  if (line.startsWith("BAD:")) text = `${ip}> !! ${line.slice(4)}\n`;
  else if (line.startsWith("> ")) text = `${ip}> -> ${line.slice(2)}`;
  else text = `${ip}> ${line}`;
  return line.length > 0 && !line.endsWith("\n") ? `${text}\n` : text;
}

/** stdout, or `<output_directory>/<host>_runagent.out` with `output_to_file`. */
function outputSink(
  context: HailContext,
  peer: string,
  out: HostOutput,
): { write(t: string): void; close(): void } {
  if (!context.control.outputToFile) return { write: (t) => out.io.stdout(t), close: () => undefined };
  const dir = context.control.outputDirectory ?? join(context.dirs.workdir, "outputs");
  const file = join(dir, `${peer}_runagent.out`);
  out.io.stdout(`Opening file... ${file}\n`);
  const parts: string[] = [];
  return {
    write: (t) => parts.push(t),
    close: () => {
      try {
        if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
        writeFileAtomically(file, parts.join(""), 0o600);
      } catch (error) {
        out.log.error(`Unable to open file '${file}' (fopen: ${errorText(error)})`);
        out.io.stdout(parts.join(""));
      }
    },
  };
}
