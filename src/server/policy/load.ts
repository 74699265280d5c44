/**
 * Loading the server's policy as cf-serverd 3.21 does: the policy read and
 * pre-evaluated with the agent's load steps (body common control, inputs,
 * augments, common bundles), checked as cf-promises checks it, then
 * `body server control` read and every common and server bundle evaluated
 * (see evaluate.ts). An invalid policy comes back as diagnostics (3.21
 * falls back to failsafe.cf; what to do is the daemon's choice).
 */
import type { EvalContext } from "../../eval/context.js";
import { loadCheckedPolicy } from "../../loader/checked.js";
import { PolicyIndex } from "../../promises/policy-index.js";
import {
  type Peer,
  expandConnectionVariables,
  matchItemIn,
  regexMatchesFully,
  replaceSpecialVariables,
} from "./acl.js";
import { type ControlMessage, readServerControl } from "./control.js";
import { type BundleSource, type EvaluationMessage, ServerAcls, evaluateServerBundles } from "./evaluate.js";
import type {
  AccessResourceType,
  ConnectionInfo,
  LoadedServerPolicy,
  LoadServerPolicyOptions,
  PathDecision,
  ServerControl,
  ServerPolicy,
} from "./model.js";

export { defaultServerControl } from "./control.js";

/** Loads and evaluates the server policy; never throws for problems in the policy. */
export async function loadServerPolicy(options: LoadServerPolicyOptions): Promise<LoadedServerPolicy> {
  return loadServerPolicySync(options);
}

/** The same, synchronously (tests, `tend check`). */
export function loadServerPolicySync(options: LoadServerPolicyOptions): LoadedServerPolicy {
  const { logger } = options;
  const checked = loadCheckedPolicy({
    file: options.file,
    inputDir: options.inputDir ?? `${options.workdir}/inputs`,
    workdir: options.workdir,
    program: "server",
    logger,
    defines: options.defines,
    negates: options.negates,
    ignoreMissingInputs: options.ignoreMissingInputs,
  });
  if (!checked.ok) return checked;
  const { loaded, files, entry, diagnostics } = checked;

  const controlMessages: ControlMessage[] = [];
  const control = readServerControl(loaded.context, controlMessages);
  options.onControl?.(control);
  for (const m of controlMessages) logger.log(m.level, m.message);

  const bundles: BundleSource[] = [];
  for (const file of files) {
    for (const block of file.policy.blocks)
      if (block.kind === "bundle") bundles.push({ bundle: block, path: file.path });
  }
  const acls = new ServerAcls();
  const messages: EvaluationMessage[] = [];
  evaluateServerBundles(loaded.context, bundles, acls, messages, new PolicyIndex(loaded.set, entry));
  for (const m of messages) logger.log(m.level, m.message);
  if (acls.needReverseLookup)
    logger.info(
      "Found hostname admit/deny in access_rules, turning on reverse DNS lookups for every connection",
    );

  const policy = new EvaluatedServerPolicy(
    control,
    acls,
    loaded.context,
    loaded.set.files.map((f) => f.source.path),
  );
  return { ok: true, policy, diagnostics };
}

/** CharsetAcceptable: what a class or bundle name in EXEC's `-D`/`-b` may hold. */
const EXEC_NAME = /^[A-Za-z0-9_:]*$/;

function peerOf(conn: ConnectionInfo): Peer {
  return { ip: conn.ip, hostname: conn.hostname ?? "", key: conn.keyDigest, user: conn.user };
}

export class EvaluatedServerPolicy implements ServerPolicy {
  readonly needReverseLookup: boolean;
  readonly classes: readonly string[];

  constructor(
    readonly control: ServerControl,
    readonly acls: ServerAcls,
    private readonly ctx: EvalContext,
    readonly sources: readonly string[],
  ) {
    this.needReverseLookup = acls.needReverseLookup;
    this.classes = ctx.listClasses();
  }

