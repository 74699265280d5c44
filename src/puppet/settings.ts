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
  return settingsFrom(rawSettings(given, cwd, {}, false), cwd);
}

/** The raw (uninterpolated) settings: the command line's over puppet.conf's over the defaults. */
function rawSettings(
  given: Readonly<Record<string, string | undefined>>,
  cwd: string,
  more: Readonly<Record<string, string>>,
  screen: boolean,
): Record<string, string> {
  const root = process.getuid?.() === 0;
  const raw: Record<string, string> = { ...defaults(root), ...more };
  const confdir = given.confdir !== undefined ? resolve(cwd, given.confdir) : raw.confdir;
  raw.confdir = confdir;
  const file = join(confdir, "puppet.conf");
  const conf = readPuppetConf(file);
  if (screen) {
    const forbidden = ENVIRONMENT_CONF_ONLY.filter((name) => Object.hasOwn(conf, name));
    if (forbidden.length > 0)
      throw new SettingsError(`Cannot set ${forbidden.join(", ")} settings in puppet.conf`);
  }
  Object.assign(raw, conf);
  for (const [name, value] of Object.entries(given)) if (value !== undefined) raw[name] = value;
  raw.confdir = confdir;
  return raw;
}

function settingsFrom(raw: Record<string, string>, cwd: string): PuppetSettings {
  const confdir = raw.confdir;
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

/** Settings only an environment.conf (or the command line) may set; puppet.conf may not. */
const ENVIRONMENT_CONF_ONLY = ["modulepath", "manifest", "config_version"] as const;

/**
 * What `puppet catalog compile` (and the compile of `puppet apply`) reads
 * besides apply's settings. The command line and puppet.conf's `[user]` then
 * `[main]` sections, as for apply: the catalog face reads its settings in
 * the user run mode (its `[server]` section is not consulted when the
 * environment is chosen, as Puppet 7.23 was seen to do).
 */
export interface PuppetCompileSettings extends PuppetSettings {
  /** Where the json facts terminus reads `facts/<node>.json` (`$vardir/server_data`). */
  readonly serverDatadir: string;
  /** `--modulepath` given on the command line (overrides environment.conf), else undefined. */
  readonly modulepathGiven?: string;
  /** `--manifest` given on the command line (overrides environment.conf), else undefined. */
  readonly manifestGiven?: string;
  /** `--config_version` given on the command line, else undefined. */
  readonly configVersionGiven?: string;
  /** `default_manifest` (`./manifests`): the manifest of an environment whose environment.conf sets none. */
  readonly defaultManifest: string;
  readonly disablePerEnvironmentManifest: boolean;
  /** `node_terminus`: `plain` (the default) or `exec` (an External Node Classifier). */
  readonly nodeTerminus: string;
  /** `external_nodes`: the classifier's command (`none` when unset). */
  readonly externalNodes: string;
  /** `facts_terminus`: `json` reads fact files; `facter` (the default) is not done by tend. */
  readonly factsTerminus: string;
  /** `log_level` (`notice`). */
  readonly logLevel: string;
  /** `code`: Puppet code evaluated instead of the manifests when not empty. */
  readonly code: string;
  /** `strict`: `off`, `warning` (default) or `error`. */
  readonly strict: string;
  readonly strictVariables: boolean;
  /** `hiera_config` when set (command line or puppet.conf); Hiera's own default otherwise. */
  readonly hieraConfig?: string;
  /** `environment_timeout` as written (`0`). */
  readonly environmentTimeout: string;
}

const COMPILE_DEFAULTS: Readonly<Record<string, string>> = {
  server_datadir: "$vardir/server_data",
  client_datadir: "$vardir/client_data",
  default_manifest: "./manifests",
  disable_per_environment_manifest: "false",
  node_terminus: "plain",
  external_nodes: "none",
  facts_terminus: "facter",
  log_level: "notice",
  code: "",
  strict: "warning",
  strict_variables: "false",
  hiera_config: "$confdir/hiera.yaml",
  environment_timeout: "0",
};

/** The command-line settings a compile accepts, by Puppet's names. */
export type CompileSettingName =
  | Known
  | "server_datadir"
  | "manifest"
  | "config_version"
  | "default_manifest"
  | "disable_per_environment_manifest"
  | "node_terminus"
  | "external_nodes"
  | "facts_terminus"
  | "log_level"
  | "code"
  | "strict"
  | "strict_variables"
  | "hiera_config"
  | "environment_timeout";

/**
 * The settings of a compile: `given` (the command line's) over puppet.conf's
 * over Puppet's defaults. Throws a SettingsError for a puppet.conf that
 * cannot be read, one that sets modulepath, manifest or config_version (as
 * Puppet refuses: "Cannot set modulepath settings in puppet.conf"), or a
 * setting that refers to itself.
 */
export function resolveCompileSettings(
  given: Partial<Record<CompileSettingName, string>>,
  cwd: string,
): PuppetCompileSettings {
  const { modulepath, manifest, config_version, ...rest } = given;
  const raw = rawSettings(rest, cwd, COMPILE_DEFAULTS, true);
  const base = settingsFrom({ ...raw, modulepath: modulepath ?? "" }, cwd);
  const value = (name: string): string => interpolate(raw, name, cwd, []);
  const maybe = (text: string | undefined, name: string): string | undefined =>
    text === undefined ? undefined : interpolate({ ...raw, [name]: text }, name, cwd, []);
  return {
    ...base,
    serverDatadir: absolute(value("server_datadir"), cwd),
    modulepathGiven: maybe(modulepath, "modulepath"),
    manifestGiven: maybe(manifest, "manifest"),
    configVersionGiven: config_version,
    defaultManifest: value("default_manifest"),
    disablePerEnvironmentManifest: value("disable_per_environment_manifest") === "true",
    nodeTerminus: value("node_terminus"),
    externalNodes: value("external_nodes"),
    factsTerminus: value("facts_terminus"),
    logLevel: value("log_level"),
    code: raw.code ?? "",
    strict: value("strict"),
    strictVariables: value("strict_variables") === "true",
    hieraConfig:
      raw.hiera_config === COMPILE_DEFAULTS.hiera_config ? undefined : absolute(value("hiera_config"), cwd),
    environmentTimeout: value("environment_timeout"),
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
