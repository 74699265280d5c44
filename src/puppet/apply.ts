/**
 * `puppet apply --catalog` on tend's engine: reads and checks the catalog,
 * applies it with the shared applier and Puppet's resource types, logs as
 * Puppet logs, writes Puppet's report files, and gives the detailed exit
 * code. Bad input is reported (file:line:col) and never thrown.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { applyCatalog } from "../catalog/apply.js";
import { formatCatalogDiagnostic, loadCatalogFile, parseCatalog } from "../catalog/load.js";
import { detailedExitCode, type ReportLog, type RunReport, reportTime } from "../catalog/report.js";
import { type AtomicFile, writeFilesAtomically } from "../system/atomic.js";
import { monotonicMs } from "../system/clock.js";
import { TextChunks } from "../system/text-chunks.js";
import { makeDirectoriesSync } from "../system/make-directories.js";
import type { PuppetLogLine } from "./console.js";
import {
  type PuppetReport,
  puppetShapedReport,
  renderSummaryYaml,
  writeReportYaml,
  writeStateYaml,
} from "./report-files.js";
import type { PuppetRunSettings } from "./run-settings.js";
import type { PuppetSettings } from "./settings.js";
import type { ResourceType } from "../catalog/resource-type.js";
import type { Catalog } from "../catalog/model.js";
import { REPORT_LEVEL_OF } from "../catalog/run-log.js";
import type { ModuleSpec } from "../providers/modules/session.js";
import { type LogLevel, Logger } from "../system/logger.js";
import { findPuppetType, puppetTypes } from "./types/index.js";
import { PromiseModules } from "./types/promise-module.js";

export interface PuppetApplyOptions {
  readonly catalogFile: string;
  /** The catalog's JSON when it was compiled in this run (`catalogFile` then only names it). */
  readonly catalogText?: string;
  readonly cwd: string;
  /** Read the catalog from stdin (`--catalog -`). */
  readonly readStdin?: boolean;
  readonly settings: PuppetSettings;
  readonly noop: boolean;
  /** Puppet's --tags, lower-case. */
  readonly tags?: readonly string[];
  /** The lowest level logged and kept in the report. */
  readonly logLevel?: PuppetLogLine["level"];
  /** Each log line, as it happens. */
  readonly log: (line: PuppetLogLine) => void;
  /** Promise modules as resource types: by type name (`--promise-module`), and directories to find them in. */
  readonly promiseModules?: {
    readonly named: ReadonlyMap<string, ModuleSpec>;
    readonly dirs: readonly string[];
  };
}

export interface PuppetApplyResult {
  /** 1 when the run could not happen (a bad catalog, a cycle); else Puppet's detailed exit code. */
  readonly exitCode: number;
  /** The run report (tend's `--json`), when the catalog was loaded. */
  readonly runReport?: RunReport;
}

/** A report log as a console line; its time is made only when read (the console shows none). */
class ReportLine implements PuppetLogLine {
  readonly level: PuppetLogLine["level"];
  readonly message: string;
  readonly source: string;
  readonly tags: readonly string[];
  readonly file?: string;
  readonly line?: number;
  readonly #stamp: string;

  constructor(log: ReportLog) {
    this.level = log.level;
    this.message = log.message;
    this.source = log.source;
    this.tags = log.tags;
    if (log.file !== null) this.file = log.file;
    if (log.line !== null) this.line = log.line;
    this.#stamp = log.time;
  }

  get time(): Date {
    return new Date(`${this.#stamp.slice(0, 23)}Z`);
  }
}

function toLine(log: ReportLog): PuppetLogLine {
  return new ReportLine(log);
}

function runError(message: string): PuppetLogLine {
  return { level: "err", message, source: "Puppet", tags: ["err"], time: new Date() };
}

/** Applies the catalog of `options`; never throws for bad input (exit code 1 and error lines). */
export async function runPuppetApply(options: PuppetApplyOptions): Promise<PuppetApplyResult> {
  const started = monotonicMs();
  const path = options.readStdin
    ? "<stdin>"
    : options.catalogText !== undefined
      ? options.catalogFile
      : resolve(options.cwd, options.catalogFile);
  const loaded =
    options.catalogText !== undefined
      ? parseCatalog(options.catalogText, path)
      : options.readStdin
        ? parseCatalog(readStdin(), path)
        : await loadCatalogFile(path);
  if (!loaded.ok) {
    for (const d of loaded.diagnostics) options.log(runError(formatCatalogDiagnostic(d)));
    return { exitCode: 1 };
  }
  const { settings } = options;
  // Puppet makes its settings' directories before a run, the local
  // filebucket among them (0750), whether or not anything is backed up.
  try {
    makeDirectoriesSync(settings.clientbucketdir, 0o750);
  } catch {
    // A bucket that cannot be made fails the backups that need it, as in Puppet.
  }
  const retrieval = (monotonicMs() - started) / 1000;
  const run: PuppetRunSettings = {
    modulePath: settings.modulepath.split(":").filter((p) => p !== ""),
    bucketDir: settings.clientbucketdir,
    vardir: settings.vardir,
    certname: settings.certname,
    environment: settings.environment,
    parsedFileBackups: new Set(),
  };
  const modules = new PromiseModules(
    options.promiseModules?.named ?? new Map(),
    options.promiseModules?.dirs ?? [],
  );
  const applyStarted = monotonicMs();
  const report = await applyCatalog(loaded.catalog, registryFor(loaded.catalog, modules), {
    noop: options.noop,
    logLevel: options.logLevel ?? "notice",
    onLog: (log) => options.log(toLine(log)),
    run,
    host: settings.certname,
    tags: options.tags ?? [],
  });
  modules.shutdown(new Logger((record) => options.log(runLogLine(record.level, record.message)), "debug"));
  const application = (monotonicMs() - applyStarted) / 1000;
  if (report.transaction_completed) {
    appendRunLog(report, `Applied catalog in ${application.toFixed(2)} seconds`, options);
  }
  const times = {
    config_retrieval: retrieval,
    transaction_evaluation: report.metrics.time.transaction_evaluation ?? application,
    catalog_application: application,
    total: report.metrics.time.total ?? application,
  };
  // A catalog refused before the transaction (an unknown type, an invalid
  // parameter) leaves no report, as Puppet's failed conversion to resources.
  const refused = report.failure !== undefined && report.failure.code !== "cycle";
  if (!refused) await writeReportFiles(puppetShapedReport(report, times), settings, options);
  return { exitCode: detailedExitCode(report), runReport: report };
}

