/**
 * The cron provider: named jobs of a user's crontab, inspected, compared
 * with a desired state and written back (other lines kept) through
 * crontab(1), or the spool file under another root, unless in a dry run.
 * Puppet's `cron` type goes through `ensureCron`.
 */
export { type CronOptions, type CronResult, type CronSpec, ensureCron } from "./ensure.js";
export {
  type CronJob,
  type CrontabLine,
  CrontabParseError,
  crontabHeader,
  parseCrontab,
  renderCrontab,
  renderJob,
  TIME_FIELDS,
  type TimeField,
} from "./crontab-text.js";
export { type CrontabStore, CrontabStoreError, commandStore, spoolStore } from "./store.js";
