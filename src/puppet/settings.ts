/**
 * Puppet's settings that `puppet apply` reads, from the command line and
 * `puppet.conf` in the confdir (its `[user]` section, then `[main]`, as
 * an apply run reads them), with Puppet 7's defaults on Debian and its
 * `$setting` interpolation. Only the settings tend uses are known; others
 * in the file are ignored, as a setting tend does not need changes nothing.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir, hostname } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/** The settings tend reads, all paths absolute. */
export interface PuppetSettings {
  readonly confdir: string;
  readonly vardir: string;
  readonly codedir: string;
  readonly statedir: string;
  readonly publicdir: string;
  readonly lastrunreport: string;
  readonly lastrunfile: string;
  readonly statefile: string;
  readonly clientbucketdir: string;
  readonly environment: string;
  readonly environmentpath: string;
  readonly basemodulepath: string;
  /** The modulepath given (`--modulepath`), else the environment's: `<env>/modules:$basemodulepath`. */
  readonly modulepath: string;
  readonly certname: string;
  readonly noop: boolean;
  /** Whether the report is written (`report`, true by default). */
  readonly report: boolean;
}

/** A puppet.conf problem: file, line, what is wrong. */
export class SettingsError extends Error {
  override readonly name = "SettingsError";
}

const KNOWN = [
  "confdir",
  "vardir",
  "codedir",
  "statedir",
  "publicdir",
  "lastrunreport",
  "lastrunfile",
  "statefile",
  "clientbucketdir",
  "environment",
  "environmentpath",
  "basemodulepath",
  "modulepath",
  "certname",
  "noop",
  "report",
] as const;
type Known = (typeof KNOWN)[number];

/** Puppet 7's defaults (Debian's package for root; ~/.puppetlabs for other users). */
function defaults(root: boolean): Record<Known, string> {
  const home = homedir();
  return {
    confdir: root ? "/etc/puppet" : join(home, ".puppetlabs/etc/puppet"),
    vardir: root ? "/var/cache/puppet" : join(home, ".puppetlabs/opt/puppet/cache"),
    codedir: root ? "/etc/puppet/code" : join(home, ".puppetlabs/etc/code"),
    statedir: "$vardir/state",
    publicdir: "$vardir/public",
    lastrunreport: "$statedir/last_run_report.yaml",
    lastrunfile: "$publicdir/last_run_summary.yaml",
    statefile: "$statedir/state.yaml",
    clientbucketdir: "$vardir/clientbucket",
    environment: "production",
    environmentpath: "$codedir/environments",
    basemodulepath: "$codedir/modules:/usr/share/puppet/modules",
    modulepath: "",
    certname: hostname().toLowerCase(),
    noop: "false",
    report: "true",
  };
}

/**
 * The settings for one run: `given` (the command line's, by setting name)
 * over puppet.conf's over the defaults. Throws a SettingsError for a
 * puppet.conf that cannot be read or a setting that refers to itself.
 */
export function resolveSettings(given: Partial<Record<Known, string>>, cwd: string): PuppetSettings {
  const root = process.getuid?.() === 0;
  const raw: Record<string, string> = { ...defaults(root) };
  const confdir = given.confdir !== undefined ? resolve(cwd, given.confdir) : raw.confdir;
  raw.confdir = confdir;
  Object.assign(raw, readPuppetConf(join(confdir, "puppet.conf")));
  for (const [name, value] of Object.entries(given)) if (value !== undefined) raw[name] = value;
  raw.confdir = confdir;
  const value = (name: Known): string => interpolate(raw, name, cwd, []);
  const environment = value("environment");
  const basemodulepath = value("basemodulepath");
  const modulepath =
    raw.modulepath !== ""
      ? value("modulepath")
      : `${join(value("environmentpath").split(":")[0], environment, "modules")}:${basemodulepath}`;
  return {
    confdir,
    vardir: absolute(value("vardir"), cwd),
    codedir: absolute(value("codedir"), cwd),
    statedir: absolute(value("statedir"), cwd),
    publicdir: absolute(value("publicdir"), cwd),
    lastrunreport: absolute(value("lastrunreport"), cwd),
    lastrunfile: absolute(value("lastrunfile"), cwd),
    statefile: absolute(value("statefile"), cwd),
    clientbucketdir: absolute(value("clientbucketdir"), cwd),
    environment,
    environmentpath: value("environmentpath"),
    basemodulepath,
    modulepath,
    certname: value("certname").toLowerCase(),
    noop: value("noop") === "true",
    report: value("report") !== "false",
  };
}

function absolute(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** A setting's value with `$name` and `${name}` replaced by the named settings' values. */
function interpolate(raw: Record<string, string>, name: string, cwd: string, seen: string[]): string {
  if (seen.includes(name))
    throw new SettingsError(`setting '${name}' refers to itself (${seen.join(" -> ")})`);
  const text = raw[name] ?? "";
  return text.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced?: string, bare?: string) => {
    const ref = braced ?? bare ?? "";
    if (!Object.hasOwn(raw, ref)) return whole;
    return interpolate(raw, ref, cwd, [...seen, name]);
  });
}

/**
 * The `[main]` then `[user]` settings of puppet.conf (a later section wins,
 * as `[user]` does over `[main]` for apply); none when there is no file.
 */
export function readPuppetConf(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new SettingsError(`${path}: cannot read: ${(error as Error).message}`);
  }
  const sections: Record<string, Record<string, string>> = { main: {} };
  let section = "main";
  for (const [index, rawLine] of text.split("\n").entries()) {
    const line = rawLine.replace(/^\s+|\s+$/g, "");
    if (line === "" || line.startsWith("#")) continue;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      section = header[1].trim();
      sections[section] ??= {};
      continue;
    }
    const setting = /^([\w.-]+)\s*=\s*(.*?)(\s*\{[^}]*\})?$/.exec(line);
    if (!setting)
      throw new SettingsError(
        `${path}:${index + 1}:1: expected 'name = value' or '[section]', got '${line}'`,
      );
    sections[section][setting[1]] = setting[2];
  }
  return { ...sections.main, ...(sections.user ?? {}) };
}
