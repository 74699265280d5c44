/**
 * A standalone technique file: technique.cf preceded by a prelude that
 * makes it a whole policy an agent can run with `-f` (as rudderc's
 * `--standalone` does, with tend's own prelude): it loads ncf from a given
 * tree through ncf's list-compatible-inputs, defines the few `g` variables
 * ncf reads, sets a reporting context and the policy mode, and calls the
 * technique bundle with fixed parameter values.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CFEngine references, not templates
import { cfEscape } from "./cf-layout.js";
import type { Technique } from "./model.js";

export interface StandaloneOptions {
  /** The ncf tree (holding 10_ncf_internals, 20_cfe_basics, 30_generic_methods). */
  readonly ncfTree: string;
  /** Values of the technique's parameters by name; missing ones get the parameter's default, or "". */
  readonly params?: ReadonlyMap<string, string>;
  readonly policyMode?: "enforce" | "audit";
  /** ncf's `g.rudder_var` (flags and caches); /var/rudder by default, as on a Rudder agent. */
  readonly rudderVar?: string;
  /** The node id in reports. */
  readonly nodeId?: string;
  /** Rule and directive ids in reports. */
  readonly ruleId?: string;
  readonly directiveId?: string;
}

/** The prelude to put before technique.cf (which must follow it in the same file). */
export function standalonePrelude(t: Technique, options: StandaloneOptions): string {
  const q = (s: string): string => `"${cfEscape(s)}"`;
  const args = t.params.map((p) => q(options.params?.get(p.name) ?? p.default ?? ""));
  const rule = options.ruleId ?? "standalone_rule";
  const directive = options.directiveId ?? "standalone_directive";
  return `# A standalone run of technique ${t.id} ${t.version}, written by tend.
body common control
{
      inputs         => { @{rudder_standalone_lib.files} };
      bundlesequence => { "rudder_standalone_main" };
}

bundle common rudder_standalone_lib
{
  vars:
      "ncf_tree"  string => ${q(options.ncfTree)};
      "framework" string => execresult("/bin/sh \${ncf_tree}/10_ncf_internals/list-compatible-inputs --ncf-path \${ncf_tree} 10_ncf_internals 20_cfe_basics 30_generic_methods", "useshell");
      "relative"  slist  => splitstring("\${framework}", "\\n", 10000);
      "files"     slist  => maplist("\${ncf_tree}/\${this}", relative);
}

bundle common g
{
  vars:
      "rudder_var"            string => ${q(options.rudderVar ?? "/var/rudder")};
      "rudder_base"           string => "/opt/rudder";
      "uuid"                  string => ${q(options.nodeId ?? "standalone")};
      "rudder_node_config_id" string => "standalone";
      "execRun"               string => strftime("gmtime", "%Y-%m-%d %T+00:00", now());
}

bundle agent rudder_standalone_main
{
  methods:
      "ncf"       usebundle => initialization;
      "context"   usebundle => rudder_reporting_context_v4(${q(directive)}, ${q(rule)}, ${q(t.id)}, "", "", ${q(directive + rule)});
      "mode"      usebundle => set_dry_run_mode(${q(options.policyMode === "audit" ? "true" : "false")});
      "technique" usebundle => ${t.id}(${args.join(", ")});
}

`;
}
