/**
 * 3.21's IsExecutable, for programs a promise runs (commands, a process's
 * `process_stop`): the file exists, is not world-writable, and we may
 * execute it; refusals are logged with cf-agent's messages.
 */
import { executableProblem } from "../../providers/commands/executable.js";
import type { PromiseEnvironment } from "../contract.js";

export function isExecutable(file: string, env: PromiseEnvironment): boolean {
  const problem = executableProblem(file);
  if (problem === "missing") env.log.error(`Proposed executable file '${file}' doesn't exist`);
  if (problem === "world-writable") {
    env.log.error(`SECURITY ALERT: promised executable '${file}' is world writable! `);
    env.log.error("SECURITY ALERT: CFEngine will not execute this - requires human inspection");
  }
  return problem === undefined;
}
