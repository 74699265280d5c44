/**
 * File globbing as 3.21's `findfiles()` sees it: C `glob(3)` without brace
 * expansion (the recorded 3.21 build has none: `{a,b}` is literal), where
 * `**` stands for one to six levels of `*` (each level globbed in turn,
 * results kept in first-found order without duplicates).
 */
import { lstatSync, readdirSync, statSync } from "node:fs";

/** How many directory levels `**` may stand for. */
const STARSTAR_LEVELS = 6;

/** Expands a pattern into the existing paths it matches. */
export function globFileList(pattern: string): string[] {
  const found = new Set<string>();
  const candidates = pattern.includes("**")
    ? Array.from({ length: STARSTAR_LEVELS }, (_, i) =>
        pattern.replaceAll(
          "**",
          Array(i + 1)
            .fill("*")
            .join("/"),
        ),
      )
    : [pattern];
  for (const candidate of candidates) {
    for (const path of globOne(candidate).sort(compareBytes)) found.add(path);
  }
  return [...found];
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function hasMagic(component: string): boolean {
  for (let i = 0; i < component.length; i++) {
    if (component[i] === "\\") i++;
    else if ("*?[".includes(component[i])) return true;
  }
  return false;
}

function unescapeGlob(component: string): string {
  return component.replace(/\\(.)/g, "$1");
}

/**
 * One glob: matched paths, unsorted. Literal parts stay as written (`a//b`,
 * `a/./b`); a trailing slash keeps only directories for a wildcard and marks
 * directories with `/` for a literal path, as glibc's glob does.
 */
function globOne(pattern: string): string[] {
  const trailingSlash = pattern.length > 1 && pattern.endsWith("/");
  const parts = (trailingSlash ? pattern.replace(/\/+$/, "") : pattern).split("/");
  const [first, ...rest] = parts;
  // A prefix of "" stands for the root of an absolute pattern.
  let current = first === "" ? [""] : expandComponent(undefined, first, rest.length === 0);
  for (const [index, part] of rest.entries()) {
    const last = index === rest.length - 1 && !trailingSlash;
    current = current.flatMap((base) => expandComponent(base, part, last));
  }
  if (first === "" && rest.length === 1 && rest[0] === "") current = ["/"];
  const found = current.filter((p) => p !== "" && exists(p));
  if (!trailingSlash) return found;
  const lastPart = parts[parts.length - 1];
  if (hasMagic(lastPart)) return found.filter(isDirectory).map((p) => `${p}/`);
  return found.map((p) => (isDirectory(p) ? `${p}/` : p));
}

/** The paths one pattern part gives under `base` (undefined: the current directory, for relative patterns). */
function expandComponent(base: string | undefined, part: string, last: boolean): string[] {
  const join = (name: string) => (base === undefined ? name : `${base}/${name}`);
  if (!hasMagic(part)) return [join(unescapeGlob(part))];
  const regex = componentRegex(part);
  const names = listNames(base === undefined ? "." : base === "" ? "/" : base);
  const matched = names.filter((n) => regex.test(n) && (part.startsWith(".") || !n.startsWith(".")));
  const paths = matched.map(join);
  return last ? paths : paths.filter(isDirectory);
}

function listNames(dir: string): string[] {
  try {
    return [".", "..", ...readdirSync(dir)];
  } catch {
    return [];
  }
}

function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** An `fnmatch` pattern (`*`, `?`, `[...]`, `\x`) for one path component as an anchored regex. */
export function componentRegex(component: string): RegExp {
  let source = "";
  for (let i = 0; i < component.length; i++) {
    const ch = component[i];
    if (ch === "\\" && i + 1 < component.length) source += escapeRegex(component[++i]);
    else if (ch === "*") source += ".*";
    else if (ch === "?") source += ".";
    else if (ch === "[") {
      const bracket = readBracket(component, i);
      source += bracket ? bracket.source : "\\[";
      if (bracket) i = bracket.end;
    } else source += escapeRegex(ch);
  }
  return new RegExp(`^${source}$`, "s");
}

function readBracket(text: string, open: number): { source: string; end: number } | undefined {
  let i = open + 1;
  let negate = false;
  if (text[i] === "!" || text[i] === "^") {
    negate = true;
    i++;
  }
  let body = "";
  // A `]` right after the opening bracket is a member, not the end.
  if (text[i] === "]") {
    body += "\\]";
    i++;
  }
  for (; i < text.length && text[i] !== "]"; i++) {
    const ch = text[i] === "\\" && i + 1 < text.length ? text[++i] : text[i];
    body += ch === "-" ? "-" : escapeRegex(ch);
  }
  if (i >= text.length) return undefined;
  return { source: `[${negate ? "^" : ""}${body}]`, end: i };
}

function escapeRegex(ch: string): string {
  return ch.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}
