/**
 * Promise modules as recipe resources (the seed's plugin contract: one
 * `promise agent` module serves every front end). A resource whose type
 * names a configured module (`tend converge --promise-module NAME=PATH`) is
 * validated and evaluated by that module over the shared protocol client
 * (src/providers/modules): promiser = the resource's name, attributes = its
 * properties. Kept is up to date, repaired updated, not kept a failure; in
 * why-run the module runs with `action_policy => "warn"`. The module's
 * processes live for the run (RecipeActionContext.modules).
 */
import { evaluateWithModule } from "../../providers/modules/evaluate.js";
import type { JsonValue } from "../../providers/modules/protocol.js";
import type { ModuleSpec } from "../../providers/modules/session.js";
import { Logger } from "../../system/logger.js";
import { paramValue } from "../collection.js";
import { failed, type RecipeResourceType, UNCHANGED } from "./type.js";

/** The limit for one exchange with a module (the CFEngine agent's default). */
const MODULE_TIMEOUT_MS = 30_000;

export function moduleType(name: string, spec: ModuleSpec): RecipeResourceType {
  const shown = `promise module '${spec.path}'`;
  return {
    name,
    actions: ["evaluate", "nothing"],
    defaultAction: "evaluate",
    properties: [],
    anyProperties: true,
    run: async (action, target, context) => {
      if (action === "nothing") return UNCHANGED;
      const logger = new Logger(
        ({ level, message }) =>
          context.log(
            level === "error" || level === "critical" ? "error" : level === "warning" ? "warn" : "info",
            message,
          ),
        "info",
      );
      const attributes = new Map<string, JsonValue>();
      for (const [key, value] of Object.entries(target.props))
        attributes.set(key, paramValue(value) as JsonValue);
      const verdict = evaluateWithModule(
        { runtime: context.modules(), spec, timeoutMs: MODULE_TIMEOUT_MS, dryRun: context.whyRun, logger },
        {
          type: name,
          promiser: target.declaration.name,
          attributes,
          filename: target.declaration.location?.file,
          line: target.declaration.location?.line,
        },
      );
      const provider = "promise_module";
      switch (verdict.status) {
        case "kept":
          return { ...UNCHANGED, provider };
        case "repaired":
          return { updated: true, lines: [`repaired by ${shown}`], provider };
        case "not_kept":
          return context.whyRun
            ? { updated: true, lines: [`repair by ${shown}`], provider }
            : { ...failed(`not kept by ${shown}`), provider };
        case "invalid":
          return { ...failed(`invalid for ${shown}`), provider };
        default:
          return { ...failed(verdict.error), provider };
      }
    },
  };
}
