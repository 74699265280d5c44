/**
 * Directory environments as Puppet 7 finds and reads them: the environment
 * named by `--environment` (or an ENC) in the first directory of
 * `environmentpath` holding it, its `environment.conf` (modulepath with
 * `$basemodulepath` and paths relative to the environment, manifest,
 * config_version, environment_timeout), the main manifests (one file, or
 * every `.pp` under a directory sorted bytewise by path), and the modules
 * on the module path (the first of a name wins; directories whose names are
 * not module names are skipped).
 */
import { spawnSync } from "node:child_process";
import { type Dirent, readFileSync, readdirSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import type { PuppetCompileSettings } from "../settings.js";
import type { PuppetEnvironment, PuppetModule } from "./environment.js";

/** An environment or its configuration could not be had; the message is Puppet's. */
export class EnvironmentError extends Error {
  override readonly name = "EnvironmentError";
}

/** Environment names Puppet accepts: word characters only (`production`, `feature_1`). */
export function isValidEnvironmentName(name: string): boolean {
  return /^\w+$/.test(name);
}

/** Module directory names Puppet accepts: a lower-case letter, then lower-case letters, digits, `_`. */
export function isValidModuleName(name: string): boolean {
  return /^[a-z][a-z0-9_]*$/.test(name);
}

/** The settings an environment.conf may hold. */
const VALID_SETTINGS = [
  "modulepath",
  "manifest",
  "config_version",
  "environment_timeout",
  "environment_data_provider",
  "static_catalogs",
  "rich_data",
];

/** What an environment.conf says (values as written), and the warnings reading it gave. */
export interface EnvironmentConf {
  readonly settings: Readonly<Record<string, string>>;
  readonly warnings: readonly string[];
}

/**
 * Reads `<dir>/environment.conf` (none: no settings). Settings outside a
 * section or in `[main]` count; other sections and unknown settings are
 * ignored with Puppet's warnings; a line that is no setting, section,
 * comment or blank is an error.
 */
export function readEnvironmentConf(dir: string): EnvironmentConf {
  const file = join(dir, "environment.conf");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { settings: {}, warnings: [] };
    throw new EnvironmentError(`Could not load ${file}: ${(error as Error).message}`);
  }
  const sections = new Map<string, Record<string, string>>([["main", {}]]);
  let section = "main";
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    if (/^\s*(#|$)/.test(line)) continue;
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header) {
      section = header[1];
      if (!sections.has(section)) sections.set(section, {});
      continue;
    }
    const setting = /^\s*([\w-]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (!setting)
      throw new EnvironmentError(`Could not match line ${line} (file: ${file}, line: ${index + 1})`);
    const values = sections.get(section) ?? {};
    // Puppet drops file metadata such as `{owner = x}` from a value.
    values[setting[1]] = setting[2].replace(/\{\s*[^}]+\s*\}/, "").replace(/\s*$/, "");
  }
  const warnings: string[] = [];
  const others = [...sections.keys()].filter((name) => name !== "main");
  if (others.length > 0)
    warnings.push(
      `Invalid sections in environment.conf at '${file}'. Environment conf may not have sections. ` +
        `The following sections are being ignored: '${others.join(",")}'`,
    );
  const main = sections.get("main") ?? {};
  const unknown = Object.keys(main).filter((name) => !VALID_SETTINGS.includes(name));
  if (unknown.length > 0)
    warnings.push(
      `Invalid settings in environment.conf at '${file}'. The following unknown setting(s) are being ignored: ${unknown.join(", ")}`,
    );
  return { settings: main, warnings };
}

/** The environment's directory: the first `environmentpath` entry holding a directory of that name. */
export function findEnvironmentDir(settings: PuppetCompileSettings, name: string): string | undefined {
  if (!isValidEnvironmentName(name)) return undefined;
  for (const root of settings.environmentpath.split(":")) {
    if (root === "") continue;
    const dir = join(resolve(root), name);
    if (isDirectory(dir)) return dir;
  }
  return undefined;
}

/** Puppet's message for an environment no `environmentpath` directory holds. */
export function environmentNotFound(settings: PuppetCompileSettings, name: string): EnvironmentError {
  return new EnvironmentError(
    `Could not find a directory environment named '${name}' anywhere in the path: ${settings.environmentpath}. Does the directory exist?`,
  );
}

