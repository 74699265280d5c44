export * from "./model.js";
export { defaultServerControl, loadServerPolicy } from "./load.js";
