/**
 * Messages built-in functions emit (errors, warnings, verbose notes), kept
 * per evaluation context. The engine installs a sink to print them; without
 * one they are only collected, so evaluation stays free of I/O.
 */
import type { EvalContext } from "../context.js";

/**
 * How serious a message is; `output` is raw text a command printed that
 * cf-agent lets through to its own standard output (not a log line), and
 * `output-info` such text it lets through only when it logs at info level;
 * `fatal` is an error cf-agent stops the run for (exit 1).
 */
export type FunctionLogLevel = "error" | "warning" | "info" | "verbose" | "output" | "output-info" | "fatal";

export interface FunctionMessage {
  readonly level: FunctionLogLevel;
  readonly fn: string;
  readonly message: string;
}

export type FunctionMessageSink = (message: FunctionMessage) => void;

const sinks = new WeakMap<EvalContext, FunctionMessageSink>();
const collected = new WeakMap<EvalContext, FunctionMessage[]>();

/** Routes the messages of functions evaluated in `ctx` to `sink`. */
export function setFunctionMessageSink(ctx: EvalContext, sink: FunctionMessageSink): void {
  sinks.set(ctx, sink);
}

/** Messages emitted in `ctx` while no sink was installed. */
export function collectedFunctionMessages(ctx: EvalContext): readonly FunctionMessage[] {
  return collected.get(ctx) ?? [];
}

/** Emits one message for function `fn`. */
export function emitFunctionMessage(
  ctx: EvalContext,
  level: FunctionLogLevel,
  fn: string,
  message: string,
): void {
  const entry = { level, fn, message };
  const sink = sinks.get(ctx);
  if (sink) {
    sink(entry);
    return;
  }
  const list = collected.get(ctx) ?? [];
  // Bounded: a policy calling a failing function in a loop must not grow memory forever.
  if (list.length < 1000) list.push(entry);
  collected.set(ctx, list);
}
