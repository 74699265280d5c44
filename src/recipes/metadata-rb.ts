/**
 * metadata.rb, Chef's cookbook manifest in Ruby, read without Ruby: the
 * methods of Chef's metadata DSL with literal arguments, into the JSON
 * shape `knife cookbook metadata` writes (`depends 'x', '>= 1.0'` is
 * `dependencies.x`, `supports 'ubuntu'` is `platforms.ubuntu: ">= 0.0.0"`,
 * each `chef_version`/`ohai_version`/`gem` call one array of its
 * arguments). Only what the file sets is in the result; tend reads the
 * name, version and dependencies (metadata.ts validates them), the rest
 * is checked for shape and kept for tools. As Chef: `name` is required
 * and a cookbook may not depend on itself.
 */
import type { JsonDocument } from "./json-file.js";
import { argsOf, type DslHandler, readRubyDocument, single, stringOf } from "./ruby-file.js";
import type { RubyNode } from "./ruby-literal.js";

const ANY = ">= 0.0.0";

/** `depends 'x'`, `supports 'ubuntu', '>= 18.04'`, `provides 'x'`: a name and an optional constraint. */
function constrained(key: string): DslHandler {
  return (call, target) => {
    const [name, constraint] = argsOf(call, target, 1, 2) as [RubyNode, RubyNode | undefined];
    const n = stringOf(name, target, `the name given to '${call.name}'`);
    if (constraint) {
      stringOf(constraint, target, `the version constraint of '${call.name}'`);
      target.set(constraint, key, n);
    } else target.setPlain(ANY, name.offset, key, n);
  };
}

/** `chef_version '>= 15', '< 19'`: one array of strings per call. */
function versions(key: string): DslHandler {
  return (call, target) => {
    const args = argsOf(call, target, 1, Number.POSITIVE_INFINITY);
    for (const a of args) stringOf(a, target, `each argument of '${call.name}'`);
    target.push(args, call.offset, key);
  };
}

const METHODS: Readonly<Record<string, DslHandler>> = {
  name: single("name"),
  version: single("version"),
  description: single("description"),
  long_description: single("long_description"),
  maintainer: single("maintainer"),
  maintainer_email: single("maintainer_email"),
  license: single("license"),
  source_url: single("source_url"),
  issues_url: single("issues_url"),
  privacy: single("privacy", "boolean"),
  eager_load_libraries: single("eager_load_libraries", "any"),
  depends: (call, target) => {
    const self = target.value.name;
    const [dep] = call.args;
    if (dep && dep.type === "scalar" && dep.value === self)
      target.fail(dep.offset, `cookbook '${String(self)}' depends on itself; remove this dependency`);
    constrained("dependencies")(call, target);
  },
  supports: constrained("platforms"),
  provides: constrained("providing"),
  chef_version: versions("chef_versions"),
  ohai_version: versions("ohai_versions"),
  gem: versions("gems"),
  recipe: (call, target) => {
    const [name, description] = argsOf(call, target, 2) as [RubyNode, RubyNode];
    const n = stringOf(name, target, "a recipe's name");
    stringOf(description, target, "a recipe's description");
    target.set(description, "recipes", n);
  },
  attribute: (call, target) => {
    const [name, options] = argsOf(call, target, 1, 2) as [RubyNode, RubyNode | undefined];
    const n = stringOf(name, target, "an attribute's name");
    if (options && options.type !== "hash")
      target.fail(options.offset, "an attribute's options must be a hash");
    if (options) target.set(options, "attributes", n);
    else target.setPlain({}, name.offset, "attributes", n);
  },
};

/** Reads metadata.rb; Ruby code, an unknown method or a bad argument is a RecipesError at its place. */
export function readMetadataRb(file: string): JsonDocument {
  return readRubyDocument(file, "invalid-metadata", METHODS, (target) => {
    if (target.value.name === undefined)
      target.fail(0, "metadata.rb must give the cookbook's name (`name 'my_cookbook'`), as Chef requires");
  });
}

/** The DSL's methods (for tests and documentation). */
export const METADATA_METHODS: readonly string[] = Object.keys(METHODS);
