/**
 * `template_method => "cfengine"` (the default for `edit_template`): the
 * template becomes an edit_line bundle of insert_lines promises, run on an
 * empty file. Each line is a promise (expanded as a promiser is); lines
 * between `[%CFEngine BEGIN %]` and `[%CFEngine END %]` make one promise;
 * `[%CFEngine class:: %]` puts what follows under a class expression
 * (lines whose class is not defined are left out). Promises keep
 * duplicates (`insert_type => "preserve_all_lines"`), so the file is the
 * template rendered.
 */
import { readFileSync } from "node:fs";
import type { Outcome } from "../outcome.js";
import type { Located } from "../policy-index.js";
import { canonify } from "../../eval/class-expression.js";
import { decodeBytes } from "../../eval/regex/bytes.js";
import type { Value } from "../../eval/values.js";
import type { Bundle, Promise as PromiseNode, PromiseGroup, Span } from "../../language/ast.js";
import type { EditSession, PromiseEnvironment } from "../contract.js";
import { type EditDefaults, type EditRequest, setEditVariables } from "./session.js";

interface TemplatePromise {
  readonly text: string;
  readonly context: string;
  readonly line: number;
}

/** A template's lines as getline() reads them: each with its newline. */
function templateLines(text: string): string[] {
  const lines = text.split(/(?<=\n)/);
  return lines[lines.length - 1] === "" ? lines.slice(0, -1) : lines;
}

function stripNewlines(text: string): string {
  return text.replace(/\n+$/, "");
}

/** The template's promises, or the error that stops it. */
function parseTemplate(env: PromiseEnvironment, path: string, text: string): TemplatePromise[] | string {
  const out: TemplatePromise[] = [];
  let context = "any";
  const saved: string[] = [];
  let block: string[] = [];
  let level = 0;
  const lines = templateLines(text);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const lineno = i + 1;
    if (!raw.startsWith("[%CFEngine")) {
      if (!env.ctx.checkExpression(context)) continue;
      if (level > 0) block.push(raw);
      else out.push({ text: stripNewlines(raw), context, line: lineno });
      continue;
    }
    const [op = "", close = ""] = raw.slice("[%CFEngine".length).trim().split(/\s+/);
    if (close.slice(0, 3) !== "%]")
      return `Template file '${path}' syntax error, missing close "%]" at line ${lineno}`;
    if (op === "BEGIN") {
      saved.unshift(context);
      if (++level > 1)
        return `Template file '${path}' contains nested blocks which are not allowed, near line ${lineno}`;
      continue;
    }
    if (op === "END") {
      level--;
      context = saved.shift() ?? context;
    }
    if (op.endsWith("::")) {
      context = op.slice(0, -2);
      continue;
    }
    out.push({ text: stripNewlines(block.join("")), context, line: lineno });
    block = [];
  }
  return out;
}

const SPAN: Span = [0, 0];

function promiseNode(p: TemplatePromise): PromiseGroup {
  const span: Span = [p.line, p.line];
  const node: PromiseNode = {
    kind: "promise",
    promiser: { kind: "string", value: p.text, quote: '"', span },
    promisee: null,
    attributes: [
      {
        kind: "attribute",
        name: { kind: "name", text: "insert_type", span },
        value: { kind: "string", value: "preserve_all_lines", quote: '"', span },
        span,
      },
    ],
    span,
  };
  return {
    kind: "promise-group",
    guard: { kind: "guard", expression: p.context, quoted: false, span },
    promises: [node],
    span,
  };
}

/** The bundle cf-agent makes of a template (`temp_cf_bundle_<template>`). */
function templateBundle(path: string, promises: readonly TemplatePromise[]): Located<Bundle> {
  const name = (text: string) => ({ kind: "name", text, span: SPAN }) as const;
  const bundle: Bundle = {
    kind: "bundle",
    type: name("edit_line"),
    name: name(`temp_cf_bundle_${canonify(path)}`),
    params: null,
    namespace: "default",
    span: SPAN,
    sections: [
      { kind: "section", type: name("insert_lines"), groups: promises.map(promiseNode), span: SPAN },
    ],
  };
  return { block: bundle, file: path };
}

/** Renders the cfengine template at `template` into the session's lines. */
export function renderCfengineTemplate(
  request: EditRequest,
  session: EditSession,
  defaults: EditDefaults,
  template: string,
  args: readonly Value[],
): Outcome {
  const { env, path } = request.step;
  let text: string;
  try {
    text = decodeBytes(readFileSync(template));
  } catch {
    env.log.error(`Unable to open template file '${template}' to make '${request.step.promise.promiser}'`);
    return "interrupted";
  }
  const promises = parseTemplate(env, template, text);
  if (typeof promises === "string") {
    env.log.error(promises);
    return "interrupted";
  }
  let outcome: Outcome = "kept";
  if (!request.exists) {
    if (!request.create()) {
      env.log.error(`Failed to create file '${path}' for rendering cfengine template '${template}'`);
      return "failed";
    }
    outcome = "repaired";
  }
  setEditVariables(env, defaults);
  env.runBundle(templateBundle(template, promises), args, defaults.inherit, session);
  // The file is the template: saved whenever it differs, edits or not.
  if (session.edits === 0) session.edits = 1;
  return outcome;
}
