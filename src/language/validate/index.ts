/**
 * Static validation of a policy set: what `cf-promises` (3.21) checks
 * before it accepts a policy, with tend's own messages.
 *
 * Every diagnostic of severity `error` corresponds to a reason cf-promises
 * rejects the policy; problems cf-promises lets through but cf-agent would
 * trip over are warnings. Validation never throws.
 */
import type { Body, Bundle, CustomPromiseBlock, PolicyFile } from "../ast.js";
import { type Diagnostic, makeDiagnostic } from "../diagnostics.js";
import type { PolicySet } from "../policy-set.js";
import { checkBody } from "./bodies.js";
import { checkBundle, checkSection, isKnownBundleType } from "./bundles.js";
import type { Located, PolicyIndex, Report, ValidationContext } from "./context.js";
import { walkBodyCalls, walkBundleCalls } from "./evaluation.js";
import { checkGuard } from "./guards.js";
import { checkPromiseBlock } from "./promise-blocks.js";
import { checkPromise } from "./promises.js";
import { checkDuplicateHandles, checkRedefinitions } from "./references.js";
import { checkRequiredComments } from "./required-comments.js";
import { checkBundleSequence, checkInheritance, checkPromiseBodyReferences } from "./undefined-references.js";
import { getPromiseType } from "../syntax/index.js";

export interface ValidateOptions {
  /**
   * As `cf-promises -c`: run the whole-policy checks (undefined bodies,
   * required comments, the bundlesequence) even when the set has no
   * `body common control`.
   */
  readonly fullCheck?: boolean;
  /** Whether the policy's own bundlesequence must be runnable (not when `-b` gives one). */
  readonly checkBundleSequence?: boolean;
}

/** Validates a whole policy set; the first file is the entry file. */
export function validatePolicy(set: PolicySet, options: ValidateOptions = {}): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const report: Report = (severity, code, message, span, file) =>
    diagnostics.push(makeDiagnostic(file, span, severity, code, message));
  const ctx: ValidationContext = { report, index: buildIndex(set), fullCheck: options.fullCheck ?? false };
  for (const { policy } of set.files) checkFile(policy, ctx);
  checkRedefinitions(ctx);
  checkDuplicateHandles(ctx);
  const runnable =
    ctx.fullCheck ||
    ctx.index.bodies.some((b) => b.node.type.text === "common" && b.node.name.text === "control");
  checkPromiseBodyReferences(ctx, runnable ? "error" : "warning");
  checkInheritance(ctx);
  if (runnable) checkRequiredComments(ctx);
  if (ctx.fullCheck && options.checkBundleSequence !== false) checkBundleSequence(ctx);
  return sortDiagnostics(diagnostics, set);
}

function checkFile(policy: PolicyFile, ctx: ValidationContext): void {
  for (const block of policy.blocks) {
    if (block.kind === "bundle") checkBundleBlock(block, policy.path, ctx);
    else if (block.kind === "body") checkBodyBlock(block, policy.path, ctx);
    else checkPromiseBlock(block, policy.path, ctx);
  }
}

function checkBundleBlock(bundle: Bundle, file: string, ctx: ValidationContext): void {
  checkBundle(bundle, file, ctx);
  for (const section of bundle.sections) {
    checkSection(section, bundle, file, ctx);
    const removed = getPromiseType(bundle.type.text, section.type.text)?.status === "removed";
    for (const group of section.groups) {
      checkGuard(group.guard, file, ctx);
      if (removed || !isKnownBundleType(bundle.type.text)) continue;
      for (const promise of group.promises) checkPromise(promise, { bundle, section, file }, ctx);
    }
  }
  walkBundleCalls(bundle, file, ctx);
}

function checkBodyBlock(body: Body, file: string, ctx: ValidationContext): void {
  for (const group of body.groups) checkGuard(group.guard, file, ctx);
  checkBody(body, file, ctx);
  walkBodyCalls(body, file, ctx);
}

/** Collects the blocks of all files; `__main__` bundles count only in the entry file. */
function buildIndex(set: PolicySet): PolicyIndex {
  const entryFile = set.files[0]?.policy.path ?? null;
  const bundles: Located<Bundle>[] = [];
  const bodies: Located<Body>[] = [];
  const promiseBlocks: Located<CustomPromiseBlock>[] = [];
  for (const { policy } of set.files) {
    const file = policy.path;
    for (const node of policy.blocks) {
      if (node.kind === "bundle") addBundle(bundles, node, file, entryFile);
      else if (node.kind === "body") bodies.push({ node, file });
      else if (node.kind === "promise-block") promiseBlocks.push({ node, file });
    }
  }
  const customPromiseTypes = new Set(
    promiseBlocks.filter((b) => b.node.type.text === "agent").map((b) => b.node.name.text),
  );
  return { bundles, bodies, promiseBlocks, customPromiseTypes, entryFile };
}

/**
 * A bundle named `__main__` is `main` in the entry file and dropped from
 * every other file, so a file can be both a library and a runnable policy.
 */
function addBundle(bundles: Located<Bundle>[], node: Bundle, file: string, entryFile: string | null): void {
  if (node.name.text !== "__main__") bundles.push({ node, file });
  else if (file === entryFile)
    bundles.push({ node: { ...node, name: { ...node.name, text: "main" } }, file });
}

function sortDiagnostics(diagnostics: Diagnostic[], set: PolicySet): Diagnostic[] {
  const order = new Map(set.files.map((f, i) => [f.policy.path, i]));
  return diagnostics.sort(
    (a, b) => (order.get(a.file) ?? 0) - (order.get(b.file) ?? 0) || a.span[0] - b.span[0],
  );
}
