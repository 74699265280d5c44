/**
 * State that lives for one agent run and belongs to one promise type (the
 * process table read once, the package inventories, the files already
 * edited): kept in the run's own object, passed down with the environment,
 * instead of module-level maps keyed by the run.
 */

/** A kind of per-run state: its name (for debugging) and how to start it. */
export interface RunSlot<T> {
  readonly name: string;
  create(): T;
  /** Releases what the value holds (connections) when the run ends. */
  close?(value: T): void;
}

export class RunState {
  private readonly slots = new Map<RunSlot<unknown>, unknown>();

  /** This run's value for `slot`, made on first use. */
  get<T>(slot: RunSlot<T>): T {
    if (this.slots.has(slot)) return this.slots.get(slot) as T;
    const value = slot.create();
    this.slots.set(slot, value);
    return value;
  }

  /** Closes every slot that has something to release (at the end of the run). */
  close(): void {
    for (const [slot, value] of this.slots) slot.close?.(value);
  }
}
