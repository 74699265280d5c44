/**
 * A method library as JSON: the facts rudderc needs of each method (names,
 * bundle arguments, class prefix and parameter, parameters with their
 * constraints and escaping, agents, deprecation), without the prose. Lets
 * tests and machines without an ncf tree check techniques; tend's own
 * fixture (test/fixtures/rudder/ncf-methods/) is such a file, read from ncf 8.3.
 */
import {
  type MethodConstraints,
  type MethodInfo,
  type MethodLibrary,
  type MethodParameter,
  defaultConstraints,
} from "./methods.js";

export interface MethodLibraryJson {
  /** Where the facts were read from. */
  readonly source?: string;
  readonly methods: readonly MethodJson[];
}

interface ParameterJson {
  readonly name: string;
  readonly escaping: MethodParameter["escaping"];
  readonly constraints: Partial<MethodConstraints>;
}

interface MethodJson {
  readonly name: string;
  readonly bundleName: string;
  readonly bundleArgs: readonly string[];
  readonly agentSupport: readonly ("cfengine-community" | "dsc")[];
  readonly classPrefix: string;
  readonly classParameter: string;
  readonly parameters: readonly ParameterJson[];
  readonly deprecated?: string;
}

/** The facts of `methods` (all, or those named) as JSON data. */
export function methodLibraryToJson(
  methods: MethodLibrary,
  source?: string,
  names?: readonly string[],
): MethodLibraryJson {
  const chosen = [...methods.values()].filter((m) => !names || names.includes(m.bundleName));
  chosen.sort((a, b) => (a.bundleName < b.bundleName ? -1 : a.bundleName > b.bundleName ? 1 : 0));
  return {
    ...(source !== undefined ? { source } : {}),
    methods: chosen.map((m) => ({
      name: m.name,
      bundleName: m.bundleName,
      bundleArgs: m.bundleArgs,
      agentSupport: m.agentSupport,
      classPrefix: m.classPrefix,
      classParameter: m.classParameter,
      parameters: m.parameters.map((p) => ({
        name: p.name,
        escaping: p.escaping,
        constraints: changedConstraints(p.constraints),
      })),
      ...(m.deprecated !== undefined ? { deprecated: m.deprecated } : {}),
    })),
  };
}

function changedConstraints(c: MethodConstraints): Partial<MethodConstraints> {
  const defaults = defaultConstraints();
  return Object.fromEntries(
    Object.entries(c).filter(
      ([k, v]) => JSON.stringify(v) !== JSON.stringify(defaults[k as keyof MethodConstraints]),
    ),
  );
}

/** Reads a library written by methodLibraryToJson; a reason when it is not one. */
export function parseMethodLibraryJson(
  text: string,
): { methods: Map<string, MethodInfo> } | { error: string } {
  let data: MethodLibraryJson;
  try {
    data = JSON.parse(text) as MethodLibraryJson;
  } catch (error) {
    return { error: `invalid JSON: ${(error as Error).message}` };
  }
  if (!Array.isArray(data?.methods)) return { error: "expected an object with a 'methods' list" };
  const methods = new Map<string, MethodInfo>();
  for (const m of data.methods) {
    if (typeof m?.bundleName !== "string" || !Array.isArray(m.parameters) || !Array.isArray(m.bundleArgs)) {
      return { error: `invalid method entry ${JSON.stringify(m).slice(0, 80)}` };
    }
    methods.set(m.bundleName, {
      name: m.name,
      bundleName: m.bundleName,
      bundleArgs: m.bundleArgs,
      description: "",
      agentSupport: m.agentSupport,
      classPrefix: m.classPrefix,
      classParameter: m.classParameter,
      classParameterId: m.bundleArgs.indexOf(m.classParameter) + 1,
      parameters: m.parameters.map((p: ParameterJson) => ({
        name: p.name,
        description: "",
        escaping: p.escaping,
        constraints: { ...defaultConstraints(), ...p.constraints },
      })),
      ...(m.deprecated !== undefined ? { deprecated: m.deprecated } : {}),
    });
  }
  return { methods };
}