/** The built-in types, and for the catalog's other types the promise module of that name, if any. */
function registryFor(catalog: Catalog, modules: PromiseModules): ReadonlyMap<string, ResourceType> {
  const registry = new Map(puppetTypes);
  for (let i = 0; i < catalog.resources.length; i++) {
    const resource = catalog.resources[i] as Catalog["resources"][number];
    const name = resource.type.toLowerCase();
    if (registry.has(name)) continue;
    const type = findPuppetType(resource.type, modules);
    if (type) registry.set(name, type);
  }
  return registry;
}

function runLogLine(level: LogLevel, message: string): PuppetLogLine {
  return { level: REPORT_LEVEL_OF[level], message, source: "Puppet", tags: [level], time: new Date() };
}

function readStdin(): string {
  return readFileSync(0, "utf8");
}

/** A notice of the run itself, kept in the report and shown, as Puppet's closing line. */
function appendRunLog(report: RunReport, message: string, options: PuppetApplyOptions): void {
  const log: ReportLog = {
    level: "notice",
    message,
    source: "Puppet",
    tags: ["notice"],
    time: reportTime(),
    file: null,
    line: null,
  };
  report.logs.push(log);
  options.log(toLine(log));
}

/**
 * Writes the report, summary and state files where Puppet's settings put
 * them, each through a temporary file renamed into place. A file that
 * cannot be written is an error line, as in Puppet; the run's result
 * stands.
 */
async function writeReportFiles(
  shaped: PuppetReport,
  settings: PuppetSettings,
  options: PuppetApplyOptions,
): Promise<void> {
  const { report, implicit } = shaped;
  const now = new Date();
  const files: [string, readonly Uint8Array[], number, boolean][] = [
    [settings.lastrunfile, [Buffer.from(renderSummaryYaml(report, now), "utf8")], 0o755, false],
  ];
  if (settings.report) {
    const yaml = new TextChunks();
    writeReportYaml(report, yaml.write, implicit);
    files.push([settings.lastrunreport, yaml.chunks(), 0o1755, false]);
    // The stored report is the same file, linked rather than written again
    // (1.4 MB for a first run of a thousand files): see AtomicFile.sameAs.
    files.push([
      join(settings.vardir, "reports", report.host, `${storeName(now)}.yaml`),
      yaml.chunks(),
      0o750,
      true,
    ]);
  }
  const state = new TextChunks();
  writeStateYaml(report, state.write, implicit);
  files.push([settings.statefile, state.chunks(), 0o1755, false]);
  const ready: AtomicFile[] = [];
  for (const [file, chunks, dirMode, sameAsReport] of files) {
    try {
      makeDirectoriesSync(dirname(file), dirMode);
      // Puppet flushes each of these; tend does not: they are rewritten by
      // every run, nothing reads them back, and the flushes cost more than
      // the rest of a run of a thousand unchanged resources (see atomic.ts).
      const report = sameAsReport ? ready.findIndex((r) => r.path === settings.lastrunreport) : -1;
      ready.push({
        path: file,
        chunks,
        mode: 0o640,
        flush: false,
        ...(report >= 0 ? { sameAs: report } : {}),
      });
    } catch (error) {
      options.log(runError(`Could not save ${file}: ${(error as Error).message}`));
    }
  }
  // Written together: the files that replace others are flushed at once, not one after the other.
  const errors = await writeFilesAtomically(ready);
  errors.forEach((error, i) => {
    if (error) options.log(runError(`Could not save ${ready[i]?.path}: ${error.message}`));
  });
}

/** The name Puppet's `store` report processor gives a report: UTC `YYYYMMDDhhmm`. */
function storeName(now: Date): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return `${now.getUTCFullYear()}${two(now.getUTCMonth() + 1)}${two(now.getUTCDate())}${two(now.getUTCHours())}${two(now.getUTCMinutes())}`;
}
