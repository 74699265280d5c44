/**
 * The promise types the agent knows, by name. Built-in types register here;
 * custom promise types (promise modules) plug in through the same contract.
 */
import { classesPromiseType } from "./classes.js";
import { commandsPromiseType } from "./commands/index.js";
import type { PromiseType } from "./contract.js";
import { databasesPromiseType } from "./databases/index.js";
import { defaultsPromiseType } from "./defaults.js";
import { deleteLinesPromiseType } from "./edit/delete.js";
import { fieldEditsPromiseType } from "./edit/fields.js";
import { insertLinesPromiseType } from "./edit/insert.js";
import { replacePatternsPromiseType } from "./edit/replace.js";
import { filesPromiseType } from "./files/files.js";
import { createGuestEnvironmentsPromiseType } from "./guest-environments/index.js";
import { methodsPromiseType } from "./methods.js";
import { packagesPromiseType } from "./packages/index.js";
import { processesPromiseType } from "./processes/index.js";
import { reportsPromiseType } from "./reports.js";
import { servicesPromiseType } from "./services/index.js";
import { createStoragePromiseType } from "./storage/index.js";
import { usersPromiseType } from "./users/index.js";
import { metaPromiseType, varsPromiseType } from "./vars.js";
import { xmlPromiseTypes } from "./xml/types.js";

export class PromiseTypeRegistry {
  private readonly types = new Map<string, PromiseType>();

  register(type: PromiseType): void {
    this.types.set(type.name, type);
  }

  get(name: string): PromiseType | undefined {
    return this.types.get(name);
  }

  /** Every registered type, in registration order. */
  all(): readonly PromiseType[] {
    return [...this.types.values()];
  }
}

/** A registry with every built-in type implemented so far. */
export function builtinPromiseTypes(): PromiseTypeRegistry {
  const registry = new PromiseTypeRegistry();
  for (const type of [
    varsPromiseType,
    metaPromiseType,
    classesPromiseType,
    reportsPromiseType,
    methodsPromiseType,
    defaultsPromiseType,
    filesPromiseType,
    commandsPromiseType,
    processesPromiseType,
    packagesPromiseType,
    servicesPromiseType,
    createStoragePromiseType(),
    usersPromiseType,
    databasesPromiseType,
    createGuestEnvironmentsPromiseType(),
    deleteLinesPromiseType,
    fieldEditsPromiseType,
    insertLinesPromiseType,
    replacePatternsPromiseType,
    ...xmlPromiseTypes,
  ]) {
    registry.register(type);
  }
  return registry;
}
