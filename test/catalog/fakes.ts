/**
 * Small fake resource types and a catalog builder for the applier's tests.
 * `fake` changes (`ensure`) unless `insync => true`, fails with `fail =>
 * "why"`, refreshes itself after a change with `selfrefresh => true`, and
 * records every apply and refresh in a journal; `gen` generates
 * its `children` titles as fake resources.
 */
import type { Catalog, CatalogResource, ParamValue } from "../../src/catalog/model.js";
import type { ResourceEvent, ResourceType } from "../../src/catalog/resource-type.js";

export interface Journal {
  readonly entries: string[];
}

export function fakeTypes(journal: Journal): ResourceType[] {
  const fake: ResourceType = {
    name: "fake",
    validate: (r) => (r.parameters.bad === true ? ["parameter 'bad' must not be true"] : []),
    async apply(r, context) {
      journal.entries.push(`apply ${r.title}${context.noop ? " (noop)" : ""}`);
      if (typeof r.parameters.fail === "string")
        return {
          events: [
            {
              property: "ensure",
              previousValue: "absent",
              desiredValue: "present",
              message: `change from 'absent' to 'present' failed: ${r.parameters.fail}`,
              status: "failure",
              name: "fake_created",
            },
          ],
          failed: r.parameters.fail,
        };
      if (r.parameters.throw === true) throw new Error("boom");
      if (r.parameters.insync === true) return { events: [] };
      const event: ResourceEvent = context.noop
        ? {
            property: "ensure",
            previousValue: "absent",
            desiredValue: "present",
            message: "current_value 'absent', should be 'present' (noop)",
            status: "noop",
            name: "fake_created",
          }
        : {
            property: "ensure",
            previousValue: "absent",
            desiredValue: "present",
            message: "created",
            status: "success",
            name: "fake_created",
          };
      return { events: [event], provider: "fake" };
    },
    selfRefresh: (r) => r.parameters.selfrefresh === true,
    async refresh(r) {
      journal.entries.push(`refresh ${r.title}`);
      if (r.parameters.refreshfail === true) return { events: [], failed: "refresh broke" };
      return { events: [] };
    },
  };
  const inert: ResourceType = {
    name: "inert",
    async apply(r) {
      journal.entries.push(`apply ${r.title}`);
      return { events: [] };
    },
  };
  const gen: ResourceType = {
    name: "gen",
    async generate(r) {
      const children = (r.parameters.children ?? []) as string[];
      return children.map((title) => resource("Fake", title, { insync: r.parameters.insync ?? false }));
    },
    async apply(r) {
      journal.entries.push(`apply ${r.title}`);
      return { events: [] };
    },
  };
  return [fake, inert, gen];
}

export function resource(
  type: string,
  title: string,
  parameters: Record<string, ParamValue> = {},
): CatalogResource {
  return { type, title, parameters, tags: [type.toLowerCase()] };
}

/**
 * A catalog as Puppet compiles it: Stage[main] contains Class[Main], which
 * contains the given resources unless `contained` says otherwise
 * (`{"File[/x]": "Class[Foo]"}`); classes named there are added, in Stage[main].
 */
export function catalogOf(resources: CatalogResource[], contained: Record<string, string> = {}): Catalog {
  const classes = [...new Set(Object.values(contained))].filter((c) => c !== "Class[Main]");
  const all: CatalogResource[] = [
    resource("Stage", "main"),
    resource("Class", "Settings"),
    resource("Class", "Main"),
    ...classes.map((c) => resource("Class", c.slice(6, -1))),
    ...resources,
  ];
  const edges = [
    { source: "Stage[main]", target: "Class[Settings]" },
    { source: "Stage[main]", target: "Class[Main]" },
    ...classes.map((c) => ({ source: "Stage[main]", target: c })),
    ...resources.map((r) => {
      const ref = `${r.type}[${r.title}]`;
      return { source: contained[ref] ?? "Class[Main]", target: ref };
    }),
  ];
  return { name: "testnode", environment: "production", version: "1", resources: all, edges, classes: [] };
}
