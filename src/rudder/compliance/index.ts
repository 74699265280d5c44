/**
 * Rudder compliance as a library (data in, data out): read a run's
 * reports, decide what to compare them with, compare them with a node's
 * expected reports. The hub reuses it; `tend rudder compliance` renders it.
 */
export * from "./compliance-level.js";
export * from "./expected.js";
export * from "./expected-json.js";
export * from "./match.js";
export * from "./node-compliance.js";
export * from "./report-line.js";
export * from "./report-type.js";
export * from "./result-report.js";
export * from "./rule-compliance.js";
export * from "./run-compliance.js";
export * from "./run-info.js";
export * from "./status.js";