/** How loading an environment reports what is not fatal. */
export interface EnvironmentHooks {
  readonly warn?: (message: string) => void;
  readonly debug?: (message: string) => void;
  /**
   * Runs config_version: by default the command through `/bin/sh -c` (as
   * Ruby runs one string) in `cwd`, its output with its errors (Puppet
   * combines them).
   */
  readonly runConfigVersion?: (command: string, cwd: string) => { status: number | null; stdout: string };
  /** The working directory commands run in (the process's by default, as Puppet's). */
  readonly cwd?: string;
  /** Environment variables (PUPPETLIB); the process's when absent. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The environment `name` as a compile sees it. Throws an EnvironmentError
 * with Puppet's message when no environment of that name exists.
 */
export function loadEnvironment(
  settings: PuppetCompileSettings,
  name: string,
  hooks: EnvironmentHooks = {},
): PuppetEnvironment {
  const dir = findEnvironmentDir(settings, name);
  if (dir === undefined) throw environmentNotFound(settings, name);
  const conf = readEnvironmentConf(dir);
  for (const warning of conf.warnings) hooks.warn?.(warning);
  const confValue = (setting: string): string | undefined =>
    Object.hasOwn(conf.settings, setting) ? conf.settings[setting] : undefined;
  const interpolate = (text: string, setting: string): string =>
    interpolateSettings(text, settings, name, setting, hooks.warn);
  // An environment.conf path is relative to the environment, unless it starts with `$`.
  const fromEnvDir = (path: string): string => (path.startsWith("$") ? path : resolve(dir, path));

  let modulePathText: string;
  if (settings.modulepathGiven !== undefined) modulePathText = settings.modulepathGiven;
  else {
    const written = confValue("modulepath");
    modulePathText =
      written === undefined
        ? [join(dir, "modules"), ...settings.basemodulepath.split(":").filter((p) => p !== "")].join(":")
        : written
            .split(":")
            .flatMap((p) => expandGlob(fromEnvDir(p)))
            .join(":");
  }
  const env = hooks.env ?? process.env;
  const extra = env.PUPPETLIB ? env.PUPPETLIB.split(":") : [];
  const modulePath = [...extra, ...interpolate(modulePathText, "modulepath").split(":")]
    .filter((p) => p !== "")
    .map((p) => resolve(p));

  let manifest: string;
  const fallback = isAbsolute(settings.defaultManifest)
    ? settings.defaultManifest
    : join(dir, settings.defaultManifest);
  if (settings.manifestGiven !== undefined) manifest = resolve(settings.manifestGiven);
  else if (settings.disablePerEnvironmentManifest) manifest = resolve(fallback);
  else {
    const written = confValue("manifest");
    manifest = resolve(interpolate(written === undefined ? fallback : fromEnvDir(written), "manifest"));
  }

  const configVersionText =
    settings.configVersionGiven ??
    (confValue("config_version") === undefined
      ? undefined
      : fromEnvDir(confValue("config_version") as string));
  let configVersion: string | undefined;
  if (configVersionText !== undefined && configVersionText !== "") {
    const command = interpolate(configVersionText, "config_version");
    configVersion = runConfigVersion(command, hooks.cwd ?? process.cwd(), hooks);
  }

  return {
    name,
    dir,
    manifests: manifestFiles(manifest),
    code: settings.code !== "" ? settings.code : undefined,
    modulePath,
    modules: findModules(modulePath, hooks.debug),
    configVersion,
  };
}

/**
 * Runs config_version and gives its output stripped of surrounding white
 * space (the catalog's `version`); a failure is Puppet's error.
 */
function runConfigVersion(command: string, cwd: string, hooks: EnvironmentHooks): string {
  const run =
    hooks.runConfigVersion ??
    ((text: string, where: string) => {
      const result = spawnSync("/bin/sh", ["-c", `exec 2>&1\n${text}`], {
        cwd: where,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      });
      return { status: result.error ? 1 : result.status, stdout: result.stdout ?? "" };
    });
  const result = run(command, cwd);
  if (result.status !== 0) {
    throw new EnvironmentError(
      `Execution of config_version command \`${command}\` failed: Execution of '${command}' returned ${result.status ?? 1}: ${result.stdout.trim()}`,
    );
  }
  return result.stdout.trim();
}

/**
 * `$setting` and `${setting}` in an environment setting, with Puppet's
 * settings; `$environment` is the environment's name in config_version
 * only (elsewhere Puppet leaves it and warns).
 */
function interpolateSettings(
  text: string,
  settings: PuppetCompileSettings,
  environment: string,
  setting: string,
  warn?: (message: string) => void,
): string {
  const known: Readonly<Record<string, string>> = {
    basemodulepath: settings.basemodulepath,
    codedir: settings.codedir,
    confdir: settings.confdir,
    vardir: settings.vardir,
    environmentpath: settings.environmentpath,
    statedir: settings.statedir,
  };
  let kept = false;
  const result = text.replace(/\$(\w+)|\$\{(\w+)\}/g, (whole, bare?: string, braced?: string) => {
    const name = bare ?? braced ?? "";
    if (name === "environment") {
      if (setting === "config_version") return environment;
      kept = true;
      return whole;
    }
    if (Object.hasOwn(known, name)) return known[name];
    throw new EnvironmentError(
      `Error converting value for param '${setting}': Could not find value for ${whole}`,
    );
  });
  if (kept)
    warn?.(
      `You cannot interpolate $environment within '${setting}' when using directory environments. Its value will remain ${result}.`,
    );
  return result;
}

/** A module path entry with `*`, `?`, `[` or `{`: the directories it matches, sorted; else itself. */
function expandGlob(path: string): string[] {
  if (!/[*?[{]/.test(path)) return [path];
  const parts = path.split("/");
  let found = [parts[0] === "" ? "/" : parts[0]];
  for (const part of parts.slice(1)) {
    if (part === "") continue;
    if (!/[*?[{]/.test(part)) {
      found = found.map((base) => join(base, part));
      continue;
    }
    const pattern = globPattern(part);
    found = found.flatMap((base) => {
      let names: string[];
      try {
        names = readdirSync(base);
      } catch {
        return [];
      }
      return names
        .filter((n) => !n.startsWith(".") && pattern.test(n))
        .sort()
        .map((n) => join(base, n));
    });
  }
  return found;
}

function globPattern(part: string): RegExp {
  let source = "";
  for (let i = 0; i < part.length; i++) {
    const c = part[i];
    if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else if (c === "[") {
      const end = part.indexOf("]", i + 1);
      if (end < 0) source += "\\[";
      else {
        source += `[${part
          .slice(i + 1, end)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\")}]`;
        i = end;
      }
    } else if (c === "{") {
      const end = part.indexOf("}", i + 1);
      if (end < 0) source += "\\{";
      else {
        source += `(?:${part
          .slice(i + 1, end)
          .split(",")
          .map((alt) => alt.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
          .join("|")})`;
        i = end;
      }
    } else source += c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/**
 * The main manifests: the file itself, or every `*.pp` file under the
 * directory (recursively, hidden names skipped, as Ruby's glob does) sorted
 * bytewise by path, so `10.pp` comes before `2.pp` and `a/z.pp` before
 * `b.pp`; none when the path does not exist.
 */
export function manifestFiles(manifest: string): string[] {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(manifest);
  } catch {
    return [];
  }
  if (!stats.isDirectory()) return [manifest];
  const found: string[] = [];
  const walk = (dir: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      // Ruby's `**` does not descend into symbolic links to directories.
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".pp") && !isDirectory(path)) found.push(path);
    }
  };
  walk(manifest);
  return found.sort(compareBytes);
}

/** Bytewise (UTF-8) order, as Ruby sorts strings. */
export function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/**
 * The modules on `modulePath`, in its order: each entry's directories whose
 * names are module names; the first module of a name wins. Other
 * directories are skipped, as Puppet skips them.
 */
export function findModules(
  modulePath: readonly string[],
  debug?: (message: string) => void,
): Map<string, PuppetModule> {
  const modules = new Map<string, PuppetModule>();
  for (const root of modulePath) {
    let names: string[];
    try {
      names = readdirSync(root).sort(compareBytes);
    } catch {
      continue;
    }
    for (const name of names) {
      const dir = join(root, name);
      if (!isDirectory(dir)) continue;
      if (!isValidModuleName(name)) {
        debug?.(`Skipping '${dir}' on the module path: '${name}' is not a valid module name`);
        continue;
      }
      if (name === "lib")
        debug?.(
          `Warning: Found directory named 'lib' in module path ('${root}/lib'); unless you are expecting to load a module named 'lib', your module path may be set incorrectly.`,
        );
      if (!modules.has(name)) modules.set(name, { name, dir });
    }
  }
  return modules;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
