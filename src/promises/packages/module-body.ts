/**
 * A `body package_module` as 3.21 reads it: how often the installed
 * packages and the available updates are asked for (minutes), the options
 * sent with every request, and where the module is (`module_path`, else
 * `$(sys.workdir)/modules/packages/<name>`; run by `interpreter` if given).
 */
import type { BodyInstance } from "../bodies.js";
import type { EvalContext } from "../../eval/context.js";
import { expandRval } from "../../eval/expand.js";
import { asStrings, asText } from "../values.js";

export interface PackageModuleBody {
  readonly name: string;
  /** Minutes; undefined when written but not a number (3.21's CF_NOINT). */
  readonly installedIfelapsed: number | undefined;
  readonly updatesIfelapsed: number | undefined;
  readonly defaultOptions: readonly string[];
  readonly interpreter?: string;
  readonly modulePath?: string;
}

/** An integer attribute as 3.21's IntFromString reads it; absent is 0 (the body starts zeroed). */
function minutes(text: string | undefined): number | undefined {
  if (text === undefined) return 0;
  const trimmed = text.trim();
  return /^-?\d+$/.test(trimmed) ? Number.parseInt(trimmed, 10) : undefined;
}

/** The body's attributes expanded (3.21 expands them once, before the bundles run). */
export function readModuleBody(ctx: EvalContext, body: BodyInstance): PackageModuleBody {
  const value = (name: string) => {
    const rval = body.attributes.get(name)?.value;
    return rval ? expandRval(ctx, rval) : undefined;
  };
  const text = (name: string) => {
    const found = asText(value(name));
    return found === "" ? undefined : found;
  };
  return {
    name: body.name,
    installedIfelapsed: minutes(asText(value("query_installed_ifelapsed"))),
    updatesIfelapsed: minutes(asText(value("query_updates_ifelapsed"))),
    defaultOptions: asStrings(value("default_options")),
    interpreter: text("interpreter"),
    modulePath: text("module_path"),
  };
}
