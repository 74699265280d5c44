/**
 * The compile behind `tend puppet catalog compile` and `tend puppet apply`
 * (manifests or `-e`): settings from the command line and puppet.conf, the
 * compile, and its messages printed as Puppet prints them. A failure is
 * printed with Puppet's wording and no stack trace; the caller exits 1.
 */
import { join, resolve } from "node:path";
import type { PuppetCatalogJson } from "../puppet/eval/compile-api.js";
import type { LogLevel } from "../system/logger.js";
import type { CliIo } from "./io.js";
import type { PuppetPrinter } from "./puppet-catalog.js";

export interface CompileCommand {
  readonly node: string | undefined;
  /** Settings given on the command line, by Puppet's names. */
  readonly given: Readonly<Record<string, string | undefined>>;
  readonly io: CliIo;
  readonly printer: PuppetPrinter;
  /** `puppet apply`: facts from `<vardir>/client_data`, no server facts, apply's error lines. */
  readonly forApply: boolean;
}

export interface CompileOutcome {
  readonly catalog?: PuppetCatalogJson;
  /** The catalog's JSON text as `--render-as json` prints it, in pieces of UTF-8 (CompileResult's). */
  readonly writeCatalogJson?: (write: (bytes: Uint8Array) => void) => void;
  readonly node?: string;
  readonly environment?: string;
}

export async function compileCatalogCommand(command: CompileCommand): Promise<CompileOutcome> {
  const { io, printer } = command;
  const { resolveCompileSettings, SettingsError } = await import("../puppet/settings.js");
  let settings: ReturnType<typeof resolveCompileSettings>;
  try {
    settings = resolveCompileSettings(command.given, io.cwd);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    printer.error(error.message);
    return {};
  }
  const node = command.node ?? settings.certname;
  const { compileNodeCatalog, compileErrorText, CompileSetupError, PuppetCompileError } = await import(
    "../puppet/env/compile.js"
  );
  const { Logger } = await import("../system/logger.js");
  const threshold: Readonly<Record<string, LogLevel>> = {
    debug: "debug",
    info: "info",
    notice: "notice",
    warning: "warning",
  };
  const logger = new Logger((record) => {
    const level = record.level === "error" || record.level === "critical" ? "err" : record.level;
    printer.line(level === "verbose" ? "info" : level, record.message);
  }, threshold[printer.level] ?? "error");
  // Puppet reports a failed find once from where it failed and twice from the face.
  const failed = (message: string, logged: number): CompileOutcome => {
    for (let i = 0; i < logged; i++) printer.error(message);
    if (command.forApply) return {};
    printer.error(`Could not call 'find' on 'catalog': ${message}`);
    printer.error(`Could not call 'find' on 'catalog': ${message}`);
    return {};
  };
  try {
    const compiled = await compileNodeCatalog({
      node,
      settings,
      factsDir: command.forApply ? join(settings.vardir, "client_data") : settings.serverDatadir,
      forApply: command.forApply,
      logger,
      warn: (message) => printer.line("warning", message),
      cwd: resolve(io.cwd),
    });
    for (const message of compiled.result.messages)
      printer.line(message.level, message.source ? `${message.source}: ${message.message}` : message.message);
    printer.line(
      "notice",
      `Compiled catalog for ${node} in environment ${compiled.environment} in ${compiled.seconds.toFixed(2)} seconds`,
    );
    const result = compiled.result;
    return {
      // Made only when read: `tend puppet apply` reads it, `catalog compile` renders it.
      get catalog() {
        return result.catalog;
      },
      writeCatalogJson: (write) => result.writeCatalogJson(write),
      node,
      environment: compiled.environment,
    };
  } catch (error) {
    if (error instanceof CompileSetupError) {
      if (error.stage === "environment") {
        printer.error(error.message);
        return {};
      }
      return failed(error.message, error.stage === "node" ? 1 : 0);
    }
    if (error instanceof PuppetCompileError)
      return failed(compileErrorText(error, node), command.forApply ? 1 : 2);
    throw error;
  }
}
