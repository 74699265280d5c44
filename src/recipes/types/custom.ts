/**
 * Custom resources (Chef's custom resources, typed): a definition's
 * properties get their defaults and name property, `loadCurrentValue`
 * reads what is there, and the action's body runs with the recipe DSL
 * (resources it declares go to a collection of their own, converged right
 * after the body) plus `convergeIfChanged` and `convergeBy`, which change
 * the system immediately unless in why-run. The resource is updated when
 * its body changed something or a resource it declared was updated.
 */
import type {
  ActionContext,
  CustomResource,
  PropertySpec,
  PropertySpecs,
  PropsOf,
  RecipeContext,
} from "../dsl.js";
import type { ActionOutcome, ActionTarget, RecipeActionContext, RecipeResourceType } from "./type.js";

/** Each property's value: given, else the resource's name (name property), else its default. */
export function customProps(
  resource: CustomResource,
  name: string,
  given: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(resource.spec.properties)) {
    if (given[key] !== undefined) props[key] = given[key];
    else if (spec.nameProperty) props[key] = name;
    else if (spec.default !== undefined)
      props[key] = typeof spec.default === "function" ? spec.default() : spec.default;
  }
  return props;
}

const TYPE_CHECKS: readonly [PropertySpec["type"], string, (v: unknown) => boolean][] = [
  [String, "a string", (v) => typeof v === "string"],
  [Number, "a number", (v) => typeof v === "number"],
  [Boolean, "a boolean", (v) => typeof v === "boolean"],
  [Array, "an array", (v) => Array.isArray(v)],
  [Object, "an object", (v) => typeof v === "object" && v !== null && !Array.isArray(v)],
];

/** Problems of a declaration's values: unknown properties, required ones missing, wrong types. */
export function checkCustomProps(
  resource: CustomResource,
  given: Readonly<Record<string, unknown>>,
  isLazy: (v: unknown) => boolean,
): string[] {
  const problems: string[] = [];
  const specs = resource.spec.properties;
  for (const key of Object.keys(given))
    if (!(key in specs))
      problems.push(`unknown property '${key}' (${Object.keys(specs).join(", ") || "none"})`);
  for (const [key, spec] of Object.entries(specs)) {
    const value = given[key];
    if (value === undefined) {
      if (spec.required && !spec.nameProperty) problems.push(`property '${key}' is required`);
      continue;
    }
    if (isLazy(value)) continue;
    const check = TYPE_CHECKS.find(([ctor]) => ctor === spec.type);
    if (check && !check[2](value))
      problems.push(`property '${key}' must be ${check[1]}, not ${JSON.stringify(value)}`);
  }
  return problems;
}

function differences(
  props: Readonly<Record<string, unknown>>,
  current: Readonly<Record<string, unknown>> | undefined,
  given: ReadonlySet<string>,
): string[] {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(props)) {
    if (current === undefined) {
      lines.push(`set ${key} to ${JSON.stringify(value)}${given.has(key) ? "" : " (default value)"}`);
      continue;
    }
    // Only what loadCurrentValue found is compared: a property it does not read is not drift.
    if (!given.has(key) || !(key in current)) continue;
    if (JSON.stringify(current[key]) !== JSON.stringify(value))
      lines.push(`set ${key} to ${JSON.stringify(value)} (was ${JSON.stringify(current[key])})`);
  }
  return lines;
}

export function customType(name: string, resource: CustomResource): RecipeResourceType {
  const actions = Object.keys(resource.spec.actions);
  return {
    name,
    actions: [...actions, "nothing"],
    defaultAction: resource.spec.defaultAction ?? actions[0] ?? "nothing",
    properties: Object.keys(resource.spec.properties),
    run: (action, target, context) => runCustom(resource, action, target, context),
  };
}

async function runCustom(
  resource: CustomResource,
  action: string,
  target: ActionTarget,
  context: RecipeActionContext,
): Promise<ActionOutcome> {
  const body = resource.spec.actions[action];
  if (body === undefined) return { updated: false, lines: [] };
  if (body === null)
    return {
      updated: false,
      lines: [],
      failed: `action ${action} of ${target.ref} has no provider (a providers/ file with defineProvider)`,
    };
  const name = target.declaration.name;
  const props = target.props as PropsOf<PropertySpecs>;
  const current = resource.spec.loadCurrentValue
    ? await resource.spec.loadCurrentValue(name, props)
    : undefined;
  const given = new Set(Object.keys(target.declaration.props));
  const lines: string[] = [];
  const nested = await context.nested(target, async (r: RecipeContext) => {
    const a: ActionContext<PropsOf<PropertySpecs>> = Object.assign(Object.create(r) as RecipeContext, {
      name,
      props,
      current,
      whyRun: context.whyRun,
      convergeIfChanged: async (change: () => void | Promise<void>) => {
        const found = differences(props, current, given);
        if (found.length === 0) return;
        lines.push(
          `${current === undefined ? "create" : "update"} ${target.ref}`,
          ...found.map((l) => `  ${l}`),
        );
        if (!context.whyRun) await change();
      },
      convergeBy: async (description: string, change: () => void | Promise<void>) => {
        lines.push(description);
        if (!context.whyRun) await change();
      },
    });
    await body(a);
  });
  return {
    updated: lines.length > 0 || nested.updated,
    lines,
    failed: nested.failed,
    ...(nested.notifications?.length ? { notifications: nested.notifications } : {}),
  };
}
