/**
 * The evaluation stack as 3.21 keeps it and `callstack_callers()` /
 * `callstack_promisers()` show it: bundle frames, promise type (section)
 * frames, promise frames and promise iteration frames, outermost first.
 *
 * As in 3.21, a promise's own function calls see the stack up to its
 * promise frame; a bundle a promise runs (methods, edit_line) sits above an
 * iteration frame.
 */
import type { JsonValue } from "./values.js";

export type CallFrame =
  | { readonly type: "bundle"; readonly json: () => JsonValue }
  | { readonly type: "promise_type"; readonly promiseType: string }
  | {
      readonly type: "promise";
      readonly promiseType: string;
      /** As written (unexpanded). */
      readonly promiser: string;
      /** The class guard the promise is under (`any` when none). */
      readonly classes: string;
    }
  | { readonly type: "iteration"; readonly index: number };

export class CallStack {
  private readonly frames: CallFrame[] = [];

  push(frame: CallFrame): void {
    this.frames.push(frame);
  }

  pop(): void {
    this.frames.pop();
  }

  top(): CallFrame | undefined {
    return this.frames.at(-1);
  }

  /** Runs `body` with `frame` pushed. */
  within<T>(frame: CallFrame, body: () => T): T {
    this.push(frame);
    try {
      return body();
    } finally {
      this.pop();
    }
  }

  /** The promisers of the `methods` promises on the stack, outermost first (`callstack_promisers()`). */
  methodPromisers(): string[] {
    return this.frames.flatMap((f) =>
      f.type === "promise" && f.promiseType === "methods" ? [f.promiser] : [],
    );
  }

  /** The stack as `callstack_callers()` returns it: `frame` counts down to 1, `depth` up from 0. */
  toJson(): JsonValue[] {
    const total = this.frames.length;
    return this.frames.map((f, depth) => ({ depth, frame: total - depth, ...frameFields(f) }));
  }
}

function frameFields(f: CallFrame): Record<string, JsonValue> {
  switch (f.type) {
    case "bundle":
      return { type: "bundle", bundle: f.json() };
    case "promise_type":
      return { type: "promise_type", promise_type: f.promiseType };
    case "promise":
      // 3.21 never fills in the comment here.
      return {
        type: "promise",
        promise_type: f.promiseType,
        promiser: f.promiser,
        promise_classes: f.classes,
        promise_comment: "",
      };
    case "iteration":
      return { type: "iteration", iteration_index: f.index };
  }
}
