/**
 * The promise modules of one agent run: the shared module runtime
 * (providers/modules) with CFEngine's per-type time limit read from the
 * policy (`tend_custom_promise_timeout`, see settings.ts).
 */
import { ModuleRuntime } from "../../providers/modules/runtime.js";
import type { PromiseEnvironment } from "../contract.js";
import { moduleTimeout } from "./settings.js";

export class CustomPromiseRuntime extends ModuleRuntime {
  private readonly warnedSettings = new Set<string>();

  /** The time limit for one exchange with a module of `type` (warns once about a bad setting). */
  timeoutSeconds(type: string, env: PromiseEnvironment): number {
    const setting = moduleTimeout(env.ctx, type);
    if (setting.invalid && !this.warnedSettings.has(setting.invalid)) {
      this.warnedSettings.add(setting.invalid);
      env.log.warning(
        `Ignoring ${setting.invalid}: not a positive number of seconds; using ${setting.seconds}`,
      );
    }
    return setting.seconds;
  }
}
