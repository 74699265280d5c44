/**
 * The XPath text cf-agent 3.21 accepts and takes apart for build_xpath:
 * a path of names, each with an optional predicate of `name=value` and
 * `@name=value` terms joined by `|`, and nothing that addresses a node by
 * position (`[1]`, `last()`, `following-sibling::`...), which could never
 * converge. The checks are cf-agent's own patterns; the splitting keeps
 * its quirks (a predicate yields at most its first two terms).
 */

const NAME = String.raw`(\w|-|\.)+`;

/** `name` or `/name`, possibly with `::` axis parts, at the start. */
const HEAD_HAS_NODE = new RegExp(String.raw`^(\/)?${NAME}((\s*::\s*)?${NAME})*`);

const TERM = String.raw`\s*@?\s*${NAME}\s*=\s*("|')?${NAME}("|')?\s*`;

const HEAD_HAS_PREDICATE = new RegExp(
  String.raw`^\s*\/?\s*${NAME}(\s*::\s*${NAME})*\s*\[${TERM}(\s*\|\s*)?(${TERM})*\]`,
);

const HAS_TAIL = new RegExp(String.raw`^\s*\/?\s*${NAME}(\s*::\s*${NAME}\s*)*\s*(\[[^\[\]\/]*\])?\s*\/`);

const PREDICATE_HAS_TAIL = new RegExp(String.raw`^\s*\[?\s*@?\s*${NAME}\s*=\s*("|')?${NAME}("|')?\s*\|`);

const PREDICATE_HEAD_IS_ATTRIBUTE = new RegExp(
  String.raw`^\s*\[?\|?(\s*@\s*${NAME}\s*=\s*("|')?${NAME}("|')?)(\s*(\||\]))?`,
);

const PREDICATE_HEAD_IS_NODE = new RegExp(
  String.raw`^\s*\[?\|?(\s*${NAME}\s*=\s*("|')?${NAME}("|')?)(\s*(\||\]))?`,
);

const BLANK = "( |\\t)*";
const BUILD_TERM = `@?${NAME}${BLANK}=${BLANK}('|")?${NAME}('|")?${BLANK}`;
const BUILD_SYNTAX = new RegExp(
  `^(\\/(${BLANK}${NAME}${BLANK})(\\[${BLANK}${BUILD_TERM}(\\|${BLANK}${BUILD_TERM})*\\])?)*$`,
);

const NOT_CONVERGENT = new RegExp(
  [
    String.raw`\[\s*([^\[\]]*\s*(\||(or)|(and)))?\s*`,
    String.raw`((position)\s*\(\s*\)\s*((=)|(!=)|(<)|(<=)|(>)|(>=))\s*)?\s*`,
    String.raw`(((\d+)\s*|((last)\s*\(\s*\)\s*))(((\+)|(-)|(\*)|(div)|(mod))\s*(\d+)\s*)*)\s*`,
    String.raw`((\||(or)|(and))[^\[\]]*)?\]`,
    String.raw`|((following)|(preceding))(-sibling)?\s*(::)`,
  ].join(""),
);

/** Whether an XPath selects without reference to positions among siblings. */
export function isConvergent(xpath: string): boolean {
  return !NOT_CONVERGENT.test(xpath);
}

/** Whether build_xpath can build this path (`/a/b[@c='d' | e=f]/...`). */
export function isBuildable(xpath: string): boolean {
  return BUILD_SYNTAX.test(xpath);
}

export function hasTail(xpath: string): boolean {
  return HAS_TAIL.test(xpath);
}

/** C's `strsep` over a string: tokens up to any of the delimiters, one at a time. */
class Tokens {
  private rest: string | null;

  constructor(text: string) {
    this.rest = text;
  }

  next(delimiters: string): string | null {
    if (this.rest === null) return null;
    let i = 0;
    while (i < this.rest.length && !delimiters.includes(this.rest[i] as string)) i++;
    const token = this.rest.slice(0, i);
    this.rest = i < this.rest.length ? this.rest.slice(i + 1) : null;
    return token;
  }

  /** The next token that is not empty; null when the text runs out first. */
  nextNonEmpty(delimiters: string): string | null {
    let token = this.next(delimiters);
    while (token === "") token = this.next(delimiters);
    return token;
  }
}

/** The path's first segment (`/a[..]/b` gives `a[..]`). */
export function headSegment(xpath: string): string | null {
  return new Tokens(xpath).nextNonEmpty("/");
}

/** The path's last segment, or "" when it has only one. */
export function tailSegment(xpath: string): string {
  if (!hasTail(xpath)) return "";
  const tokens = new Tokens(xpath);
  tokens.nextNonEmpty("/");
  let last = "";
  for (let token = tokens.next("/"); token !== null; token = tokens.next("/")) {
    if (token !== "") last = token;
  }
  return last;
}

/** The path without its first segment ("" when it had one only). */
export function withoutHead(xpath: string): string {
  if (!hasTail(xpath)) return "";
  const slash = xpath.indexOf("/", 1);
  return slash < 0 ? "" : xpath.slice(slash);
}

/** The path without its last segment ("" when it had one only). */
export function withoutTail(xpath: string): string {
  if (!hasTail(xpath)) return "";
  return xpath.slice(0, xpath.lastIndexOf("/"));
}

/** A node to build: its name, attributes and child elements with their text. */
export interface SegmentNode {
  readonly name: string;
  readonly attributes: [string, string][];
  readonly children: { readonly name: string; readonly text: string }[];
}

/** What a path segment describes (`Host[@name="x" | Alias=y]`); null if no name. */
export function readSegment(segment: string): SegmentNode | null {
  if (!HEAD_HAS_NODE.test(segment)) return null;
  const tokens = new Tokens(segment);
  const name = tokens.nextNonEmpty(" []");
  if (name === null) return null;
  const node: SegmentNode = { name, attributes: [], children: [] };
  if (!HEAD_HAS_PREDICATE.test(segment)) return node;
  let predicate = tokens.nextNonEmpty("[]") ?? "";
  while (predicate.length > 0) {
    if (PREDICATE_HEAD_IS_NODE.test(predicate)) {
      const terms = new Tokens(predicate);
      const child = terms.nextNonEmpty("| \"'=");
      const text = terms.nextNonEmpty(" \"'=");
      if (child !== null && text !== null) node.children.push({ name: child, text });
    } else if (PREDICATE_HEAD_IS_ATTRIBUTE.test(predicate)) {
      const terms = new Tokens(predicate);
      const attribute = terms.nextNonEmpty("| @\"'=");
      const value = terms.nextNonEmpty("| @\"'=");
      if (attribute !== null && value !== null) node.attributes.push([attribute, value]);
    }
    predicate = PREDICATE_HAS_TAIL.test(predicate) ? predicate.slice(predicate.indexOf("|", 1)) : "";
  }
  return node;
}
