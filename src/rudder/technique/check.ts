/**
 * Turns resolved items into blocks and method calls and checks them against
 * the method library, as rudderc 8.3's compiler does: unknown methods,
 * missing parameters (an empty value when the method allows it), values that
 * break the method's constraints (skipped when they hold `${`), unexpected
 * parameters, deprecated methods, focus ids of blocks, duplicate ids and
 * duplicate parameter names.
 */
import type { DiagnosticSink } from "./diagnostics.js";
import type { ResolvedItem } from "./foreach.js";
import type { MethodInfo, MethodLibrary } from "./methods.js";
import { checkConstraints } from "./method-constraints.js";
import type { Block, Item, MethodCall, TechniqueParameter } from "./model.js";

export function buildItems(
  items: readonly ResolvedItem[],
  methods: MethodLibrary,
  sink: DiagnosticSink,
): Item[] {
  return items.map((item) => buildItem(item, methods, sink)).filter((i) => i !== undefined);
}

function buildItem(item: ResolvedItem, methods: MethodLibrary, sink: DiagnosticSink): Item | undefined {
  if (item.method !== undefined) return buildMethod(item, item.method, methods, sink);
  if (item.items.length === 0) return undefined;
  const block: Block = {
    kind: "block",
    id: item.id,
    name: item.name,
    ...(item.description !== undefined ? { description: item.description } : {}),
    ...(item.documentation !== undefined ? { documentation: item.documentation } : {}),
    condition: item.condition,
    ...(item.policyModeOverride ? { policyModeOverride: item.policyModeOverride } : {}),
    ...(item.foreachState ? { foreachState: item.foreachState } : {}),
    offset: item.offset,
    reporting: {
      mode: item.reporting.mode,
      ...(item.reporting.id !== undefined ? { id: item.reporting.id } : {}),
    },
    items: buildItems(item.items, methods, sink),
  };
  checkBlock(block, item.reporting.offset, sink);
  return block;
}

function buildMethod(
  item: ResolvedItem,
  method: string,
  methods: MethodLibrary,
  sink: DiagnosticSink,
): MethodCall | undefined {
  const info = methods.get(method);
  if (!info) {
    sink.error(
      "unknown-method",
      item.methodOffset,
      `unknown method '${method}', expected a method of the library${suggest(method, methods)}`,
    );
    return undefined;
  }
  const name = item.name === "" ? info.name : item.name;
  const params = checkParams(item, name, info, sink);
  if (info.deprecated !== undefined) {
    sink.warning(
      "deprecated-method",
      item.methodOffset,
      `deprecated method '${method}' (${name}): ${info.deprecated}`,
    );
  }
  return {
    kind: "method",
    id: item.id,
    name,
    ...(item.description !== undefined ? { description: item.description } : {}),
    ...(item.documentation !== undefined ? { documentation: item.documentation } : {}),
    condition: item.condition,
    ...(item.policyModeOverride ? { policyModeOverride: item.policyModeOverride } : {}),
    ...(item.foreachState ? { foreachState: item.foreachState } : {}),
    offset: item.offset,
    method,
    params,
    reporting: item.reporting.mode === "disabled" ? "disabled" : "enabled",
    info,
  };
}

function checkParams(
  item: ResolvedItem,
  name: string,
  info: MethodInfo,
  sink: DiagnosticSink,
): Map<string, string> {
  const params = new Map<string, string>();
  for (const p of info.parameters) {
    const given = item.params.get(p.name);
    if (given === undefined && !p.constraints.allowEmpty) {
      sink.error(
        "missing-parameter",
        item.offset,
        `missing parameter '${p.name}' in method call '${name}' for method '${info.bundleName}'`,
      );
      continue;
    }
    const value = given?.value ?? "";
    params.set(p.name, value);
    if (value.includes("${")) continue;
    const problem = checkConstraints(p.constraints, value);
    if (problem) {
      sink.error(
        "invalid-parameter",
        given?.offset ?? item.offset,
        `invalid parameter '${p.name}' in method call '${name}' for method '${info.bundleName}': ${problem}`,
      );
    }
  }
  for (const [key, given] of item.params) {
    if (!info.parameters.some((p) => p.name === key)) {
      const expected = info.parameters.map((p) => p.name).join(", ");
      sink.error(
        "unexpected-parameter",
        given.offset,
        `unexpected parameter '${key}' in '${name}', expected parameters of ${info.bundleName}: ${expected}`,
      );
    }
  }
  return params;
}

function suggest(method: string, methods: MethodLibrary): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const name of methods.keys()) {
    const d = editDistance(method, name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best === undefined ? "" : ` (did you mean '${best}'?)`;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 4;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(
        Math.min(
          (previous[j] as number) + 1,
          (current[j - 1] as number) + 1,
          (previous[j - 1] as number) + cost,
        ),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

function checkBlock(block: Block, offset: number, sink: DiagnosticSink): void {
  const { mode, id } = block.reporting;
  if (mode === "focus") {
    if (id === undefined)
      sink.error("missing-field", offset, `missing id of focused report in block '${block.name}'`);
    else if (!block.items.some((i) => hasId(i, id))) {
      sink.error(
        "unknown-focus-id",
        offset,
        `unknown id '${id}' of focused report in block '${block.name}', expected the id of an item inside it`,
      );
    }
  } else if (id !== undefined) {
    sink.error(
      "invalid-value",
      offset,
      `reporting mode ${mode} does not expect an id in block '${block.name}'`,
    );
  }
}

function hasId(item: Item, id: string): boolean {
  if (item.id === id) return true;
  return item.kind === "block" && item.items.some((i) => hasId(i, id));
}

/** Ids must be unique among items that are not loop copies, and parameters' ids too. */
export function checkUnicity(
  items: readonly Item[],
  params: readonly TechniqueParameter[],
  paramOffsets: readonly number[],
  sink: DiagnosticSink,
): void {
  const seen = new Set<string>();
  const visit = (item: Item): void => {
    if (item.foreachState === "virtual") return;
    if (seen.has(item.id)) sink.error("duplicate-id", item.offset, `duplicate id '${item.id}'`);
    seen.add(item.id);
    if (item.kind === "block") item.items.forEach(visit);
  };
  items.forEach(visit);
  const names = new Set<string>();
  params.forEach((p, i) => {
    const offset = paramOffsets[i] ?? 0;
    if (seen.has(p.id)) sink.error("duplicate-id", offset, `duplicate id '${p.id}'`);
    seen.add(p.id);
    if (names.has(p.name)) sink.error("duplicate-parameter", offset, `duplicate parameter name '${p.name}'`);
    names.add(p.name);
  });
}
