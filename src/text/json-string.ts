/**
 * A JSON string literal as CFEngine 3.21 writes one (libntech's JSON
 * writer): `"`, `\` and \b \f \n \r \t escaped, every other character,
 * control characters included, written as it is.
 */
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  "\\": "\\\\",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

export function quoteJsonString(text: string): string {
  return `"${text.replace(/["\\\b\f\n\r\t]/g, (ch) => ESCAPES[ch] ?? ch)}"`;
}
