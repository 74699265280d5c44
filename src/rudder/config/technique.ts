/**
 * A technique as policy generation sees it: what cfclerk reads from a
 * technique's `metadata.xml` (its sections and variables, whether it is
 * multi-instance, how its directives are generated, its bundles, files and
 * run hooks for the cfengine-community agent).
 */

/** metadata.xml `<POLICYGENERATION>` (cfclerk TechniqueGenerationMode). */
export type GenerationMode = "merged" | "separated" | "separated-with-parameters";

/** An `<INPUT>`, `<SELECT1>`, `<SELECT>` or a section's `<REPORTKEYS>`. */
export interface VariableSpec {
  readonly kind: "variable";
  readonly marker: "INPUT" | "SELECT1" | "SELECT" | "REPORTKEYS";
  /** NAME (for a YAML technique, the parameter's UUID) */
  readonly name: string;
  readonly description: string;
  /** VARIABLENAME: the name the technique bundle knows the value by */
  readonly variableName?: string;
  /** true in a multivalued section, or with MULTIVALUED */
  readonly multivalued: boolean;
  readonly mayBeEmpty: boolean;
  readonly defaultValue?: string;
  readonly type: string;
  /** SELECT1/SELECT items */
  readonly items: readonly { readonly value: string; readonly label: string }[];
  /** REPORTKEYS values */
  readonly providedValues: readonly string[];
  readonly id?: string;
  /** false: not a user variable (not merged) */
  readonly checked: boolean;
  readonly line: number;
}

/** A `<SECTION>` (the root is `SECTIONS`). */
export interface SectionSpec {
  readonly kind: "section";
  readonly name: string;
  readonly multivalued: boolean;
  readonly component: boolean;
  readonly componentKey?: string;
  /** `reporting` attribute: a block's reporting logic */
  readonly reportingLogic?: string;
  readonly id?: string;
  readonly children: readonly (SectionSpec | VariableSpec)[];
}

/** A TML (template) or FILE of the technique. */
export interface TechniqueResource {
  /** the name in metadata.xml */
  readonly name: string;
  /** where it goes in the node's policy directory */
  readonly outPath: string;
  /** listed in the inputs of rudder-directives.cf */
  readonly included: boolean;
  readonly template: boolean;
  /** RUDDER_CONFIGURATION_REPOSITORY/...: relative to the configuration directory */
  readonly fromRepository: boolean;
}

/** A pre- or post-run hook (metadata.xml `<RUNHOOKS>`). */
export interface RunHookSpec {
  readonly bundle: string;
  readonly kind: "pre" | "post";
  readonly report: { readonly name: string; readonly value?: string };
  readonly parameters: readonly { readonly name: string; readonly value: string }[];
}

export interface TechniqueId {
  readonly name: string;
  readonly version: string;
}

export interface Technique {
  readonly id: TechniqueId;
  /** TECHNIQUE name attribute */
  readonly displayName: string;
  readonly description: string;
  readonly multiInstance: boolean;
  readonly generationMode: GenerationMode;
  readonly useMethodReporting: boolean;
  /** POLICY_TYPES, or rudder.system / rudder.base from SYSTEM */
  readonly policyTypes: readonly string[];
  readonly isSystem: boolean;
  readonly bundles: readonly string[];
  readonly templates: readonly TechniqueResource[];
  readonly files: readonly TechniqueResource[];
  readonly runHooks: readonly RunHookSpec[];
  /** TRACKINGVARIABLE/SAMESIZEAS */
  readonly trackerBoundingVariable?: string;
  readonly rootSection: SectionSpec;
  /** the technique's folder (absolute) */
  readonly dir: string;
  /** where it was read from, for diagnostics */
  readonly metadataFile: string;
  /** files given in memory (a compiled YAML technique), by resource name */
  readonly generatedFiles?: ReadonlyMap<string, string>;
}

/** `name/version` */
export function techniqueKey(id: TechniqueId): string {
  return `${id.name}/${id.version}`;
}

/** Every variable of a section tree, in document order. */
export function allVariables(section: SectionSpec): VariableSpec[] {
  const out: VariableSpec[] = [];
  const walk = (s: SectionSpec) => {
    for (const c of s.children) {
      if (c.kind === "variable") out.push(c);
      else walk(c);
    }
  };
  walk(section);
  return out;
}

/** cfclerk's name for a section's REPORTKEYS variable. */
export function reportKeysVariableName(sectionName: string): string {
  return `expectedReportKey ${sectionName}`;
}
