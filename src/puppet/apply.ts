/**
 * `puppet apply --catalog` on tend's engine: reads the catalog, applies it
 * with the shared applier and Puppet's resource types, logs as Puppet logs,
 * writes Puppet's report files, and gives the detailed exit code.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { PuppetLogLine } from "./console.js";
import type { PuppetSettings } from "./settings.js";

export interface PuppetApplyOptions {
  readonly catalogFile: string;
  readonly cwd: string;
  /** Read the catalog from stdin (`--catalog -`). */
  readonly readStdin?: boolean;
  readonly settings: PuppetSettings;
  readonly noop: boolean;
  /** Each log line, as it happens. */
  readonly log: (line: PuppetLogLine) => void;
}

export interface PuppetApplyResult {
  /** 1 when the run could not happen (a bad catalog, a cycle); else Puppet's detailed exit code. */
  readonly exitCode: number;
  /** tend's run report (`--json`), when the catalog was applied. */
  readonly runReport?: unknown;
}

/** False until the shared applier lands (tests count the scenarios as todo meanwhile). */
export const applierReady: boolean = false;

function puppetError(message: string): PuppetLogLine {
  return { level: "err", message, source: "Puppet", tags: ["err"], time: new Date() };
}

/** Applies the catalog of `options`; never throws for a bad catalog (exit code 1 and an error line). */
export async function runPuppetApply(options: PuppetApplyOptions): Promise<PuppetApplyResult> {
  const path = resolve(options.cwd, options.catalogFile);
  let text: string;
  try {
    text = readFileSync(options.readStdin ? 0 : path, "utf8");
  } catch (error) {
    options.log(puppetError(`Could not read catalog ${path}: ${(error as Error).message}`));
    return { exitCode: 1 };
  }
  try {
    JSON.parse(text);
  } catch (error) {
    options.log(puppetError(`${path}: not a JSON catalog: ${(error as Error).message}`));
    return { exitCode: 1 };
  }
  options.log(puppetError("the catalog applier (src/catalog/apply.ts) is not in tend yet"));
  return { exitCode: 1 };
}
