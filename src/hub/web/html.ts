/**
 * HTML for the hub's web pages: escaping, the page frame and its style.
 * Every string that reaches a page goes through `escapeHtml` (text and
 * attribute values alike): node names, promisers, messages and run ids
 * come from nodes and are treated as hostile. Pages carry no script; the
 * Content-Security-Policy (handler.ts) forbids any, and allows only the
 * style below, by its hash.
 */
import { createHash } from "node:crypto";

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/** Text made safe for an HTML text node or a quoted attribute value. */
export function escapeHtml(value: unknown): string {
  // Control characters other than tab and newline are shown as U+FFFD.
  return String(value)
    .replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "\ufffd");
}

/** A URL path segment or query value, escaped for a URL and then for an attribute. */
export function urlPart(value: string): string {
  return escapeHtml(encodeURIComponent(value));
}

export const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2327;background:#f6f7f7}
header{background:#1d2327;color:#fff;padding:8px 16px;display:flex;gap:16px;align-items:center}
header a{color:#fff;text-decoration:none}header form{margin-left:auto}
main{padding:16px;max-width:1400px}
h1{font-size:20px;margin:0 0 12px}h2{font-size:16px;margin:20px 0 8px}
table{border-collapse:collapse;background:#fff;width:100%}
th,td{border-bottom:1px solid #dcdcde;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f1;position:sticky;top:0}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.s{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;color:#fff}
.s-failed{background:#d63638}.s-repaired{background:#dba617}.s-kept{background:#00a32a}
.s-no-run,.s-stale{background:#787c82}.s-warn{background:#e26f00}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin-bottom:12px}
.card{background:#fff;border:1px solid #dcdcde;padding:8px 14px;min-width:110px}
.card b{display:block;font-size:22px}
form.f{display:flex;gap:8px;flex-wrap:wrap;align-items:end;margin:8px 0}
.msg{white-space:pre-wrap;word-break:break-word}.err{color:#d63638}
.muted{color:#646970}.pager{margin:8px 0}svg{background:#fff;border:1px solid #dcdcde}
`;

/** The CSP source allowing exactly STYLE. */
export const STYLE_HASH = `'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`;

export interface PageFrame {
  readonly title: string;
  /** Whether to show the navigation and the sign-out button. */
  readonly signedIn: boolean;
  /** The API paths behind this page, listed at its foot. */
  readonly api?: readonly string[];
}

/** A whole page around `body` (which must be built from escaped parts). */
export function page(frame: PageFrame, body: string): string {
  const nav = frame.signedIn
    ? `<a href="/ui/">Fleet</a><form method="post" action="/logout"><button type="submit">Sign out</button></form>`
    : "";
  const api =
    frame.api && frame.api.length > 0
      ? `<p class="muted">JSON: ${frame.api.map((a) => `<code>${escapeHtml(a)}</code>`).join(", ")}</p>`
      : "";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(frame.title)} · tend hub</title><style>${STYLE}</style></head>
<body><header><strong>tend hub</strong>${nav}</header><main>${body}${api}</main></body></html>`;
}

/** A status badge. */
export function badge(status: string): string {
  const known = /^(failed|repaired|kept|no-run|stale|warn)$/.test(status) ? status : "no-run";
  return `<span class="s s-${known}">${escapeHtml(status)}</span>`;
}

/** An ISO time shown as `YYYY-MM-DD HH:MM:SS` UTC. */
export function showTime(iso: string | undefined): string {
  if (!iso) return "";
  return escapeHtml(`${iso.slice(0, 10)} ${iso.slice(11, 19)}`);
}

/** A `<select>` of `options` with `current` chosen. */
export function select(name: string, options: readonly [string, string][], current: string): string {
  const items = options
    .map(
      ([value, label]) =>
        `<option value="${escapeHtml(value)}"${value === current ? " selected" : ""}>${escapeHtml(label)}</option>`,
    )
    .join("");
  return `<label>${escapeHtml(name)} <select name="${escapeHtml(name)}">${items}</select></label>`;
}
