/**
 * The context the applier hands a type for one resource (ApplyContext):
 * its loggers are made only when the type asks for them. A class rather
 * than an object literal: a literal with a getter is built by the runtime,
 * with a closure for each of its functions, at every resource (a thousand
 * files: ~0.7 ms, in code not optimised yet).
 */
import type { Logger } from "../system/logger.js";
import type { Vertex } from "./graph.js";
import type { Catalog, CatalogResource } from "./model.js";
import type { ApplyContext, RunSettings } from "./resource-type.js";
import type { RunLog } from "./run-log.js";

/** Where the vertices' paths come from (`/Stage[main]/Main/File[/x]`): the run's ContainmentPaths. */
export interface VertexPaths {
  text(vertex: Vertex): string;
}

export class ResourceContext implements ApplyContext {
  #logger: Logger | undefined;
  readonly #log: RunLog;
  readonly #paths: VertexPaths;
  readonly #vertex: Vertex;
  readonly #resource: CatalogResource;

  constructor(
    readonly noop: boolean,
    log: RunLog,
    paths: VertexPaths,
    vertex: Vertex,
    resource: CatalogResource,
    readonly runLogger: Logger,
    readonly run: RunSettings,
    readonly catalog: Catalog,
    logger?: Logger,
  ) {
    this.#log = log;
    this.#paths = paths;
    this.#vertex = vertex;
    this.#resource = resource;
    this.#logger = logger;
  }

  get logger(): Logger {
    this.#logger ??= this.#log.loggerFor(this.#paths.text(this.#vertex), this.#resource);
    return this.#logger;
  }

  propertyLogger(property: string): Logger {
    return this.#log.loggerFor(`${this.#paths.text(this.#vertex)}/${property}`, this.#resource);
  }

  providerLogger(provider: string): Logger {
    return this.#log.loggerFor(`${this.#vertex.ref}(provider=${provider})`, this.#resource);
  }

  /** The same context in noop, with the same logger (a dry run before the real one). */
  inNoop(): ResourceContext {
    return new ResourceContext(
      true,
      this.#log,
      this.#paths,
      this.#vertex,
      this.#resource,
      this.runLogger,
      this.run,
      this.catalog,
      this.logger,
    );
  }
}
