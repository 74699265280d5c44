/**
 * Debian packages through apt-get (from the configured repositories, or a
 * local .deb given as `source`) or dpkg alone (a .deb `source` only), as
 * Puppet's and Chef's `package` want them: inspect with dpkg-query, decide
 * whether the wanted `ensure` holds, change unless noop, and say what
 * changed as data.
 *
 * `ensure` is `present` (`installed`), `absent` (removed, configuration
 * files may stay), `purged` (removed with its configuration files),
 * `latest` (the candidate apt-cache policy shows, or the version of the
 * dpkg `source`), or a version. Version ranges (`>1.0 <2.0`) are not
 * understood: they are taken as a version.
 */
import type { Change, ProviderResult } from "../change.js";
import { type ToolRunner, commandFailure, systemRunner } from "../tool-runner.js";
import { type DebFound, foundText, queryDeb } from "./dpkg-query.js";

export type DebTool = "apt" | "dpkg";

export interface DebPackageRequest {
  readonly name: string;
  /** `present`, `installed`, `absent`, `purged`, `latest` or a version. */
  readonly ensure: string;
  readonly tool: DebTool;
  /** A .deb file to install from (required with dpkg). */
  readonly source?: string;
  /** Arguments added to apt-get's before `install`. */
  readonly installOptions?: readonly string[];
  /** Modified configuration files: kept (default) or replaced by the package's. */
  readonly configfiles?: "keep" | "replace";
}

export interface DebPackageOptions {
  readonly noop: boolean;
  readonly run?: ToolRunner;
}

export interface DebPackageResult extends ProviderResult {
  /** What was found before: `purged`, `absent` or the installed version. */
  readonly found?: string;
  /** What `latest` meant, when it was asked. */
  readonly latest?: string;
}

type Wanted = "present" | "absent" | "purged" | "latest" | { readonly version: string };

/** The ensure value read: `installed` is `present`; anything else unknown is a version. */
export function wantedOf(ensure: string): Wanted {
  if (ensure === "present" || ensure === "installed") return "present";
  if (ensure === "absent" || ensure === "purged" || ensure === "latest") return ensure;
  return { version: ensure };
}

/** Whether what was found satisfies what is wanted (`latest` resolved to `latest`). */
export function debInSync(wanted: Wanted, found: DebFound, latest?: string): boolean {
  const installed = typeof found === "string" ? undefined : found.version;
  if (wanted === "present") return installed !== undefined;
  if (wanted === "absent") return installed === undefined;
  if (wanted === "purged") return found === "purged";
  if (wanted === "latest") return installed !== undefined && installed === latest;
  return installed === wanted.version;
}

const APT_GET = "/usr/bin/apt-get";
const DPKG = "/usr/bin/dpkg";

/** The newest version apt would install, or, with dpkg, the source's version. */
function latestVersion(req: DebPackageRequest, run: ToolRunner): string | { error: string } {
  if (req.tool === "dpkg") {
    if (req.source === undefined)
      return { error: "Could not update: You cannot install dpkg packages without a source" };
    const argv = ["/usr/bin/dpkg-deb", "--show", req.source];
    const out = run(argv);
    const match = /^(\S+)\t(\S+)$/m.exec(out.stdout);
    return out.status === 0 && match?.[2] ? match[2] : { error: commandFailure(argv, out) };
  }
  const argv = ["/usr/bin/apt-cache", "policy", req.name];
  const out = run(argv);
  const match = /Candidate:\s+(\S+)\s/.exec(out.stdout);
  return match?.[1] ?? { error: "Could not find latest version" };
}

function confOption(req: DebPackageRequest): string {
  return req.configfiles === "replace" ? "--force-confnew" : "--force-confold";
}

/** The commands that bring the package from `found` to `wanted`. */
function installCommands(req: DebPackageRequest, wanted: Wanted): string[][] | { error: string } {
  if (req.tool === "dpkg") {
    if (req.source === undefined) return { error: "You cannot install dpkg packages without a source" };
    return [[DPKG, confOption(req), "-i", req.source]];
  }
  const argv = [APT_GET, "-q", "-y", "-o", `DPkg::Options::=${confOption(req)}`];
  let target = req.name;
  if (typeof wanted === "object") {
    target += `=${wanted.version}`;
    argv.push("--allow-downgrades");
  }
  argv.push(...(req.installOptions ?? []), "install", req.source ?? target);
  return [argv];
}

function removeCommands(req: DebPackageRequest, purge: boolean): string[][] {
  if (req.tool === "dpkg") return [[DPKG, purge ? "--purge" : "-r", req.name]];
  if (!purge) return [[APT_GET, "-y", "-q", "remove", req.name]];
  return [
    [APT_GET, "-y", "-q", "remove", "--purge", req.name],
    [DPKG, "--purge", req.name],
  ];
}

function describe(found: string, wanted: string): string {
  if (wanted === "purged") return `purged (was ${found})`;
  if (wanted === "absent") return `removed (was ${found})`;
  if (found === "absent" || found === "purged") return `installed ${wanted}`;
  return `changed from ${found} to ${wanted}`;
}

/**
 * Brings a Debian package to `ensure`. Fails (nothing changed, or changed
 * part way: dpkg decides) when a command fails, when dpkg reports the
 * package in an error state, or when `latest` cannot be found out.
 */
export function ensureDebPackage(req: DebPackageRequest, options: DebPackageOptions): DebPackageResult {
  const run = options.run ?? systemRunner();
  const query = queryDeb(run, req.name);
  const found = foundText(query.found);
  if (query.error !== undefined) {
    const error = `Package ${req.name}, version ${found} is in error state: ${query.error}`;
    return { status: "failed", changes: [], error, found };
  }
  const wanted = wantedOf(req.ensure);
  let latest: string | undefined;
  if (wanted === "latest" && typeof query.found !== "string") {
    const resolved = latestVersion(req, run);
    if (typeof resolved !== "string") return { status: "failed", changes: [], error: resolved.error, found };
    latest = resolved;
  }
  if (debInSync(wanted, query.found, latest)) return { status: "unchanged", changes: [], found, latest };
  const desired =
    wanted === "latest" ? (latest ?? "latest") : typeof wanted === "string" ? wanted : wanted.version;
  const change = (applied: boolean): Change => ({
    property: "ensure",
    old: found,
    new: desired,
    message: describe(found, desired),
    applied,
  });
  if (options.noop) return { status: "changed", changes: [change(false)], found, latest };
  const commands =
    wanted === "absent" || wanted === "purged"
      ? removeCommands(req, wanted === "purged")
      : installCommands(req, wanted);
  if (!Array.isArray(commands))
    return { status: "failed", changes: [change(false)], error: commands.error, found };
  for (const argv of commands) {
    const out = run(argv);
    if (out.status !== 0)
      return { status: "failed", changes: [change(false)], error: commandFailure(argv, out), found, latest };
  }
  return { status: "changed", changes: [change(true)], found, latest };
}
