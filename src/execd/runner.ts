/**
 * One agent run as cf-execd 3.21's LocalExec does it: the command in a
 * shell, its non-blank output lines saved in `outputs/cf_<host>__<time>_<ctime>_<id>`
 * (and logged at info when there is no mail address), a run silent for
 * agent_expireafter killed with its whole process group, then the output
 * compared with `outputs/previous`, which becomes a link to it.
 */
import { spawn } from "node:child_process";
import {
  copyFileSync,
  createWriteStream,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { join } from "node:path";
import type { Logger } from "../system/logger.js";
import type { ExecutorControl } from "./control.js";
import { mailResult } from "./mail.js";

export interface RunOptions {
  readonly control: ExecutorControl;
  /** The command to run (exec_command, or the default one). */
  readonly command: string;
  readonly workdir: string;
  /** `sys.fqhost`, for the file name. */
  readonly fqname: string;
  readonly logger: Logger;
  readonly scheduled: boolean;
  /** The start time (injectable for tests). */
  readonly now?: Date;
  /** Overrides agent_expireafter's minutes (tests). */
  readonly expireAfterMs?: number;
  /** Waits between the kill's signals (tests): 3.21 waits 1 s after SIGINT, 5 s after SIGTERM. */
  readonly killGraceMs?: readonly [number, number];
  /** Keep only this many run outputs (0: all, as 3.21). */
  readonly maxOutputs?: number;
  readonly env?: NodeJS.ProcessEnv;
  /** `sys.ipv4` and every address of the host, for the mail's headers. */
  readonly ipAddress?: string;
  readonly ipAddresses?: string;
  /** The SMTP port (25, as 3.21; tests pick another). */
  readonly smtpPort?: number;
}

export interface RunResult {
  /** The output file, or undefined when the run printed nothing (3.21 removes the file). */
  readonly file: string | undefined;
  readonly lines: number;
  readonly complete: boolean;
  readonly killed: boolean;
  /** Whether the output differed from the previous run's (when there was output). */
  readonly changed: boolean;
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const two = (n: number): string => String(n).padStart(2, "0");

/** ctime(3) without its newline: "Fri Nov 27 05:08:52 2026" (local time). */
export function ctimeText(d: Date): string {
  return `${DAYS[d.getDay()]} ${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, " ")} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())} ${d.getFullYear()}`;
}

/** CanonifyName: every byte but letters and digits becomes `_`. */
export function canonify(text: string): string {
  return text.replace(/[^A-Za-z0-9]/g, "_");
}

let runCounter = 0;

/** The output file's name, as 3.21 names it: `cf_<fqname>__<epoch>_<ctime>_0x<id>`. */
export function outputFileName(fqname: string, start: Date, id: number): string {
  const epoch = Math.floor(start.getTime() / 1000);
  return `cf_${canonify(fqname)}__${epoch}_${canonify(ctimeText(start))}_0x${id.toString(16)}`;
}

/** 3.21's timestamp of a log line, removed before comparing with the previous output. */
const TIMESTAMP = /^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]/;

function anchored(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`, "s");
}

/** Whether a line is left out of the comparison (and of mail) by mailfilter_include/exclude. */
function filtered(control: ExecutorControl, line: string): boolean {
  const included =
    control.mailFilterInclude.length === 0 || control.mailFilterInclude.some((p) => anchored(p).test(line));
  const excluded = control.mailFilterExclude.some((p) => anchored(p).test(line));
  return !included || excluded;
}

function withoutTimestamp(line: string): string {
  if (!TIMESTAMP.test(line)) return line;
  const at = line.indexOf(": ");
  return at < 0 ? line : line.slice(at + 2);
}

/**
 * Whether the new output equals the previous one (filtered lines left out,
 * timestamps removed), as 3.21's CompareResultEqualOrFiltered: a new output
 * with no unfiltered line counts as equal.
 */
export function sameAsPrevious(
  control: ExecutorControl,
  previous: string | undefined,
  current: string,
): boolean {
  if (previous === undefined) return false;
  const lines = (text: string): string[] =>
    text
      .split("\n")
      .filter((l, i, all) => !(i === all.length - 1 && l === ""))
      .filter((l) => !filtered(control, l))
      .map(withoutTimestamp);
  const old = lines(previous);
  const now = lines(current);
  if (now.length === 0) return true;
  if (old.length !== now.length) return false;
  return old.every((line, i) => line === now[i]);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** ProcessSignalTerminate on a process group: SIGINT, then SIGTERM, then SIGKILL. */
async function terminateGroup(pgid: number, logger: Logger, grace: readonly [number, number]): Promise<void> {
  const signal = (name: NodeJS.Signals): boolean => {
    try {
      process.kill(-pgid, name);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ESRCH") logger.error(`Could not send ${name} to pid '${-pgid}'. (kill: ${code})`);
      return false;
    }
  };
  if (!signal("SIGINT")) return;
  await sleep(grace[0]);
  if (!alive(-pgid)) return;
  if (!signal("SIGTERM")) return;
  await sleep(grace[1]);
  if (!alive(-pgid)) return;
  signal("SIGKILL");
}

/** Runs the agent once and keeps its output. */
export async function runAgent(options: RunOptions): Promise<RunResult> {
  const { control, logger, workdir } = options;
  const start = options.now ?? new Date();
  logger.verbose("----------------------------------------------------------------");
  logger.verbose(`  LocalExec(${options.scheduled ? "" : "not "}scheduled) at ${ctimeText(start)}`);
  logger.verbose("----------------------------------------------------------------");
  const outputs = join(workdir, "outputs");
  mkdirSync(outputs, { recursive: true, mode: 0o700 });
  runCounter += 1;
  const file = join(outputs, outputFileName(options.fqname, start, process.pid * 0x10000 + runCounter));
  const out = createWriteStream(file, { mode: 0o600 });
  logger.verbose(`Command => ${options.command}`);
  const child = spawn("/bin/sh", ["-c", options.command], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: options.env ?? process.env,
  });
  logger.verbose(`Command is executing...${options.command}`);
  const expireMs = options.expireAfterMs ?? control.agentExpireAfter * 60_000;
  let count = 0;
  let text = "";
  let killed = false;
  let pending = "";
  let timer: NodeJS.Timeout | undefined;
  let killing: Promise<void> | undefined;
  const onLine = (line: string): void => {
    if (line.trim() === "") return;
    out.write(`${line}\n`);
    text += `${line}\n`;
    count++;
    if (control.mailTo === "") logger.info(line);
  };
  const arm = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      const message = `cf-execd: timeout waiting for output from agent (agent_expireafter=${control.agentExpireAfter}) - terminating it`;
      out.write(`${message}\n`);
      text += `${message}\n`;
      count++;
      logger.notice(message);
      killed = true;
      if (child.pid !== undefined)
        killing = terminateGroup(child.pid, logger, options.killGraceMs ?? [1000, 5000]);
      else logger.error("Could not get PID of agent");
    }, expireMs);
  };
  arm();
  const onData = (chunk: Buffer): void => {
    if (killed) return;
    arm();
    pending += chunk.toString();
    let nl = pending.indexOf("\n");
    while (nl >= 0) {
      onLine(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
      nl = pending.indexOf("\n");
    }
  };
  // cf_popen_sh gives the agent's stdout; its stderr goes where cf-execd's goes (here: the same pipe).
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const code = await new Promise<number | null>((resolve) => {
    child.on("error", (error) => {
      logger.error(`Couldn't open pipe to command '${options.command}'. (cf_popen: ${error.message})`);
      resolve(null);
    });
    child.on("close", (c) => resolve(c));
  });
  if (timer) clearTimeout(timer);
  if (killing) await killing;
  if (!killed && pending.trim() !== "") onLine(pending);
  await new Promise<void>((resolve) => out.end(() => resolve()));
  const complete = !killed && code !== null;
  logger.verbose(complete ? "Command is complete" : "Terminated command");
  if (count === 0) {
    logger.verbose("No output");
    rmSync(file, { force: true });
    return { file: undefined, lines: 0, complete, killed, changed: false };
  }
  logger.verbose("Mailing result");
  const changed = await keepAsPrevious(options, file, text);
  if (options.maxOutputs) pruneOutputs(outputs, options.maxOutputs);
  return { file, lines: count, complete, killed, changed };
}

