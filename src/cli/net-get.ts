/**
 * `tend net get REMOTE [-o LOCAL] [-j JOBS]`, as cf-net 3.21's get: STAT
 * for the size, then GET, saved under the remote file's name in the
 * current directory unless `-o` names another (`-o -`: stdout). With
 * `-j N`, N connections fetch at once, each into `LOCAL.i` (or LOCAL with
 * its `%d` replaced by i; `%d` in REMOTE is replaced too).
 *
 * The file is written to a temporary file renamed into place, so a failed
 * transfer leaves what was there (cf-net deletes it first).
 */
import { basename, resolve } from "node:path";
import { isNetError } from "../net/errors.js";
import { writeFileAtomically } from "../system/atomic.js";
import { getopt, type OptionSpec } from "./getopt.js";
import { connectTo, invalidCommand, type NetSession, remoteStat, serverName } from "./net-connect.js";
import { errorText } from "./remote.js";

const GET_OPTIONS: readonly OptionSpec[] = [
  { short: "o", long: "output", argument: "required" },
  { short: "j", long: "jobs", argument: "required" },
];

interface Job {
  readonly remote: string;
  readonly local: string;
}

/** Runs `get` against one host; its problems are printed, never returned. */
export async function getFiles(session: NetSession, host: string, args: readonly string[]): Promise<void> {
  const jobs = planJobs(session, args.slice(1));
  if (!jobs) return;
  await Promise.all(jobs.map((job) => getOne(session, host, job)));
}

function planJobs(session: NetSession, args: readonly string[]): Job[] | undefined {
  if (args.length === 0) {
    invalidCommand(session, "get");
    return undefined;
  }
  const parsed = getopt(args, GET_OPTIONS);
  if (parsed.error) {
    session.io.stderr(`tend net get: ${parsed.error}\n`);
    invalidCommand(session, "get");
    return undefined;
  }
  let local: string | undefined;
  let jobs = 1;
  for (const { key, value = "" } of parsed.options) {
    if (key === "output") {
      if (local !== undefined)
        session.log.info("Warning: multiple occurences of -o in command, only last one will be used.");
      local = value;
    } else if (/^\s*[+-]?\d+$/.test(value) && Number(value) >= 1) jobs = Number(value);
    else session.io.stdout(`Failed to parse number of threads/jobs from '${value}'\n`);
  }
  const remote = parsed.operands[0];
  if (remote === undefined) {
    invalidCommand(session, "get");
    return undefined;
  }
  const output = local ?? basename(remote);
  if (jobs === 1) return [{ remote, local: output }];
  return Array.from({ length: jobs }, (_, i) => ({
    remote: remote.replaceAll("%d", String(i)),
    local: output.includes("%d") ? output.replaceAll("%d", String(i)) : `${output}.${i}`,
  }));
}

async function getOne(session: NetSession, host: string, job: Job): Promise<void> {
  const conn = await connectTo(session, host);
  if (!conn) return;
  const server = serverName(host);
  try {
    if (!(await transfer(session, conn, server, job))) session.io.stdout(`Could not stat: '${job.remote}'\n`);
  } finally {
    conn.close();
  }
}

async function transfer(
  session: NetSession,
  conn: NonNullable<Awaited<ReturnType<typeof connectTo>>>,
  server: string,
  job: Job,
): Promise<boolean> {
  const stat = await remoteStat(session, conn, server, job.remote);
  if (!stat) {
    session.log.error(`Failed to stat remote file ${server}:${job.remote}`);
    return false;
  }
  if (stat.type === "dir") {
    // cf-net sends the GET anyway and waits for its timeout.
    session.log.error(`Remote path ${server}:${job.remote} is a directory, not a file`);
    session.log.warning(`Failed to GET file ${server}:${job.remote}`);
    return false;
  }
  let data: Buffer;
  try {
    data = (await conn.get(job.remote, stat.size)) ?? Buffer.alloc(0);
  } catch (error) {
    reportGetError(session, server, job.remote, error);
    return false;
  }
  return save(session, job.local, data);
}

function reportGetError(session: NetSession, server: string, remote: string, error: unknown): void {
  if (isNetError(error, "refused") && error.message.startsWith("BAD: File changed"))
    session.log.error(`Remote file ${server}:${remote} changed during file transfer`);
  else if (isNetError(error, "refused"))
    session.log.error(`Error from server while retrieving file ${server}:${remote}: ${error.message}`);
  else {
    session.log.verbose(errorText(error));
    session.log.warning(`Failed to GET file ${server}:${remote}`);
  }
}

function save(session: NetSession, local: string, data: Buffer): boolean {
  if (local === "-") {
    const bytes = session.io.stdoutBytes;
    if (bytes) bytes(data);
    else session.io.stdout(data.toString("utf8"));
    return true;
  }
  const path = resolve(session.io.cwd, local);
  try {
    writeFileAtomically(path, data, 0o644 & ~process.umask());
    return true;
  } catch (error) {
    session.log.warning(`Failed to open file ${local} (fopen: ${errorText(error)})`);
    return false;
  }
}
