import type { Outcome } from "../../agent/outcome.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";

export function evaluateMethodPromise(_promise: ActivePromise, _env: PromiseEnvironment): Outcome {
  return "failed";
}

export function runScheduledOperations(_env: PromiseEnvironment): void {}
