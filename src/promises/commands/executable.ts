/**
 * 3.21's IsExecutable, for programs a promise runs (commands, a process's
 * `process_stop`): the file exists, is not world-writable, and we may
 * execute it; refusals are logged with cf-agent's messages.
 */
import { accessSync, constants, statSync } from "node:fs";
import type { PromiseEnvironment } from "../contract.js";

export function isExecutable(file: string, env: PromiseEnvironment): boolean {
  let mode: number;
  try {
    mode = statSync(file).mode;
  } catch {
    env.log.error(`Proposed executable file '${file}' doesn't exist`);
    return false;
  }
  if (mode & 0o002) {
    env.log.error(`SECURITY ALERT: promised executable '${file}' is world writable! `);
    env.log.error("SECURITY ALERT: CFEngine will not execute this - requires human inspection");
    return false;
  }
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
