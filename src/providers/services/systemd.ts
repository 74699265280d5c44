/**
 * Services run by systemd, through systemctl: `is-active` for running,
 * `is-enabled` for enabled (its exit status; `static` and `indirect` units
 * cannot be enabled or disabled, so any wish holds for them), and
 * start/stop/restart/enable/disable. A masked unit is unmasked before it is
 * started or enabled, and systemd reloads its units first when the unit's
 * file changed since it last did.
 */
import { type ToolRunner, commandFailure, systemRunner } from "../tool-runner.js";
import type { ActionError, ServiceBackend } from "./service.js";

export interface SystemdOptions {
  readonly run?: ToolRunner;
  /** The systemctl program (default `systemctl`, found in PATH). */
  readonly systemctl?: string;
  /** `--root` for systemctl's offline enabling (tests, images). */
  readonly root?: string;
}

export function systemdBackend(unit: string, options: SystemdOptions = {}): ServiceBackend {
  const run = options.run ?? systemRunner({});
  const systemctl = options.systemctl ?? "systemctl";
  const root = options.root === undefined ? [] : [`--root=${options.root}`];
  const ctl = (...args: string[]) => [systemctl, ...root, ...args];
  const step = (argv: string[]): ActionError => {
    const out = run(argv);
    return out.status === 0 ? undefined : commandFailure(argv, out);
  };
  const reloadIfNeeded = () => {
    const out = run(ctl("show", "--property=NeedDaemonReload", "--", unit));
    if (out.stdout.trim().split("=").at(-1) === "yes") run(ctl("daemon-reload"));
  };
  const isEnabled = () => {
    const out = run(ctl("is-enabled", "--", unit));
    return { output: out.stdout.trim(), code: out.status };
  };
  return {
    provider: "systemd",
    status: () => (run(ctl("is-active", "--", unit)).status === 0 ? "running" : "stopped"),
    enabled: () => {
      const { output, code } = isEnabled();
      return output !== "indirect" && code === 0;
    },
    enableFixed: () => ["static", "indirect"].includes(isEnabled().output),
    start: () => {
      reloadIfNeeded();
      return step(ctl("unmask", "--", unit)) ?? step(ctl("start", "--", unit));
    },
    stop: () => step(ctl("stop", "--", unit)),
    restart: () => {
      reloadIfNeeded();
      return step(ctl("restart", "--", unit));
    },
    enable: () => step(ctl("unmask", "--", unit)) ?? step(ctl("enable", "--", unit)),
    disable: () => step(ctl("disable", "--", unit)),
  };
}
