/**
 * The `classes` body: classes defined (or cancelled) from a promise's
 * outcome, as 3.21 does. Classes are global (`scope => "namespace"`)
 * unless the body says `bundle`; `persist_time` keeps them for minutes.
 */
import { canonifyClassName } from "../eval/class-expression.js";
import { parseCfInt } from "../eval/numbers.js";
import type { ActivePromise, PromiseEnvironment } from "./contract.js";
import { asStrings, asText } from "./values.js";
import type { Value } from "../eval/values.js";
import type { Outcome } from "./outcome.js";

interface ClassChange {
  readonly define: readonly string[];
  readonly cancel: readonly string[];
}

/** Reads one attribute of the promise's `classes` body, expanded. */
export type ClassesReader = (name: string) => Value | undefined;

function changesFor(readValue: ClassesReader, outcome: Outcome): ClassChange {
  const read = (name: string) => asStrings(readValue(name));
  switch (outcome) {
    case "kept":
      return { define: read("promise_kept"), cancel: read("cancel_kept") };
    case "repaired":
      return { define: read("promise_repaired"), cancel: read("cancel_repaired") };
    case "denied":
      return { define: read("repair_denied"), cancel: read("cancel_notkept") };
    case "timeout":
      return { define: read("repair_timeout"), cancel: read("cancel_notkept") };
    case "failed":
    case "warn":
    case "interrupted":
      return { define: read("repair_failed"), cancel: read("cancel_notkept") };
    default:
      return { define: [], cancel: [] };
  }
}

/**
 * Classes each promise defined through its `classes` body so far, for the
 * promises whose type applies the body itself (at each event, as 3.21's
 * cfPS does) rather than leaving it to the engine at the end.
 */
const appliedByType = new WeakMap<ActivePromise, string[]>();

/**
 * Applies the body for the outcome the engine got from the promise type,
 * unless the type applied it already; returns the classes defined.
 */
export function applyFinalOutcomeClasses(
  promise: ActivePromise,
  env: PromiseEnvironment,
  outcome: Outcome,
): string[] {
  const applied = appliedByType.get(promise);
  if (applied) return applied;
  return defineOutcomeClasses(promise, env, outcome);
}

/** Applies the promise's `classes` body for an outcome now; returns the classes defined. */
export function applyOutcomeClasses(
  promise: ActivePromise,
  env: PromiseEnvironment,
  outcome: Outcome,
  read: ClassesReader = (name) => promise.bodyValue("classes", name),
): string[] {
  const defined = defineOutcomeClasses(promise, env, outcome, read);
  appliedByType.set(promise, [...(appliedByType.get(promise) ?? []), ...defined]);
  return defined;
}

function defineOutcomeClasses(
  promise: ActivePromise,
  env: PromiseEnvironment,
  outcome: Outcome,
  read: ClassesReader = (name) => promise.bodyValue("classes", name),
): string[] {
  if (!promise.body("classes") || outcome === "skipped") return [];
  const { define, cancel } = changesFor(read, outcome);
  const scopeText = asText(read("scope"));
  const scope = scopeText === "bundle" ? "bundle" : "namespace";
  const persistText = asText(read("persist_time"));
  const persist = persistText === undefined ? undefined : parseCfInt(persistText);
  const defined: string[] = [];
  for (const name of define) {
    if (name.includes("$(") || name.includes("${")) continue;
    const canonical = canonifyClassName(name);
    if (persist !== undefined && persist > 0) {
      if (scopeText !== "namespace") {
        env.log.info(
          `Automatically promoting context scope for '${canonical}' to namespace visibility, due to persistence`,
        );
      }
      env.log.verbose(`C:    + persistent outcome class '${canonical}'`);
    } else env.log.verbose(`C:    + promise outcome class '${canonical}'`);
    // A persistent class is always global.
    env.defineClass(canonical, persist !== undefined && persist > 0 ? "namespace" : scope, persist);
    defined.push(canonical);
  }
  for (const name of cancel) {
    env.log.verbose(`Cancelling class '${name}'`);
    env.cancelPersistentClass?.(canonifyClassName(name));
    env.ctx.undefineClass(canonifyClassName(name));
  }
  return defined;
}
