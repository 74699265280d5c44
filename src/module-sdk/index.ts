/**
 * A small library for writing custom promise types (promise modules) in
 * TypeScript or JavaScript, for tend and cf-agent alike:
 *
 *     import { runPromiseModule, string } from "tend/module-sdk";
 *
 *     await runPromiseModule({
 *       name: "greeting",
 *       version: "1.0",
 *       attributes: { text: string({ required: true }) },
 *       evaluate({ promiser, attributes, warnOnly, log }) {
 *         // inspect; unless warnOnly, repair and log.info() what changed
 *         return "kept";
 *       },
 *     });
 *
 * Declare it in policy with `promise agent greeting { path => "/path/greeting.mjs";
 * interpreter => "/usr/bin/node"; }`. See examples/modules/ for a complete module.
 */
export {
  AGENT_ATTRIBUTES,
  type AttributeSpec,
  type AttributeSpecs,
  type AttributeValues,
  type Json,
  type SpecOptions,
  ValidationError,
  boolean,
  checkAttributes,
  data,
  int,
  list,
  oneOf,
  string,
} from "./attributes.js";
export {
  type Evaluation,
  type ModuleLog,
  type ModuleLogLevel,
  type ModuleStreams,
  type Outcome,
  type PromiseModuleDefinition,
  type PromiseRequest,
  runPromiseModule,
} from "./module.js";
