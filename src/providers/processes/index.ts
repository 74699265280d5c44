/**
 * The processes provider: the system's process table read as `ps` shows it
 * (table.ts) and signals sent to processes (signals.ts), shared by
 * CFEngine's `processes` promises and functions and by any front end's
 * service or process management.
 */
export {
  PS_COMMAND,
  PS_OPTIONS,
  type ProcessColumn,
  type ProcessTable,
  type ProcessTableLog,
  columnIndex,
  extractPid,
  loadProcessTable,
  readColumns,
  splitProcessLine,
  timeCounterSeconds,
} from "./table.js";
export { type SignalStep, isKillingSignal, pause, readSignalStep, sendSignal } from "./signals.js";
