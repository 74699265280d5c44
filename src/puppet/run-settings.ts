/**
 * What the Puppet front end passes down to its resource types through the
 * applier's `RunSettings` (vardir, certname beside the shared module path
 * and bucket), and Puppet's log levels as tend's.
 */
import type { ApplyContext, RunSettings } from "../catalog/resource-type.js";
import type { LogLevel, Logger } from "../system/logger.js";

export interface PuppetRunSettings extends RunSettings {
  readonly vardir?: string;
  readonly certname?: string;
  readonly environment?: string;
  /** The files the parsed-file providers backed up this run (`provider\0path`): once each. */
  readonly parsedFileBackups?: Set<string>;
}

/** Puppet's `loglevel` metaparameter as tend's level (`err` is error, `alert`/`emerg`/`crit` critical). */
export function puppetLogLevel(value: unknown): LogLevel {
  switch (value) {
    case "debug":
      return "debug";
    case "info":
      return "info";
    case "warning":
      return "warning";
    case "err":
      return "error";
    case "alert":
    case "emerg":
    case "crit":
      return "critical";
    case "verbose":
      return "verbose";
    default:
      return "notice";
  }
}

/**
 * The run's own log (source `Puppet`): the applier's, else one a caller
 * put in the run settings (`runLogger`), else the resource's.
 */
export function runLog(context: ApplyContext): Logger {
  const fromSettings = (context.run as { readonly runLogger?: Logger }).runLogger;
  return context.runLogger ?? fromSettings ?? context.logger;
}
