/**
 * The plot of repairs and failures over time: an inline SVG drawn here
 * (no chart library), one pair of bars per UTC day, repaired promises in
 * amber and failed ones in red, with the day's numbers in each bar's
 * tooltip (<title>). Days without runs are drawn empty, so gaps show.
 */
import type { DayRow } from "../store/store.js";
import { escapeHtml } from "./html.js";

const DAY_MS = 86_400_000;

/** The `days` UTC days ending with `today`'s, each with its row or zeros. */
export function fillDays(rows: readonly DayRow[], days: number, today: Date): DayRow[] {
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const out: DayRow[] = [];
  const last = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  for (let i = days - 1; i >= 0; i--) {
    const day = new Date(last - i * DAY_MS).toISOString().slice(0, 10);
    out.push(byDay.get(day) ?? { day, runs: 0, kept: 0, repaired: 0, notKept: 0 });
  }
  return out;
}

/** A round number ≥ `n` for the top of the scale. */
function niceMax(n: number): number {
  if (n <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

/** The SVG for `days` (oldest first). */
export function historyPlot(days: readonly DayRow[], label: string): string {
  const width = 760;
  const height = 200;
  const left = 56;
  const bottom = 24;
  const top = 10;
  const plotH = height - bottom - top;
  const max = niceMax(Math.max(0, ...days.map((d) => Math.max(d.repaired, d.notKept))));
  const slot = (width - left - 8) / Math.max(1, days.length);
  const bar = Math.max(1, (slot - 2) / 2);
  const y = (v: number) => top + plotH - (v / max) * plotH;
  const parts: string[] = [];
  for (const frac of [0, 0.5, 1]) {
    const v = max * frac;
    parts.push(
      `<line x1="${left}" x2="${width - 4}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#dcdcde"/>`,
      `<text x="${left - 4}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="11">${escapeHtml(v.toLocaleString("en"))}</text>`,
    );
  }
  days.forEach((d, i) => {
    const x = left + i * slot + 1;
    const tip = `<title>${escapeHtml(`${d.day}: ${d.runs} runs, ${d.repaired} repaired, ${d.notKept} failed`)}</title>`;
    parts.push(
      `<g class="day" data-day="${escapeHtml(d.day)}" data-repaired="${d.repaired}" data-failed="${d.notKept}">${tip}` +
        `<rect x="${x.toFixed(1)}" y="${y(d.repaired).toFixed(1)}" width="${bar.toFixed(1)}" height="${(top + plotH - y(d.repaired)).toFixed(1)}" fill="#dba617"/>` +
        `<rect x="${(x + bar).toFixed(1)}" y="${y(d.notKept).toFixed(1)}" width="${bar.toFixed(1)}" height="${(top + plotH - y(d.notKept)).toFixed(1)}" fill="#d63638"/></g>`,
    );
    if ((i % 7 === 0 && days.length - 1 - i >= 4) || i === days.length - 1)
      parts.push(
        `<text x="${(x + bar).toFixed(1)}" y="${height - 8}" text-anchor="middle" font-size="11">${escapeHtml(d.day.slice(5))}</text>`,
      );
  });
  const legend =
    `<rect x="${width - 170}" y="4" width="10" height="10" fill="#dba617"/><text x="${width - 156}" y="13" font-size="11">repaired</text>` +
    `<rect x="${width - 96}" y="4" width="10" height="10" fill="#d63638"/><text x="${width - 82}" y="13" font-size="11">failed</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${escapeHtml(label)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join("")}${legend}</svg>`;
}
