/**
 * Finding the next tag of a Mustache template, as CFEngine's renderer
 * reads them: the first opening delimiter from a position, a sigil, the
 * content up to the closing delimiter (for `{{{x}}}` and `{{=a b=}}`, up to
 * the first `}` or `=` which must be followed by the closing delimiter),
 * blanks and tabs trimmed from the content.
 */

export type TagKind =
  | "variable"
  | "unescaped"
  | "json"
  | "compact-json"
  | "section"
  | "section-end"
  | "inverted"
  | "comment"
  | "delimiters"
  | "broken"
  | "none";

export interface Tag {
  readonly kind: TagKind;
  /** Where the opening delimiter starts (the template's length for `none`). */
  readonly begin: number;
  /** Just past the closing delimiter (undefined for `none` and `broken`). */
  readonly end?: number;
  /** The trimmed content. */
  readonly content: string;
  /** Where the trimmed content starts. */
  readonly contentStart?: number;
  /** Why a `broken` tag is broken. */
  readonly problem?: string;
}

export interface Delimiters {
  open: string;
  close: string;
}

const SIGILS: Readonly<Record<string, TagKind>> = {
  "#": "section",
  "^": "inverted",
  "/": "section-end",
  "!": "comment",
  "=": "delimiters",
  "{": "unescaped",
  "&": "unescaped",
  "%": "json",
  $: "compact-json",
};

/** The next tag at or after `from`; `none` when no opening delimiter follows. */
export function nextTag(template: string, from: number, delims: Delimiters): Tag {
  const begin = template.indexOf(delims.open, from);
  if (begin < 0) return { kind: "none", begin: template.length, content: "" };
  let start = begin + delims.open.length;
  const sigil = template[start] ?? "";
  const kind = SIGILS[sigil] ?? "variable";
  if (kind !== "variable") start++;
  const quote = sigil === "{" ? "}" : sigil === "=" ? "=" : undefined;
  let contentEnd: number;
  let end: number;
  if (quote) {
    contentEnd = template.indexOf(quote, start);
    if (contentEnd < 0 || !template.startsWith(delims.close, contentEnd + 1)) {
      return broken(
        begin,
        `Broken mustache template, couldn't find end tag for quoted begin tag at '${excerpt(template, from)}'...`,
      );
    }
    end = contentEnd + 1 + delims.close.length;
  } else {
    contentEnd = template.indexOf(delims.close, start);
    if (contentEnd < 0) {
      return broken(
        begin,
        `Broken Mustache template, could not find end delimiter after reading start delimiter at '${excerpt(template, from)}'...`,
      );
    }
    end = contentEnd + delims.close.length;
  }
  const raw = template.slice(start, contentEnd);
  const lead = raw.length - raw.replace(/^[ \t]+/, "").length;
  return { kind, begin, end, content: trimBlanks(raw), contentStart: start + lead };
}

function broken(begin: number, problem: string): Tag {
  return { kind: "broken", begin, content: "", problem };
}

/** The rest of the template as C's `%20s` prints it (padded to 20 on the left). */
function excerpt(template: string, from: number): string {
  return template.slice(from).padStart(20);
}

function trimBlanks(text: string): string {
  return text.replace(/^[ \t]+/, "").replace(/[ \t]+$/, "");
}

/** Tags that print nothing and so may stand alone on a line. */
export function isRenderable(kind: TagKind): boolean {
  return (
    kind === "variable" ||
    kind === "unescaped" ||
    kind === "json" ||
    kind === "compact-json" ||
    kind === "none"
  );
}

/**
 * When only blanks surround the tag on its line: the span of that line to
 * drop, `[line start, just past the line end]`. The look back stops at the
 * template's start; a `\r` not followed by `\n` counts as a blank.
 */
export function standaloneLine(template: string, begin: number, end: number): [number, number] | undefined {
  let lineBegin = 0;
  for (let i = begin - 1; i >= 0; i--) {
    const c = template[i];
    if (c === " " || c === "\t") {
      lineBegin = i;
      continue;
    }
    if (c !== "\n") return undefined;
    lineBegin = i + 1;
    break;
  }
  for (let i = end; ; i++) {
    const c = template[i];
    if (c === undefined) return [lineBegin, i];
    if (c === "\n") return [lineBegin, i + 1];
    if (c === "\r" && template[i + 1] === "\n") return [lineBegin, i + 2];
    if (c !== " " && c !== "\t" && c !== "\r") return undefined;
  }
}

/**
 * The delimiters a `{{=a b=}}` tag sets, or a warning why it cannot.
 * `rest` is the template from the content on, which cf-agent's warning
 * quotes (up to the template's end).
 */
export function parseDelimiters(content: string, rest: string): Delimiters | string {
  const parts = content.split(/[ \t]+/).filter((p) => p !== "");
  if (parts.length !== 2)
    return `Could not parse delimiter mustache, number of tokens is ${parts.length}, expected 2 in '${rest}'`;
  if (parts.some((p) => p.length > MAX_DELIMITER))
    return `New mustache start delimiter exceeds the allowed size of ${MAX_DELIMITER} in '${rest}'`;
  return { open: parts[0] as string, close: parts[1] as string };
}

/** CFEngine's limit on the length of a delimiter. */
const MAX_DELIMITER = 10;

/** Whether the tag at `begin` is exactly the key tag `{{@}}` (or `{{&@}}`, or `{{{@}}}`). */
export function isKeyTag(template: string, tag: Tag, delims: Delimiters): boolean {
  const { open, close } = delims;
  if (!template.startsWith(open, tag.begin)) return false;
  const after = tag.begin + open.length;
  if (tag.kind === "variable") return template.startsWith(`@${close}`, after);
  if (tag.kind !== "unescaped") return false;
  if (template.startsWith(`&@${close}`, after)) return true;
  return open === "{{" && close === "}}" && template.startsWith("{{{@}}}", tag.begin);
}
