/**
 * The compliance sections of the hub's pages (../compliance.ts computes
 * them): on the fleet page, Rudder's compliance by rule over the nodes'
 * latest runs; on a node's page, its latest run's per-promise compliance
 * (with the promises missing since the previous run) and, where the hub
 * has Rudder's configuration, its compliance per rule, directive and
 * component with Rudder's states.
 */
import type { NodeCompliance, RuleComplianceRow } from "../compliance.js";
import type { ComponentJson } from "../../rudder/compliance/index.js";
import { escapeHtml } from "./html.js";

/** Rudder's counters as text: "successAlreadyOK 3, error 1". */
function details(d: Readonly<Record<string, number>>): string {
  return escapeHtml(
    Object.entries(d)
      .map(([k, v]) => `${k} ${v}`)
      .join(", "),
  );
}

/** A Rudder state shown as a badge in the page's colours. */
function state(status: string): string {
  const colour = /Error|NonCompliant|Missing|Unexpected|BadPolicyMode/.test(status)
    ? "failed"
    : /Repaired/.test(status)
      ? "repaired"
      : /Success|Compliant|NotApplicable/.test(status)
        ? "kept"
        : "no-run";
  return `<span class="s s-${colour}">${escapeHtml(status)}</span>`;
}

export function fleetComplianceSection(rules: readonly RuleComplianceRow[]): string {
  if (rules.length === 0) return "";
  const rows = rules.map(
    (r) =>
      `<tr><td>${escapeHtml(r.ruleId)}</td><td class="n">${r.compliance.toFixed(2)} %</td><td class="n">${r.nodes}</td><td>${details(r.complianceDetails)}</td></tr>`,
  );
  return `<h2>Compliance by rule</h2><table id="rule-compliance"><thead><tr><th>rule</th><th>compliance</th><th>nodes</th><th>details</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function componentRows(c: ComponentJson, ruleId: string, directiveId: string, depth: number): string[] {
  const pad = "&nbsp;&nbsp;".repeat(depth);
  const head = `<tr data-status="${escapeHtml(c.status)}"><td>${escapeHtml(ruleId)}</td><td>${escapeHtml(directiveId)}</td><td>${pad}${escapeHtml(c.name)}</td><td>${state(c.status)}</td><td class="n">${c.compliance.toFixed(2)} %</td><td class="msg">${
    c.kind === "value"
      ? escapeHtml(
          c.values.flatMap((v) => v.messages.map((m) => `${v.value}: ${m.message ?? m.type}`)).join("\n"),
        )
      : ""
  }</td></tr>`;
  if (c.kind === "value") return [head];
  return [head, ...c.components.flatMap((sub) => componentRows(sub, ruleId, directiveId, depth + 1))];
}

export function nodeComplianceSection(compliance: NodeCompliance | undefined): string {
  if (!compliance) return "";
  const out: string[] = [];
  const p = compliance.promises;
  out.push(
    `<h2>Compliance</h2><p id="promise-compliance"><strong>${p.compliance.toFixed(2)} %</strong> of the last run's promises kept or repaired: ${p.kept} kept, ${p.repaired} repaired, ${p.notKept} not kept, ${p.missing.length} missing since the previous run</p>`,
  );
  if (p.missing.length > 0) {
    out.push(
      `<table id="missing"><thead><tr><th>missing since the previous run</th><th>type</th><th>handle</th><th>bundle</th><th>source</th><th>its outcome then</th></tr></thead><tbody>`,
    );
    for (const r of p.missing)
      out.push(
        `<tr><td class="msg">${escapeHtml(r.promiser)}</td><td>${escapeHtml(r.type)}</td><td>${escapeHtml(r.handle)}</td><td>${escapeHtml(r.bundle)}</td><td>${escapeHtml(r.file)}:${r.line}</td><td>${escapeHtml(r.outcome)}</td></tr>`,
      );
    out.push("</tbody></table>");
  }
  const rudder = compliance.rudder;
  if (rudder) {
    out.push(
      `<h3>Rudder compliance by rule</h3><p id="rudder-compliance"><strong>${rudder.compliance.toFixed(2)} %</strong> (${details(rudder.complianceDetails)}) · node ${escapeHtml(rudder.nodeId)} · ${escapeHtml(rudder.runAnalysis.kind)}</p>`,
    );
    out.push(
      `<table id="rules"><thead><tr><th>rule</th><th>directive</th><th>component</th><th>state</th><th>compliance</th><th>messages</th></tr></thead><tbody>`,
    );
    for (const rule of rudder.rules) {
      out.push(
        `<tr class="rule"><td><strong>${escapeHtml(rule.ruleId)}</strong></td><td></td><td></td><td></td><td class="n"><strong>${rule.compliance.toFixed(2)} %</strong></td><td>${details(rule.complianceDetails)}</td></tr>`,
      );
      for (const d of rule.directives) {
        out.push(
          `<tr class="directive"><td>${escapeHtml(rule.ruleId)}</td><td><strong>${escapeHtml(d.directiveId)}</strong>${d.overriddenBy ? ` (overridden by ${escapeHtml(d.overriddenBy)})` : ""}</td><td></td><td></td><td class="n">${d.compliance.toFixed(2)} %</td><td>${details(d.complianceDetails)}</td></tr>`,
        );
        for (const c of d.components) out.push(...componentRows(c, rule.ruleId, d.directiveId, 0));
      }
    }
    out.push("</tbody></table>");
  }
  return out.join("");
}
