/**
 * The run report: one record per promise iteration that was evaluated
 * (not skipped), for `tend agent --json` and for explaining a run.
 */
import type { SourceFile } from "../language/source.js";
import type { ActivePromise } from "../promises/contract.js";
import type { Outcome } from "../promises/outcome.js";

export interface PromiseRecord {
  readonly bundle: string;
  readonly namespace: string;
  readonly type: string;
  readonly promiser: string;
  readonly handle: string;
  readonly file: string;
  readonly line: number;
  readonly span: readonly [number, number];
  readonly pass: number;
  readonly outcome: Exclude<Outcome, "skipped">;
  /** Classes the outcome defined through the promise's `classes` body. */
  readonly classes: readonly string[];
  /** Why the promise was not kept when tend does not implement what it uses (its type, an attribute). */
  readonly unsupported?: string;
}

export class RunRecorder {
  readonly records: PromiseRecord[] = [];
  private readonly sources = new Map<string, SourceFile>();

  constructor(
    sources: Iterable<SourceFile>,
    private readonly keep: boolean,
  ) {
    for (const source of sources) this.sources.set(source.path, source);
  }

  lineOf(file: string, offset: number): number {
    return this.sources.get(file)?.positionAt(offset).line ?? 0;
  }

  record(
    promise: ActivePromise,
    outcome: Outcome,
    classes: readonly string[],
    line: number,
    unsupported?: string,
  ): void {
    if (!this.keep || outcome === "skipped") return;
    const bundle = promise.bundle.block;
    this.records.push({
      bundle: bundle.name.text,
      namespace: bundle.namespace,
      type: promise.type,
      promiser: promise.promiser,
      handle: promise.handle,
      file: promise.bundle.file,
      line,
      span: [promise.node.span[0], promise.node.span[1]],
      pass: promise.pass,
      outcome,
      classes,
      ...(unsupported === undefined ? {} : { unsupported }),
    });
  }

  /** Counts of outcomes, as cf-agent's summary has them. */
  summary(): Record<"kept" | "repaired" | "notkept", number> {
    const counts = { kept: 0, repaired: 0, notkept: 0 };
    for (const r of this.records) {
      if (r.outcome === "kept") counts.kept++;
      else if (r.outcome === "repaired") counts.repaired++;
      else counts.notkept++;
    }
    return counts;
  }
}
