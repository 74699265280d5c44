/**
 * `acl` bodies. Placeholder until the POSIX ACL support lands: reported as
 * not supported, in cf-agent's words for systems without ACLs.
 */
import type { Stats } from "node:fs";
import type { FileStep } from "./step.js";

export function verifyAcl(step: FileStep, _file: string, _stats: Stats): void {
  step.failed("ACLs are not yet supported on this system.");
}