/** MailResult's part without a mail server: compare with `previous`, make `previous` this run's. */
async function keepAsPrevious(options: RunOptions, file: string, text: string): Promise<boolean> {
  const { logger, control } = options;
  logger.verbose("Mail report: sending result...");
  const previousFile = join(options.workdir, "outputs", "previous");
  logger.verbose(`Comparing files  ${previousFile} with ${file}`);
  let previous: string | undefined;
  try {
    previous = readFileSync(previousFile, "utf8");
  } catch {
    previous = undefined;
  }
  let same = sameAsPrevious(control, previous, text);
  rmSync(previousFile, { force: true });
  try {
    symlinkSync(file, previousFile);
  } catch {
    try {
      copyFileSync(file, previousFile);
    } catch {
      logger.info(`Could not symlink or copy '${file}' to '${previousFile}'`);
      same = false;
    }
  }
  if (same) {
    logger.verbose("Mail report: previous output is the same as current so do not mail it");
    return false;
  }
  if (control.smtpServer === "" || control.mailTo === "") {
    logger.verbose("Mail report: empty mail server or address - skipping");
    return true;
  }
  if (control.mailMaxLines === 0) {
    logger.debug("Mail report: not mailing because EmailMaxLines was zero");
    return true;
  }
  logger.debug(`Mail report: mailing results of '${file}' to '${control.mailTo}'`);
  await mailResult({
    control,
    file,
    lines: text.split("\n").slice(0, -1),
    fqname: options.fqname,
    ipAddress: options.ipAddress ?? "",
    ipAddresses: options.ipAddresses ?? options.ipAddress ?? "",
    workdir: options.workdir,
    logger,
    filtered: (line) => filtered(control, line),
    port: options.smtpPort,
    now: options.now,
  });
  return true;
}

/** Removes the oldest run outputs beyond `keep` (tend's limit; 3.21 keeps all). */
export function pruneOutputs(outputs: string, keep: number): void {
  let names: { name: string; mtime: number }[];
  try {
    names = readdirSorted(outputs);
  } catch {
    return;
  }
  for (const { name } of names.slice(0, Math.max(0, names.length - keep)))
    rmSync(join(outputs, name), { force: true });
}

function readdirSorted(dir: string): { name: string; mtime: number }[] {
  return readdirSync(dir)
    .filter((name) => name.startsWith("cf_"))
    .map((name) => ({ name, mtime: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => a.mtime - b.mtime || a.name.localeCompare(b.name));
}
