/**
 * One request, answered as cf-serverd 3.21's `BusyWithNewProtocol` answers
 * it: shortcuts expanded, the path resolved, the ACL asked, then the
 * command; refusals with CF_FAILEDSTR keep the connection, illegal
 * requests get "BAD: Request denied" and close it.
 */
import { PersistentClasses } from "../../eval/persistent-classes.js";
import { serverFrame } from "../../net/frame.js";
import { matchesFully } from "../../eval/regex/match.js";
import { doExec, type KeepOpen } from "./exec.js";
import { replyGet, replyMd5, replyOpendir, replyStat } from "./file-commands.js";
import { CLOCK_DRIFT, FAILED, REQUEST_DENIED, type Request, TERMINATOR, parseRequest } from "./protocol.js";
import type { Session } from "./channel.js";
import {
  lstatOrNothing,
  resolveRequestPath,
  withTrailingSlash,
  withoutTrailingSlash,
} from "./request-path.js";
import type { Stats } from "node:fs";
import type { PathDecision } from "../policy/model.js";

/** The version VERSION replies and the dialog announces. */
export const SERVER_VERSION = "3.21.0";

/** VERSION's reply, framed once. */
const VERSION_FRAME = serverFrame(`OK: ${SERVER_VERSION}`);

/**
 * Answers one request frame; false when the connection is to be closed.
 * The file commands are answered at once when their reply goes at once
 * (a value, not a promise: most requests of an agent's copy).
 */
export function dispatch(
  session: Session,
  payload: Buffer,
  now: () => number = Date.now,
): KeepOpen | Promise<KeepOpen> {
  const request = parseRequest(payload);
  switch (request.kind) {
    case "get":
    case "opendir":
    case "synch":
    case "md5":
      return filePath(session, request, now);
    default:
      return otherRequest(session, request, payload);
  }
}

/** Then, when `sent` is done, `keep`. */
function then(sent: void | Promise<void>, keep: KeepOpen): KeepOpen | Promise<KeepOpen> {
  return sent ? sent.then(() => keep) : keep;
}

/** The requests other than the file commands. */
async function otherRequest(
  session: Session,
  request: Exclude<Request, FileRequest>,
  payload: Buffer,
): Promise<KeepOpen> {
  switch (request.kind) {
    case "empty":
      session.log.warning(`Got NULL transmission (of size ${payload.length})`);
      return true;
    case "version":
      await session.channel.sendRaw(VERSION_FRAME);
      return true;
    case "exec": {
      session.log.verbose(`${"Received:".padStart(14)} ${"EXEC".padStart(7)} ${request.args}`);
      const keep = await doExec(session, request.args);
      await session.channel.send(Buffer.from(`${TERMINATOR}\0`));
      return keep;
    }
    case "var":
      return variable(session, request.name, payload);
    case "context":
      return context(session, request.regex, payload);
    case "query":
      if (!session.policy.checkResource("query", request.name, session.peer)) {
        session.log.info(`access denied to query: ${request.query}`);
        return refuse(session, payload);
      }
      return illegal(session, payload);
    case "cookie":
      if (!session.policy.checkResource("query", "delta", session.peer)) {
        session.log.info(`access denied to cookie query: ${requestLine(payload)}`);
        return refuse(session, payload);
      }
      return illegal(session, payload);
    case "call-me-back":
      // Enterprise's collect calls: 3.21 community closes without a reply.
      if (!session.policy.checkResource("query", "collect_calls", session.peer))
        session.log.info("access denied to Call-Collect, check the ACL for class: collect_calls");
      return false;
    case "unknown":
      session.log.warning(`Unexpected protocol command: ${request.text}`);
      return illegal(session, payload);
    case "malformed":
      return illegal(session, payload);
  }
}

function requestLine(payload: Buffer): string {
  const nul = payload.indexOf(0);
  return payload.toString("utf8", 0, nul < 0 ? payload.length : nul);
}

/** RefuseAccess: CF_FAILEDSTR, the connection kept. */
async function refuse(session: Session, payload: Buffer | string): Promise<KeepOpen> {
  await session.channel.send(FAILED);
  const text = typeof payload === "string" ? payload : requestLine(payload);
  session.log.verbose(`REFUSAL to user='${session.peer.user || "?"}' of request: ${text}`);
  return true;
}

/** The protocol_error label: "BAD: Request denied", then close. */
async function illegal(session: Session, payload: Buffer): Promise<KeepOpen> {
  await session.channel.send(REQUEST_DENIED);
  session.log.info(`Closing connection due to illegal request: ${requestLine(payload)}`);
  return false;
}

type FileRequest = Extract<Request, { kind: "get" | "opendir" | "synch" | "md5" }>;

const NAMES: Readonly<Record<FileRequest["kind"], string>> = {
  get: "GET",
  opendir: "OPENDIR",
  synch: "STAT",
  md5: "MD5",
};

/** A classic request's refusal by the ACL, in 3.21's words (AccessControl, then the command's). */
function logClassicDenial(session: Session, kind: FileRequest["kind"], path: string): void {
  const { log, peer } = session;
  log.info(`Host ${peer.hostname ?? ""} denied access to ${path}`);
  if (kind === "synch") log.info("Access control in sync");
  else if (kind === "opendir") log.info(peer.encrypted ? "Access error" : "DIR access error");
  else log.info("Access denied to get object");
}

