/**
 * The text of package module requests and the reading of their answers
 * (no I/O here). Messages are 3.21's; the caller's logger receives them.
 */
import type { Logger } from "../../system/logger.js";
import type { InventoryEntry } from "./inventory.js";

/** `options=<item>` lines, one per option, sent first in every request. */
export function optionLines(options: readonly string[]): string {
  return options.map((option) => `options=${option}\n`).join("");
}

/** `Version=` and `Architecture=` lines for what is known. */
export function versionArchLines(version: string | undefined, arch: string | undefined): string {
  return (
    (version !== undefined ? `Version=${version}\n` : "") +
    (arch !== undefined ? `Architecture=${arch}\n` : "")
  );
}

/** What `get-package-data` says of a package. */
export interface PackageData {
  readonly type: "file" | "repo" | undefined;
  readonly name: string | undefined;
  version: string | undefined;
  arch: string | undefined;
}

function logErrorLine(line: string, log: Logger): boolean {
  if (line.startsWith("Error=") || line.startsWith("ErrorMessage=")) {
    log.error(`package module: ${line}`);
    return true;
  }
  return false;
}

/** Logs `Error=`/`ErrorMessage=` lines of an answer (others are unsupported, at verbose). */
export function logModuleErrors(lines: readonly string[], log: Logger): void {
  for (const line of lines) {
    if (!logErrorLine(line, log)) log.verbose(`Unsupported response from package module: ${line}`);
  }
}

const DATA_KEYS = [
  ["Name=", "name", "name"],
  ["Version=", "version", "version"],
  ["Architecture=", "arch", "architecture"],
] as const;

/** Reads a `get-package-data` answer; undefined when it is not usable. */
export function readPackageData(lines: readonly string[], log: Logger): PackageData | undefined {
  const data: { type?: "file" | "repo"; name?: string; version?: string; arch?: string } = {};
  for (const line of lines) {
    if (line.startsWith("PackageType=")) {
      const type = line.slice("PackageType=".length);
      if (type !== "file" && type !== "repo") {
        log.verbose(`unsupported package type: ${type}`);
        return undefined;
      }
      data.type = type;
      continue;
    }
    const key = DATA_KEYS.find(([prefix]) => line.startsWith(prefix));
    if (key) {
      const [prefix, field, word] = key;
      const known = data[field];
      if (known !== undefined) {
        log.error(`Extraneous package ${word} line received: [${line}] ${known}`);
        return undefined;
      }
      data[field] = line.slice(prefix.length);
      continue;
    }
    if (!logErrorLine(line, log)) log.verbose(`Unsupported response from package module: ${line}`);
  }
  return { type: data.type, name: data.name, version: data.version, arch: data.arch };
}

/** A `list-installed` / `list-updates` answer: the packages, and whether it held errors. */
export interface InventoryAnswer {
  readonly entries: InventoryEntry[];
  readonly hadErrors: boolean;
}

/** Reads `Name=`, `Version=`, `Architecture=` groups; a group missing a field is dropped. */
export function readInventoryAnswer(lines: readonly string[], log: Logger): InventoryAnswer {
  const entries: InventoryEntry[] = [];
  let hadErrors = false;
  let name: string | undefined;
  let version: string | undefined;
  let arch: string | undefined;
  const flush = (): void => {
    if (name !== undefined && version !== undefined && arch !== undefined)
      entries.push({ name, version, arch });
    else if (name !== undefined) log.verbose(`Malformed response from package module for package ${name}`);
  };
  for (const line of lines) {
    if (line.startsWith("Name=")) {
      if (name !== undefined) {
        flush();
        version = undefined;
        arch = undefined;
      }
      name = line.slice(5);
    } else if (line.startsWith("Version=")) version = line.slice(8);
    else if (line.startsWith("Architecture=")) arch = line.slice(13);
    else if (logErrorLine(line, log)) hadErrors = true;
    else {
      log.error(`Unsupported response from package module: ${line}`);
      hadErrors = true;
    }
  }
  if (name !== undefined && version !== undefined && arch !== undefined)
    entries.push({ name, version, arch });
  else if (name !== undefined || version !== undefined || arch !== undefined)
    log.verbose(`Malformed response from package manager: [${name ?? ""}:${version ?? ""}:${arch ?? ""}]`);
  return { entries, hadErrors };
}
