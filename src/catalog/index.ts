/**
 * The catalog layer's public face, for front ends (Puppet, recipes) and the
 * CLI: load and check a catalog, apply it with a registry of resource types,
 * and read the run report.
 *
 *   const loaded = await loadCatalogFile("catalog.json");
 *   if (!loaded.ok) for (const d of loaded.diagnostics) console.error(formatCatalogDiagnostic(d));
 *   const report = await applyCatalog(loaded.catalog, typeRegistry(types), { noop, onLog });
 *   process.exitCode = detailedExitCode(report);
 */
export { type ApplyOptions, applyCatalog, type ResourceTypeRegistry, typeRegistry } from "./apply.js";
export type {
  ApplierHooks,
  FailurePolicy,
  GuardDecision,
  Notification,
  NotificationTiming,
} from "./hooks.js";
export {
  type CatalogDiagnostic,
  type CatalogDiagnosticCode,
  type CatalogLoadResult,
  formatCatalogDiagnostic,
  loadCatalogFile,
  parseCatalog,
} from "./load.js";
export {
  type Catalog,
  type CatalogEdge,
  type CatalogResource,
  type ParamValue,
  resourceRef,
} from "./model.js";
export { capitalizeType, parseRef, refKey } from "./refs.js";
export {
  detailedExitCode,
  formatReportLog,
  labelize,
  type MetricValues,
  type ReportEvent,
  type ReportLog,
  type ReportLogLevel,
  type ReportMetrics,
  type ResourceStatus,
  type RunFailure,
  type RunReport,
} from "./report.js";
export type {
  ApplyContext,
  ResourceEvent,
  ResourceResult,
  ResourceType,
  RunSettings,
} from "./resource-type.js";
