/**
 * The module protocol of `commands` promises with `module => "true"`:
 * each output line of the command decoded into what it asks for. Pure
 * data, no I/O; `module-session.ts` applies the directives.
 *
 *   =name=value        a string          @name={ "a", 'b' }  a list
 *   %name={json}       a data container  &name=/path/file     data from a file
 *   +class / -a,b      define / undefine classes
 *   ^context=name      the scope later variables go to
 *   ^meta=a,b          tags of later variables and classes
 *   ^persistence=min   later classes persist that many minutes
 */
import { parseJsonText, unstorableNumberIn } from "../../eval/functions/json-text.js";
import { type JsonValue, isJsonContainer } from "../../eval/values.js";

export type ModuleDirective =
  | { readonly kind: "context"; readonly name: string }
  | { readonly kind: "meta"; readonly tags: readonly string[] }
  | { readonly kind: "persistence"; readonly minutes: number }
  | { readonly kind: "define"; readonly name: string }
  | { readonly kind: "undefine"; readonly names: readonly string[] }
  | { readonly kind: "string"; readonly name: string; readonly value: string }
  | { readonly kind: "list"; readonly name: string; readonly items: readonly string[] }
  | { readonly kind: "data"; readonly name: string; readonly json: JsonValue }
  | { readonly kind: "file"; readonly name: string; readonly path: string }
  /** A line that is not part of the protocol. */
  | { readonly kind: "text"; readonly line: string }
  | { readonly kind: "none" }
  /** A line 3.21 cannot take, which stops cf-agent. */
  | { readonly kind: "fatal"; readonly message: string }
  | { readonly kind: "problem"; readonly level: "error" | "info"; readonly messages: readonly string[] };

/** 3.21's limits on protocol lines. */
const MAX_CLASS_LINE = 4096;
const MAX_VAR_LINE = 4096 + 256;
const MAX_CONTEXT = 50;
const MAX_META = 1024;

/** Decodes one output line (without its newline). */
export function decodeModuleLine(line: string): ModuleDirective {
  switch (line[0]) {
    case "^":
      return decodeExtended(line);
    case "+":
      if (line.length > MAX_CLASS_LINE) return overlong("+class", line);
      return line.length > 1 ? { kind: "define", name: line.slice(1) } : { kind: "none" };
    case "-":
      if (line.length > MAX_CLASS_LINE) return overlong("-class", line);
      return { kind: "undefine", names: line.slice(1).split(",").filter(Boolean) };
    case "=":
      if (line.length > MAX_VAR_LINE) return overlong("variable =line", line);
      return withName(line, (name, value) => ({ kind: "string", name, value }));
    case "@":
      if (line.length > MAX_VAR_LINE - 1) return overlong("variable @line", line);
      return withName(line, decodeList);
    case "%":
      return withName(line, decodeData);
    case "&":
      return withName(line, (name, path) => ({ kind: "file", name, path }));
    case undefined:
      return { kind: "none" };
    default:
      return { kind: "text", line };
  }
}

function overlong(what: string, line: string): ModuleDirective {
  const message = `Module protocol was given an overlong ${what} (${line.length} bytes), skipping`;
  return { kind: "problem", level: "error", messages: [message] };
}

/** `Xname=value`: a directive for a non-empty name (the value may be empty). */
function withName(line: string, make: (name: string, value: string) => ModuleDirective): ModuleDirective {
  const equals = line.indexOf("=", 1);
  const name = line.slice(1, equals === -1 ? undefined : equals);
  if (name === "") return { kind: "none" };
  return make(name, equals === -1 ? "" : line.slice(equals + 1));
}

function decodeExtended(line: string): ModuleDirective {
  const body = line.slice(1);
  const context = /^context=(.+)/.exec(body);
  if (context) {
    const name = context[1].slice(0, MAX_CONTEXT);
    if (/^[A-Za-z0-9_]+$/.test(name)) return { kind: "context", name };
    const message = `Module protocol was given an unacceptable ^context directive '${name}', skipping`;
    return { kind: "problem", level: "error", messages: [message] };
  }
  const meta = /^meta=(.+)/.exec(body);
  if (meta) return { kind: "meta", tags: metaTags(meta[1].slice(0, MAX_META)) };
  const persistence = /^persistence=\s*([-+]?\d+)/.exec(body);
  if (persistence) return { kind: "persistence", minutes: Number(persistence[1]) };
  return { kind: "problem", level: "info", messages: [`Unknown extended module command '${line}'`] };
}

/** The tags as given (each once), then `source=module`. */
function metaTags(text: string): string[] {
  const tags: string[] = [];
  for (const tag of [...text.split(","), "source=module"]) if (!tags.includes(tag)) tags.push(tag);
  return tags;
}

function decodeData(name: string, text: string): ModuleDirective {
  // 3.21 names the JSON as empty in these messages.
  const json = parseJsonText(text);
  if (json === undefined) {
    const message = "Failed to parse JSON '' for module protocol: it is not valid JSON";
    return { kind: "problem", level: "info", messages: [message] };
  }
  if (!isJsonContainer(json)) {
    const message = "Module protocol JSON '' should be object or array; wasn't";
    return { kind: "problem", level: "info", messages: [message] };
  }
  const unstorable = unstorableNumberIn(text);
  if (unstorable) return { kind: "fatal", message: unstorable };
  return { kind: "data", name, json };
}

function decodeList(name: string, text: string): ModuleDirective {
  const parsed = parseModuleList(text);
  if (Array.isArray(parsed)) return { kind: "list", name, items: parsed };
  return {
    kind: "problem",
    level: "error",
    messages: [parsed.problem, `Module protocol could not parse variable ${name}'s data content ${text}`],
  };
}

type ListState = "open" | "inside" | "item" | "after" | "separator" | "closed" | "error";

/**
 * A list as `{ "a", 'b' }`: items quoted with either quote (no escapes),
 * separated by commas; at least one item, nothing after the brace but
 * blanks. As in 3.21, a mistake on the last character reads as an
 * unexpected end of input.
 */
export function parseModuleList(text: string): string[] | { problem: string } {
  const items: string[] = [];
  let state: ListState = "open";
  let quote = "";
  let item = "";
  for (const ch of text) {
    if (state === "error") return { problem: "Parsing error : Malformed string" };
    const blank = ch === " " || ch === "\t";
    const isQuote = ch === '"' || ch === "'";
    if (state === "item") {
      if (ch === quote) {
        items.push(item);
        state = "after";
      } else item += ch;
    } else if (blank) {
      // Blanks separate everything outside an item.
    } else if (state === "open") state = ch === "{" ? "inside" : "error";
    else if ((state === "inside" || state === "separator") && isQuote) {
      quote = ch;
      item = "";
      state = "item";
    } else if (state === "after" && ch === ",") state = "separator";
    else if (state === "after" && ch === "}") state = "closed";
    else state = "error";
  }
  if (state !== "closed") return { problem: "Parsing error : Malformed string (unexpected end of input)" };
  return items;
}
