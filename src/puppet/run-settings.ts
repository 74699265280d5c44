/**
 * What the Puppet front end passes down to its resource types through the
 * applier's `RunSettings`: the run's own log (messages Puppet logs as
 * itself, source `Puppet`, rather than under a resource's path), and the
 * settings Puppet's types read (vardir, modulepath, certname).
 */
import type { ApplyContext, RunSettings } from "../catalog/resource-type.js";
import type { LogLevel, Logger } from "../system/logger.js";

export interface PuppetRunSettings extends RunSettings {
  /** The run's log, for messages logged as Puppet's own (notify without withpath). */
  readonly runLogger?: Logger;
  readonly vardir?: string;
  readonly certname?: string;
}

/** The run's own log, or the resource's when the front end gave none. */
export function runLog(context: ApplyContext): Logger {
  const settings = context.run as PuppetRunSettings;
  return settings.runLogger ?? context.logger;
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
