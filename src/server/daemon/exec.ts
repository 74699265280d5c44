/**
 * EXEC (cf-runagent): runs `cfruncommand` with the `-D` classes and `-b`
 * bundles the client asks for, each checked as cf-serverd 3.21's `DoExec2`
 * checks it, and streams the output back as `> line` frames. The caller
 * sends the terminator afterwards, whatever happened.
 *
 * Beyond 3.21: the command runs at most `execTimeoutMs` (its process group
 * is killed), and a line longer than a frame is cut as 3.21 cuts it.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { commandArg0, splitCommand } from "../../eval/functions/exec.js";
import { FAILED, TERMINATOR } from "./protocol.js";
import type { Session } from "./channel.js";
import { resolveRequestPath } from "./request-path.js";

/** Whether the connection stays open afterwards. */
export type KeepOpen = boolean;

const LINE_LIMIT = 4088 - 5;

async function refuse(session: Session, reason: string): Promise<KeepOpen> {
  session.log.info(reason);
  await session.channel.send(FAILED);
  session.log.verbose(`REFUSAL to user='${session.peer.user || "?"}' of request: EXEC`);
  return false;
}

async function deny(session: Session, text: string, keepOpen = true): Promise<KeepOpen> {
  session.log.info(text);
  await session.channel.send(text);
  return keepOpen;
}

export async function doExec(session: Session, args: string): Promise<KeepOpen> {
  const { policy, peer } = session;
  const command = policy.control.cfRunCommand ?? "";
  if (command === "") return refuse(session, "EXEC denied due to empty cfruncommand");
  const arg0 = resolveRequestPath(commandArg0(command), session.log);
  if (arg0 === undefined) return refuse(session, "EXEC failed, invalid cfruncommand arg0");
  if (!policy.checkPath(arg0, peer).admitted)
    return refuse(session, `EXEC denied due to ACL for file: ${arg0}`);
  if (!policy.allowsUser(peer.user))
    return refuse(session, `EXEC denied due to not allowed user: ${peer.user}`);
  if (!(await matchClasses(session)))
    return deny(session, "EXEC denied due to failed class match (check cf-serverd verbose output)");
  const parsed = authorizeArguments(session, args);
  if (typeof parsed === "object") return deny(session, parsed.denied);
  const line = command + parsed;
  if (Buffer.byteLength(line) >= 4096)
    return deny(session, `EXEC denied: too long (${Buffer.byteLength(line)} B) command: ${line}`, false);
  return run(session, line);
}

/**
 * The client's class list (MatchClasses): frames of blank-separated class
 * names or regexes until the terminator; an empty list admits, else one
 * must be a class of the server. At most ten frames are read.
 */
async function matchClasses(session: Session): Promise<boolean> {
  for (let count = 1; count <= 10; count++) {
    const text = (await session.channel.receive()).payload.toString("utf8").replace(/\0.*$/s, "");
    if (text.startsWith(TERMINATOR)) {
      if (count === 1) return true;
      break;
    }
    for (const name of text.split(" ").filter((n) => n.length > 0)) {
      session.log.verbose(`Checking whether class ${name} can be identified as me...`);
      if (session.policy.classMatches(name)) return true;
      if (name.startsWith(TERMINATOR)) break;
    }
  }
  await session.channel.send(`Hello  (${session.peer.ip}), nothing relevant to do here...\n\n`);
  session.log.verbose("No classes matched, rejecting....");
  return false;
}

const ACCEPTABLE = /^[A-Za-z0-9_:]*$/;

/**
 * `-D a,b` and `-b x,y`, as AuthorizeDelimitedArgs reads them: the words
 * up to the next blank, each made only of letters, digits, `_` and `:`,
 * and each admitted (roles for classes, `resource_type => "bundle"` for
 * bundles). The arguments to append to cfruncommand, or the denial.
 */
function authorizeArguments(session: Session, args: string): string | { denied: string } {
  let rest = args.replace(/^[ \t]+/, "");
  let out = "";
  while (rest.length > 0) {
    const option = rest.slice(0, 2);
    if (option !== "-D" && option !== "-b") return { denied: `EXEC denied: invalid arguments: ${rest}` };
    rest = rest.slice(2).replace(/^[ \t]+/, "");
    const list = /^[^ \t]*/.exec(rest)?.[0] ?? "";
    rest = rest.slice(list.length).replace(/^[ \t]+/, "");
    const classes = option === "-D";
    for (const token of list.split(",")) {
      if (list.length === 0) break;
      if (!ACCEPTABLE.test(token) || !authorized(session, classes, token)) {
        session.log.info(`Access denied to: ${token}`);
        const what = classes ? "role" : "bundle";
        return { denied: `EXEC denied ${what} activation (check cf-serverd verbose output)` };
      }
    }
    if (list.length > 0) out += classes ? ` -D ${list}` : ` --bundlesequence ${list}`;
  }
  return out;
}

function authorized(session: Session, classes: boolean, token: string): boolean {
  const { policy, peer } = session;
  return classes ? policy.rolesAuthorize([token], peer.user) : policy.checkResource("bundle", token, peer);
}

/** Runs the command line (split into words, no shell), its output and standard error as `> line` frames. */
async function run(session: Session, line: string): Promise<KeepOpen> {
  const { channel, log } = session;
  const announce = `cf-serverd executing cfruncommand: ${line}\n`;
  await channel.send(announce);
  log.info(announce);
  const [program, ...argv] = splitCommand(line);
  const child = spawn(program ?? "", argv, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  const timer = setTimeout(() => killGroup(child.pid), session.execTimeoutMs);
  const exited = new Promise<number | null>((resolve) => {
    child.on("error", () => resolve(null));
    child.on("close", (code) => resolve(code));
  });
  let sending = Promise.resolve();
  const forward = (text: string): void => {
    const cut = Buffer.from(text).subarray(0, LINE_LIMIT).toString();
    sending = sending.then(() => channel.send(`> ${cut}\n`)).catch(() => killGroup(child.pid));
  };
  if (child.stdout)
    createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY }).on("line", forward);
  if (child.stderr)
    createInterface({ input: child.stderr, crlfDelay: Number.POSITIVE_INFINITY }).on("line", forward);
  const code = await exited;
  clearTimeout(timer);
  await sending;
  if (code === null && !child.pid) {
    const text = `Unable to run '${line}' (pipe: No such file or directory)`;
    log.info(text);
    await channel.send(text);
    return false;
  }
  if (code !== null && code >= 0) await channel.send(`(exit code: ${code})\n`);
  return true;
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}
