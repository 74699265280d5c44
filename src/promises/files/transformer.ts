/**
 * `transformer => "command"`: a command run on the file (e.g. a
 * compressor), its output logged, as cf-agent 3.21 runs it. The command
 * must name an executable (it runs without a shell); `$(this.promiser)`
 * in it is the file.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import type { Rval } from "../../language/ast.js";
import { splitCommand } from "../../eval/functions/exec.js";
import { judgeExit, promiseVerdicts, readReturnCodes } from "../commands/verdict.js";
import { asText } from "../values.js";
import type { FileStep } from "./step.js";

function programOf(command: string): string {
  return splitCommand(command)[0] ?? "";
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return path.startsWith("/");
  } catch {
    return false;
  }
}

/** Runs the transformer on `file`. */
export function transformFile(step: FileStep, file: string, raw: Rval, written: string): void {
  const command = asText(step.expandForPath(raw)) ?? written;
  if (!isExecutable(programOf(command))) {
    step.failed(`Transformer '${written}' for file '${file}' failed`);
    return;
  }
  if (!step.makingChanges(`transform file '${file}' with '${command}'`)) return;
  step.env.log.info(`Transforming '${file}' with '${command}'`);
  const [program, ...args] = splitCommand(command);
  const run = spawnSync(program ?? "", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (run.error) {
    step.failed(`Transformer '${written}' for file '${file}' failed`);
    return;
  }
  for (const line of `${run.stdout ?? ""}${run.stderr ?? ""}`.split("\n")) {
    if (line !== "") step.env.log.info(line);
  }
  step.changed(`Transformed '${file}' with '${command}' `);
  const verdicts = promiseVerdicts(step.promise, step.env);
  const outcome = judgeExit(verdicts, step.promise.promiser, run.status, true, readReturnCodes(step.promise));
  step.update(outcome);
  if (outcome === "failed") step.env.log.error(`Transformer '${file}' => '${command}' returned error`);
  else step.env.log.info(`Transformer '${file}' => '${command}' seemed to work ok`);
}
