/**
 * What the cookbooks' resources/, providers/ and definitions/ files give
 * compile: custom resource types by name (`name`, else
 * `<cookbook>_<file>`, as Chef names LWRPs), each completed by the actions
 * of its provider (the providers/ file whose `defineProvider` names it —
 * Chef pairs resources/x with providers/x of the same cookbook), and
 * definitions by name (`name`, else the file's). Problems are diagnostics
 * at the file: a provider of no loaded resource, an action left `null`
 * with no provider, two types or definitions of one name.
 */
import type { CustomProvider, CustomResource, Definition } from "./dsl.js";
import type { LoadedModule, RecipesDiagnostic } from "./model.js";

export interface UserTypes {
  readonly customResources: Map<string, CustomResource>;
  readonly definitions: Map<string, Definition>;
  readonly diagnostics: readonly RecipesDiagnostic[];
}

function problem(module: LoadedModule, message: string): RecipesDiagnostic {
  return { code: "invalid-export", severity: "error", message, file: module.file.path, line: 1, column: 1 };
}

function fileType(module: LoadedModule): string {
  return `${module.file.cookbook}_${module.file.name.replace(/\//g, "_")}`;
}

/** Types from the loaded modules (in load order: resources, then providers, then definitions). */
export function collectUserTypes(
  resources: readonly LoadedModule[],
  providers: readonly LoadedModule[],
  definitions: readonly LoadedModule[],
): UserTypes {
  const diagnostics: RecipesDiagnostic[] = [];
  const customResources = new Map<string, CustomResource>();
  const origin = new Map<string, LoadedModule>();
  for (const module of resources) {
    const value = module.exports.default as CustomResource | undefined;
    if (value?.kind !== "custom-resource") continue;
    const name = value.name ?? fileType(module);
    if (customResources.has(name))
      diagnostics.push(
        problem(module, `resource type '${name}' is also defined in ${origin.get(name)?.file.path}`),
      );
    customResources.set(name, value);
    origin.set(name, module);
  }
  for (const module of providers) applyProvider(module, customResources, diagnostics);
  for (const [name, resource] of customResources)
    for (const [action, body] of Object.entries(resource.spec.actions))
      if (body === null) {
        const at = origin.get(name) as LoadedModule;
        diagnostics.push(problem(at, `action '${action}' of '${name}' is null but no provider gives it`));
      }
  return { customResources, definitions: collectDefinitions(definitions, diagnostics), diagnostics };
}

function applyProvider(
  module: LoadedModule,
  types: Map<string, CustomResource>,
  diagnostics: RecipesDiagnostic[],
): void {
  const provider = module.exports.default as CustomProvider | undefined;
  if (provider?.kind !== "provider") {
    diagnostics.push(
      problem(module, "a provider file must `export default defineProvider(resource, { ...actions })`"),
    );
    return;
  }
  const entry = [...types].find(([, r]) => r.spec === provider.resource.spec);
  if (!entry) {
    diagnostics.push(
      problem(module, "the provider's resource is not one of the cookbooks' resources/ files"),
    );
    return;
  }
  const [name, resource] = entry;
  const actions: Record<string, unknown> = { ...resource.spec.actions };
  for (const [action, body] of Object.entries(provider.actions)) {
    if (!(action in actions)) {
      diagnostics.push(
        problem(module, `'${name}' has no action '${action}' (${Object.keys(actions).join(", ")})`),
      );
      continue;
    }
    actions[action] = body;
  }
  const spec = { ...resource.spec, actions } as CustomResource["spec"];
  types.set(name, { ...resource, spec, base: resource.base ?? resource });
}

function collectDefinitions(
  modules: readonly LoadedModule[],
  diagnostics: RecipesDiagnostic[],
): Map<string, Definition> {
  const found = new Map<string, Definition>();
  for (const module of modules) {
    const value = module.exports.default as Definition | undefined;
    if (value?.kind !== "definition") {
      diagnostics.push(problem(module, "a definition file must `export default defineDefinition({ body })`"));
      continue;
    }
    const name = value.name ?? module.file.name.replace(/\//g, "_");
    if (found.has(name)) diagnostics.push(problem(module, `definition '${name}' is defined twice`));
    found.set(name, value);
  }
  return found;
}
