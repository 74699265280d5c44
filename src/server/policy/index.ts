export * from "./model.js";
export { defaultServerControl } from "./control.js";
export { EvaluatedServerPolicy, loadServerPolicy, loadServerPolicySync } from "./load.js";
