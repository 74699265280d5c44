/**
 * Loops, as rudderc 8.3 resolves them: an item with `foreach` becomes one
 * copy per row, in which `${<foreach_name>.<key>}` (default name `item`) is
 * replaced in the name, description, documentation, condition and parameter
 * values of the item and of everything inside it; each copy's id gets the
 * row indexes appended (`<id>-0-1`). The first copy of the outermost loop is
 * the "main" one, the others "virtual" (their ids are not checked for
 * uniqueness, and a main copy's condition is kept as an expression).
 */
import { conditionText, parseCondition } from "./condition.js";
import type { DiagnosticSink } from "./diagnostics.js";
import type { ForeachState } from "./model.js";
import type { RawItem } from "./read.js";

interface LoopContext {
  readonly variable: string;
  readonly data: ReadonlyMap<string, string>;
  readonly index: number;
}

/** An item with its loops resolved and its place in them. */
export type ResolvedItem = Omit<RawItem, "items" | "foreach" | "foreachName"> & {
  readonly items: readonly ResolvedItem[];
  readonly foreachState?: ForeachState;
};

export function resolveLoops(items: readonly RawItem[], sink: DiagnosticSink): ResolvedItem[] {
  return items.flatMap((item) => resolveItem(item, [], undefined, sink));
}

function resolveItem(
  item: RawItem,
  parent: readonly LoopContext[],
  parentState: ForeachState | undefined,
  sink: DiagnosticSink,
): ResolvedItem[] {
  const firstState = parentState ?? (item.foreach ? "main" : undefined);
  if (!item.foreach) {
    const items = item.items.flatMap((child) => resolveItem(child, parent, firstState, sink));
    return [withContext(item, parent, items, firstState, sink)];
  }
  return item.foreach.map((data, index) => {
    const context = [...parent, { variable: item.foreachName ?? "item", data, index }];
    const state: ForeachState | undefined = index === 0 ? firstState : "virtual";
    const items = item.items.flatMap((child) => resolveItem(child, context, state, sink));
    return withContext(item, context, items, state, sink);
  });
}

function withContext(
  item: RawItem,
  context: readonly LoopContext[],
  items: ResolvedItem[],
  state: ForeachState | undefined,
  sink: DiagnosticSink,
): ResolvedItem {
  const expand = (text: string): string => context.reduce((acc, c) => expandOne(c, acc), text);
  const params = new Map<string, { value: string; offset: number }>();
  for (const [name, p] of item.params) params.set(name, { value: expand(p.value), offset: p.offset });
  const { foreach: _foreach, foreachName: _foreachName, ...rest } = item;
  return {
    ...rest,
    name: expand(item.name),
    ...(item.description !== undefined ? { description: expand(item.description) } : {}),
    ...(item.documentation !== undefined ? { documentation: expand(item.documentation) } : {}),
    condition: expandCondition(item, expand, sink),
    id: context.length === 0 ? item.id : `${item.id}-${context.map((c) => c.index).join("-")}`,
    params,
    items,
    ...(state ? { foreachState: state } : {}),
  };
}

function expandCondition(
  item: RawItem,
  expand: (t: string) => string,
  sink: DiagnosticSink,
): RawItem["condition"] {
  const text = expand(conditionText(item.condition));
  const parsed = parseCondition(text);
  if (parsed !== undefined) return parsed;
  sink.error(
    "invalid-condition",
    item.offset,
    `the condition of item ${item.id} becomes '${text}' in its loop, which is not a valid condition`,
  );
  return item.condition;
}

/** Replaces `${<variable>.<key>}` by the row's value; unknown keys stay as written. */
function expandOne(context: LoopContext, text: string): string {
  const pattern = new RegExp(`\\$\\{${escapeRegExp(context.variable)}\\.(\\w+)\\}`, "g");
  return text.replace(pattern, (whole, key: string) => context.data.get(key) ?? whole);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
