/**
 * Rendering a Mustache template the way cf-agent 3.21 does, quirks
 * included, since templates written for cf-agent rely on them:
 *
 * - the template is rendered in one pass; a section renders the text up to
 *   the next section close (whatever its name) once per item, or once
 *   skipped, so malformed sections fail only when reached;
 * - names are looked up from the innermost context outwards, `a.b.c` walks
 *   objects only, `-top-` names the whole data;
 * - a section over a boolean renders (or skips) once; over an object once
 *   with the object as context, unless the `{{@}}` tag appears directly in
 *   it, in which case it iterates the members; over an array once per item;
 *   over anything else it fails;
 * - `{{%x}}` / `{{$x}}` write a container as JSON (multi-line or compact),
 *   `{{@}}` the key or index of the current item, `{{.}}` the current item;
 * - there are no partials (`{{>x}}` looks up a variable named `>x`) and no
 *   lambdas.
 *
 * Problems are reported through `log` with cf-agent's words; a failed
 * render returns undefined.
 */
import { type PrintfSpec, formatFixed } from "../functions/c-printf.js";
import {
  type MustacheNode,
  type MustachePrimitive,
  isContainer,
  memberOf,
  writeCompactJson,
  writePrettyJson,
} from "./json-model.js";
import {
  type Delimiters,
  type Tag,
  isKeyTag,
  isRenderable,
  nextTag,
  parseDelimiters,
  standaloneLine,
} from "./tags.js";

export type MustacheLogLevel = "error" | "warning";
export type MustacheLog = (level: MustacheLogLevel, message: string) => void;

/** Where rendering stopped: past a section close, at the template's end (null), or failed (false). */
type Stop = number | null | false;

class Renderer {
  private readonly out: string[] = [];
  private delims: Delimiters = { open: "{{", close: "}}" };
  /** Contexts, innermost last; null for a section whose name found nothing. */
  private readonly stack: (MustacheNode | null)[];

  constructor(
    private readonly template: string,
    data: MustacheNode,
    private readonly log: MustacheLog,
  ) {
    this.stack = [data];
  }

  run(): string | undefined {
    return this.render(0, null, false, false) === false ? undefined : this.out.join("");
  }

  private emit(from: number, to: number, skip: boolean): void {
    if (!skip && to > from) this.out.push(this.template.slice(from, to));
  }

  /**
   * Renders from `input` until the template ends or (inside a section) the
   * next section close; `key` is the key or index of the current item.
   */
  private render(start: number | null, key: string | null, skip: boolean, inSection: boolean): Stop {
    let input = start;
    for (;;) {
      if (input === null) {
        this.log("error", "Unexpected end to Mustache template");
        return false;
      }
      const tag = nextTag(this.template, input, this.delims);
      const line =
        !isRenderable(tag.kind) && tag.end !== undefined
          ? standaloneLine(this.template, tag.begin, tag.end)
          : undefined;
      this.emit(input, line ? line[0] : tag.begin, skip);
      input = line ? line[1] : (tag.end ?? null);
      switch (tag.kind) {
        case "broken":
          this.log("error", tag.problem ?? "Broken Mustache template");
          return false;
        case "none":
          return null;
        case "comment":
          continue;
        case "delimiters": {
          const delims = this.delimitersOf(tag);
          if (!delims) return false;
          this.delims = delims;
          continue;
        }
        case "section-end":
          if (!inSection) {
            this.log("warning", `Unknown section close in mustache template '${tag.content}'`);
            return false;
          }
          this.stack.pop();
          return input;
        case "section":
        case "inverted": {
          const stop = this.renderSection(tag, input ?? this.template.length, skip);
          if (stop === false) return false;
          input = stop;
          continue;
        }
        default:
          if (skip) continue;
          if (tag.content === "") this.out.push(this.delims.open, this.delims.close);
          else if (!this.renderVariable(tag, key)) return false;
      }
    }
  }

  private delimitersOf(tag: Tag): Delimiters | undefined {
    const parsed = parseDelimiters(tag.content, this.template.slice(tag.contentStart));
    if (typeof parsed !== "string") return parsed;
    this.log("warning", parsed);
    return undefined;
  }