  /**
   * The path ACL, and whether the entry that decided lists the peer in its
   * `maproot` (by address, or its hostname as a regex, as 3.21's classic
   * protocol matched it). 3.21's TLS protocol never honours maproot; the
   * daemon decides what to do with it.
   */
  checkPath(path: string, conn: ConnectionInfo): PathDecision {
    const peer = peerOf(conn);
    const admitted = this.acls.paths.checkPath(path, peer);
    if (!admitted || this.acls.mapRoot.size === 0) return { admitted, mapRoot: false };
    const mangled = replaceSpecialVariables(path, peer);
    const entries = [path, ...(mangled === undefined ? [] : [mangled])].map((p) =>
      this.acls.paths.longestPathEntry(p),
    );
    const mapRoot = entries.some((entry) => {
      const items = entry ? this.acls.mapRoot.get(entry.name) : undefined;
      if (!items) return false;
      return (
        (conn.ip !== "" && matchItemIn(items, conn.ip)) ||
        (conn.hostname !== undefined &&
          conn.hostname !== "" &&
          items.some((i) => regexMatchesFully(i, conn.hostname as string)))
      );
    });
    return { admitted, mapRoot };
  }

  /** ShortcutsExpand: a relative request whose first component is a shortcut. */
  expandShortcut(requested: string, conn: ConnectionInfo): string {
    if (requested === "" || requested.startsWith("/")) return requested;
    const slash = requested.indexOf("/");
    const first = slash < 0 ? requested : requested.slice(0, slash);
    const target = this.acls.shortcuts.get(first);
    if (target === undefined) return requested;
    return expandConnectionVariables(target, peerOf(conn)) + (slash < 0 ? "" : requested.slice(slash));
  }

  checkResource(type: Exclude<AccessResourceType, "path">, name: string, conn: ConnectionInfo): boolean {
    const peer = peerOf(conn);
    switch (type) {
      case "literal":
        return this.acls.literals.checkExact(name, peer);
      case "variable":
        return this.acls.variables.checkExact(name, peer);
      case "query":
        return this.acls.queries.checkExact(name, peer);
      case "context":
        return this.acls.contexts.checkRegex(name, { ...peer, user: undefined });
      case "bundle":
        return EXEC_NAME.test(name) && this.acls.bundles.checkRegex(name, peer);
    }
  }

  /**
   * What Enterprise serves for VAR: the promiser of the admitted literal
   * promise of that handle. 3.21 community never serves one (VAR replies
   * "BAD: Not found"); the daemon decides which to follow.
   */
  literal(handle: string, conn: ConnectionInfo): string | undefined {
    if (!this.acls.literals.checkExact(handle, peerOf(conn))) return undefined;
    return this.acls.literalValues.get(handle);
  }

  /** EXEC -D: every class authorised by the roles whose regex matches it, for this user. */
  rolesAuthorize(classes: readonly string[], user: string): boolean {
    return classes.every(
      (c) => EXEC_NAME.test(c) && this.acls.roles.checkRegex(c, { ip: "", hostname: "", key: "", user }),
    );
  }

  admitsConnection(ip: string): "allowed" | "not-in-allowconnects" | "in-denyconnects" {
    const { allowConnects, denyConnects } = this.control;
    if (allowConnects.length > 0 && !matchItemIn(allowConnects, ip)) return "not-in-allowconnects";
    if (denyConnects.length > 0 && matchItemIn(denyConnects, ip)) return "in-denyconnects";
    return "allowed";
  }

  allowsMultipleConnections(ip: string): boolean {
    return this.control.allowAllConnects.length > 0 && matchItemIn(this.control.allowAllConnects, ip);
  }

  allowsLegacyConnect(ip: string): boolean {
    return this.control.allowLegacyConnects.length > 0 && matchItemIn(this.control.allowLegacyConnects, ip);
  }

  trustsKeysFrom(ip: string): boolean {
    return this.control.trustKeysFrom.length > 0 && matchItemIn(this.control.trustKeysFrom, ip);
  }

  allowsUser(user: string): boolean {
    return this.control.allowUsers.includes(user);
  }

  classMatches(name: string): boolean {
    if (this.ctx.classExpressionValue(name) === true) return true;
    return this.classes.some((c) => c === name || regexMatchesFully(name, c));
  }
}
