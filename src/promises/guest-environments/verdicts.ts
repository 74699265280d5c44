/**
 * One guest_environments promise being kept: its hypervisor, its
 * attributes (with the state the host decided), and 3.21's cfPS: a message
 * that is also a verdict, setting the `classes` body's classes at once.
 */
import type { LogLevel } from "../../system/logger.js";
import { type Outcome, combineOutcomes } from "../outcome.js";
import { applyOutcomeClasses } from "../outcome-classes.js";
import type { Hypervisor } from "../../providers/virtualization/hypervisor.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { logPromiseContext } from "../promise-context.js";
import type { EnvironmentAttributes } from "./attributes.js";

export class EnvironmentRun {
  result: Outcome = "kept";

  constructor(
    readonly promise: ActivePromise,
    readonly env: PromiseEnvironment,
    readonly a: EnvironmentAttributes,
    readonly hypervisor: Hypervisor,
  ) {}

  get name(): string {
    return this.promise.promiser;
  }

  verdict(level: LogLevel, outcome: Outcome, message: string): Outcome {
    if (level === "verbose") logPromiseContext(this.promise, this.env);
    this.env.log.log(level, message);
    applyOutcomeClasses(this.promise, this.env, outcome);
    this.result = combineOutcomes(this.result, outcome);
    return this.result;
  }
}