  private renderSection(tag: Tag, input: number, skip: boolean): Stop {
    const inverted = tag.kind === "inverted";
    const value = this.lookup(tag.content);
    this.stack.push(value ?? null);
    if (value === undefined) return this.render(input, null, skip || !inverted, true);
    if (value.kind === "boolean") {
      const falsy = value.text !== "true";
      return this.render(input, null, skip || falsy !== inverted, true);
    }
    if (!isContainer(value)) {
      this.log(
        "warning",
        `Mustache sections can only take a boolean or a container (array or map) value, but section '${tag.content}' isn't getting one of those.`,
      );
      return false;
    }
    if (value.kind === "object" && !this.iteratesObject(input)) {
      return this.render(input, null, skip || inverted, true);
    }
    const items: [string, MustacheNode][] =
      value.kind === "object" ? [...value.members] : value.items.map((item, i) => [String(i), item]);
    // An empty list renders an inverted section even inside a skipped one (as 3.21).
    if (items.length === 0) return this.render(input, null, !inverted, true);
    let end: Stop = null;
    for (const [itemKey, item] of items) {
      // The list itself stays on the stack after its items (as 3.21).
      this.stack.push(item);
      end = this.render(input, itemKey, skip || inverted, true);
      if (end === false) return false;
    }
    return end;
  }

  /** Whether `{{@}}` appears in the section before any other section tag. */
  private iteratesObject(from: number): boolean {
    let delims = { ...this.delims };
    let at = from;
    for (;;) {
      const tag = nextTag(this.template, at, delims);
      switch (tag.kind) {
        case "broken":
          this.log("error", tag.problem ?? "Broken Mustache template");
          return false;
        case "none":
        case "section":
        case "section-end":
          return false;
        case "variable":
        case "unescaped":
          if (isKeyTag(this.template, tag, delims)) return true;
          break;
        case "delimiters": {
          const parsed = this.delimitersOf(tag);
          if (!parsed) return false;
          delims = parsed;
          break;
        }
        default:
          break;
      }
      at = tag.end ?? this.template.length;
    }
  }

  private lookup(name: string): MustacheNode | undefined {
    const parts = name.split(".").filter((p) => p !== "");
    const head = parts[0] ?? "";
    let value: MustacheNode | undefined = head === "-top-" ? (this.stack[0] ?? undefined) : undefined;
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const found = memberOf(this.stack[i] ?? null, head);
      if (found) {
        value = found;
        break;
      }
    }
    for (const part of parts.slice(1)) {
      if (value?.kind !== "object") return undefined;
      value = memberOf(value, part);
    }
    return value;
  }

  private renderVariable(tag: Tag, key: string | null): boolean {
    const html = tag.kind === "variable";
    const itemMode = tag.content === ".";
    const keyMode = tag.content === "@";
    const value =
      itemMode || keyMode ? (this.stack[this.stack.length - 1] ?? undefined) : this.lookup(tag.content);
    if (keyMode && key === null) {
      this.log(
        "warning",
        "RenderVariable: {{@}} Mustache tag must be used in a context where there's a valid key or iteration position",
      );
      return false;
    }
    if (!value) return true;
    const keyText = html ? escapeHtml(key ?? "") : (key ?? "");
    if (!isContainer(value)) {
      this.out.push(keyMode ? keyText : primitiveText(value, html));
      return true;
    }
    if (tag.kind === "json" || tag.kind === "compact-json") {
      this.out.push(tag.kind === "json" ? writePrettyJson(value) : writeCompactJson(value));
      return true;
    }
    if (keyMode) {
      this.out.push(keyText);
      return true;
    }
    if (itemMode) {
      this.log(
        "warning",
        "{{.}} mustache tag cannot expand a container without specifying conversion - consider {{$.}} or {{%.}}",
      );
    }
    return false;
  }
}

function primitiveText(value: MustachePrimitive, html: boolean): string {
  switch (value.kind) {
    case "string":
      return html ? escapeHtml(value.text) : value.text;
    case "integer":
      return String(Math.trunc(Number(value.text)));
    case "real":
      return formatFixed2(Number(value.text));
    case "null":
      return "";
    default:
      return value.text;
  }
}

/** C's `%.2f`, rounded from the double's exact value (`-0.0` keeps its sign). */
function formatFixed2(x: number): string {
  return formatFixed(x, TWO_PLACES);
}

const TWO_PLACES: PrintfSpec = { flags: "", long: false, width: 0, precision: 2, conversion: "f" };

/** HTML escaping of `{{x}}`: `&`, `"`, `<`, `>` (not `'`). */
function escapeHtml(text: string): string {
  return text.replace(/[&"<>]/g, (c) => HTML[c] ?? c);
}

const HTML: Readonly<Record<string, string>> = { "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;" };

/** Renders `template` with `data`; undefined (after logging why) when it cannot. */
export function renderTemplate(template: string, data: MustacheNode, log: MustacheLog): string | undefined {
  return new Renderer(template, data, log).run();
}