/** GET, OPENDIR, STAT and MD5: shortcut, realpath, slash, ACL, then the command. */
function filePath(session: Session, request: FileRequest, now: () => number): KeepOpen | Promise<KeepOpen> {
  const { log, policy, peer } = session;
  const name = NAMES[request.kind];
  // Formatting the verbose lines costs more than some requests: only when they are written.
  const verbose = log.wouldLog("verbose");
  if (verbose) log.verbose(`${"Received:".padStart(14)} ${name.padStart(7)} ${request.path}`);
  const expanded = policy.expandShortcut(request.path, peer);
  const resolved = resolveRequestPath(expanded, log);
  if (resolved === undefined) return refuse(session, refusedLine(name, request));
  // STAT's own lstat, made once: it decides the slash and is the first line of the reply.
  const own = request.kind === "synch" ? lstatOrNothing(resolved) : undefined;
  const path = slashed(request.kind, resolved, own);
  if (verbose) log.verbose(`${"Translated to:".padStart(14)} ${name.padStart(7)} ${path}`);
  const decision = decide(session, path);
  if (!decision.admitted) {
    if (session.classic) logClassicDenial(session, request.kind, path);
    else log.info(`access denied to ${request.kind === "md5" ? "file" : name}: ${path}`);
    return refuse(session, refusedLine(name, request));
  }
  switch (request.kind) {
    case "get":
      return then(replyGet(session, path, request.bufSize, decision.mapRoot), true);
    case "opendir":
      return then(replyOpendir(session, path), true);
    case "md5":
      return then(replyMd5(session, path, request.digest), true);
    case "synch":
      return synch(session, path, own, request.clientTime, now);
  }
}

/** The request as a refusal logs it. */
function refusedLine(name: string, request: FileRequest): string {
  if (name !== "STAT") return `${name} ${request.path}`;
  return `SYNCH ${request.kind === "synch" ? request.clientTime : ""} STAT ${request.path}`;
}

/**
 * The path ACL's decision, remembered for the next request of the same
 * connection: an agent asks STAT, then MD5 (or GET) of the same file, and
 * the policy and the peer do not change within a connection.
 */
function decide(session: Session, path: string): PathDecision {
  const last = session.lastDecision;
  if (last && last.path === path) return last.decision;
  const decision = session.policy.checkPath(path, session.peer);
  session.lastDecision = { path, decision };
  return decision;
}

/** OPENDIR must name a directory; STAT names one with a slash when it is a real one; GET and MD5 without. */
function slashed(kind: FileRequest["kind"], path: string, own: Stats | undefined): string {
  if (kind === "opendir") return withTrailingSlash(path);
  if (kind === "synch" && own?.isDirectory()) return withTrailingSlash(path);
  return withoutTrailingSlash(path);
}

function synch(
  session: Session,
  path: string,
  own: Stats | undefined,
  clientTime: number,
  now: () => number,
): KeepOpen | Promise<KeepOpen> {
  const serverTime = Math.floor(now() / 1000);
  const drift = serverTime - clientTime;
  if (session.policy.control.denyBadClocks && Math.abs(drift) > CLOCK_DRIFT) {
    const text = `BAD: Clocks are too far unsynchronized ${serverTime}/${clientTime}`;
    session.log.info(`denybadclocks ${text}`);
    return then(session.channel.send(text), true);
  }
  return then(replyStat(session, path, own), true);
}

/** VAR: literal server data, admitted by `resource_type => "literal"` (3.21 community: always "BAD: Not found"). */
async function variable(session: Session, name: string, payload: Buffer): Promise<KeepOpen> {
  if (!session.policy.checkResource("literal", name, session.peer)) {
    session.log.info(`access denied to variable: ${name}`);
    return refuse(session, payload);
  }
  const value = session.policy.literal(name, session.peer);
  await session.channel.send(value === undefined || value === "" ? "BAD: Not found" : value);
  return true;
}

/** CONTEXT: the persistent classes matching the client's regex that `resource_type => "context"` admits. */
async function context(session: Session, regex: string, payload: Buffer): Promise<KeepOpen> {
  session.log.verbose(`${"Received:".padStart(14)} ${"CONTEXT".padStart(7)} ${regex}`);
  const classes = new PersistentClasses(session.statedir).load().map((c) => c.name);
  session.log.verbose(
    `Found ${classes.length} valid persistent classes in state database: ${classes.join(" ")}`,
  );
  const matched = classes.filter(
    (name) =>
      matchesFully(regex, name) === true && session.policy.checkResource("context", name, session.peer),
  );
  if (matched.length === 0) {
    session.log.info(`No allowed classes for remoteclassesmatching: ${regex}`);
    return refuse(session, payload);
  }
  let csv = "";
  for (const name of matched) {
    const next = csv === "" ? name : `${csv},${name}`;
    if (Buffer.byteLength(next) > 4087) {
      session.log.error("Overflow: classes don't fit in send buffer");
      break;
    }
    csv = next;
  }
  await session.channel.send(csv);
  return true;
}
