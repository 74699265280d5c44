/**
 * The attributes of a `processes` promise as 3.21 reads them: signals,
 * `process_stop`, `restart_class`, and the `process_count` and
 * `process_select` bodies. Integer ranges are "min,max" (`irange`); an
 * absent range is "none", which matches nothing. A range that cannot be
 * read stops the run, as in 3.21.
 */
import type { Rval } from "../../language/ast.js";
import type { EvalContext } from "../../eval/context.js";
import { expandRval } from "../../eval/expand.js";
import { CF_INFINITY } from "../../eval/numbers.js";
import type { ListItem, ProcessSelect, Range } from "../../eval/process-select.js";
import type { ActivePromise } from "../contract.js";
import { asStrings, asText } from "../values.js";

export interface ProcessCount {
  readonly range?: Range;
  readonly inRange: readonly ListItem[];
  readonly outOfRange: readonly ListItem[];
}

export interface ProcessAttributes {
  readonly signals: readonly string[];
  readonly processStop?: string;
  readonly restartClass?: string;
  readonly haveCount: boolean;
  readonly haveSelect: boolean;
  readonly count: ProcessCount;
  readonly select: ProcessSelect;
  /** `action_policy => "warn"`. */
  readonly warnOnly: boolean;
}

/** A range given but unreadable: the run stops (3.21's "Could not make sense of integer range"). */
export class BadRange extends Error {
  constructor(readonly text: string) {
    super(`Could not make sense of integer range [${text}]`);
  }
}

/** 3.21's IntegerRangeFromString: "min,max" with `inf` for max; undefined when absent. */
export function readRange(text: string | undefined): Range | undefined {
  if (text === undefined) return undefined;
  const [low, high] = text.split(",");
  const leading = (s: string | undefined) => {
    const match = /^\s*([+-]?\d+)/.exec(s ?? "");
    return match ? Number(match[1]) : undefined;
  };
  const min = leading(low);
  const max = high === "inf" ? CF_INFINITY : leading(high);
  if (min === undefined || max === undefined) throw new BadRange(text);
  return [min, max];
}

/** The items of a list attribute, each expanded alone so that a failed call leaves the others. */
function readItems(ctx: EvalContext, promise: ActivePromise, rval: Rval | undefined): ListItem[] {
  if (!rval) return [];
  const items = rval.kind === "list" ? rval.items : [rval];
  const out: ListItem[] = [];
  for (const item of items) {
    const value = expandRval(ctx, item, promise.options);
    if (value === undefined) {
      if (item.kind === "call") out.push({ failedCall: item.name });
      continue;
    }
    for (const text of asStrings(value)) out.push({ text });
  }
  return out;
}

export function readProcessAttributes(promise: ActivePromise, ctx: EvalContext): ProcessAttributes {
  const select = (name: string) => asText(promise.bodyValue("process_select", name));
  const selectRange = (name: string) => readRange(select(name));
  const policy = asText(promise.bodyValue("action", "action_policy"));
  const bodyItems = (body: string, name: string) =>
    readItems(ctx, promise, promise.body(body)?.attributes.get(name)?.value);
  return {
    signals: asStrings(promise.value("signals")),
    processStop: promise.text("process_stop"),
    restartClass: promise.text("restart_class"),
    haveCount: promise.body("process_count") !== undefined,
    haveSelect: promise.body("process_select") !== undefined,
    count: {
      range: readRange(asText(promise.bodyValue("process_count", "match_range"))),
      inRange: bodyItems("process_count", "in_range_define"),
      outOfRange: bodyItems("process_count", "out_of_range_define"),
    },
    select: {
      owners: bodyItems("process_select", "process_owner"),
      pid: selectRange("pid"),
      ppid: selectRange("ppid"),
      pgid: selectRange("pgid"),
      rsize: selectRange("rsize"),
      vsize: selectRange("vsize"),
      ttime: selectRange("ttime_range"),
      stime: selectRange("stime_range"),
      priority: selectRange("priority"),
      threads: selectRange("threads"),
      status: select("status"),
      command: select("command"),
      tty: select("tty"),
      result: select("process_result"),
    },
    warnOnly: policy === "warn" || policy === "nop",
  };
}
