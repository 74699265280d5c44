/**
 * log and block: the log resource writes its message to the run's log at
 * its level and, as chef-client counts it by default, is updated each time
 * it runs; a block runs TypeScript at converge time (Chef's ruby_block)
 * and is updated when it ran.
 */
import { type RecipeResourceType, textProp, UNCHANGED } from "./type.js";

const LEVELS: Readonly<Record<string, "debug" | "info" | "warn" | "error">> = {
  debug: "debug",
  info: "info",
  warn: "warn",
  error: "error",
  fatal: "error",
};

export const logType: RecipeResourceType = {
  name: "log",
  actions: ["write", "nothing"],
  defaultAction: "write",
  properties: ["message", "level"],
  nameProperty: "message",
  validate: (props) =>
    typeof props.level === "string" && LEVELS[String(props.level)] === undefined
      ? [`level must be debug, info, warn, error or fatal, not ${JSON.stringify(props.level)}`]
      : [],
  run: async (action, target, context) => {
    if (action === "nothing") return UNCHANGED;
    const message = textProp(target.props.message) ?? target.declaration.name;
    if (!context.whyRun) context.log(LEVELS[String(target.props.level ?? "info")] ?? "info", message);
    return { updated: true, lines: [`write log: ${message}`] };
  },
};

export const blockType: RecipeResourceType = {
  name: "block",
  actions: ["run", "create", "nothing"],
  defaultAction: "run",
  properties: ["block"],
  validate: (props) => (typeof props.block === "function" ? [] : ["block needs `block`, a function"]),
  run: async (action, target, context) => {
    if (action === "nothing") return UNCHANGED;
    const lines = [`run the block ${target.declaration.name}`];
    if (context.whyRun) return { updated: true, lines };
    await (target.props.block as () => void | Promise<void>)();
    return { updated: true, lines };
  },
};
