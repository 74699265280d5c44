/**
 * A mail aliases file (`/etc/aliases`): `name: recipient, recipient` or
 * `name: :include: /path` a line, as Puppet's mailalias provider reads and
 * writes it (recipients with characters other than `-+\w@.` quoted).
 */
import type { RecordFormat } from "../parsed-file/records.js";

export interface MailAlias {
  readonly name: string;
  /** The recipients, unquoted; undefined for an `:include:` alias. */
  readonly recipients?: readonly string[];
  /** The file of an `:include:` alias. */
  readonly file?: string;
}

/** Recipients split at commas outside double quotes, their quotes removed. */
export function splitRecipients(text: string): string[] {
  const out: string[] = [];
  let current = "";
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    if (ch === "," && !quoted) {
      out.push(current);
      current = "";
    } else current += ch;
  }
  out.push(current);
  return out.map((r) => r.trim().replace(/^['"]|['"]$/g, ""));
}

export const mailAliasesFormat: RecordFormat<MailAlias> = {
  parse(line) {
    if (line.startsWith("#") || /^\s*$/.test(line)) return undefined;
    const parts = line.split(":");
    const name = (parts[0] ?? "").trim();
    if (parts.length >= 4 && (parts[2] ?? "").trim() === "include")
      return { name, file: parts.slice(3).join(":").trim() };
    const colon = line.indexOf(":");
    if (colon < 0) return undefined;
    return { name, recipients: splitRecipients(line.slice(colon + 1).trim()) };
  },
  render(a) {
    if (a.recipients) {
      const dest = a.recipients.map((r) => (/[^-+\w@.]/.test(r) ? `"${r}"` : r)).join(",");
      return `${a.name}: ${dest}`;
    }
    return `${a.name}: :include: ${a.file ?? ""}`;
  },
};
