/**
 * The size 3.21's variable table would have. 3.21 keeps the variables of
 * every bundle (and sys, const, mon, def) in one hash map that starts with
 * 128 buckets, doubles when more than 3/4 full and halves (never below 128)
 * when less than 35% full; functions that walk the table list variables in
 * bucket order, so tend tracks the bucket count to list them in 3.21's order
 * (see functions/variable-order.ts).
 */
const INITIAL_BUCKETS = 128;

export class VariableTableSize {
  private count = 0;
  private size = INITIAL_BUCKETS;

  /** The number of buckets now. */
  get buckets(): number {
    return this.size;
  }

  /** A new variable was stored. */
  added(): void {
    this.count++;
    if (this.count > Math.floor(this.size * 0.75)) this.size *= 2;
  }

  /** `n` variables were removed. */
  removed(n = 1): void {
    for (let i = 0; i < n; i++) {
      this.count--;
      if (this.count < Math.floor(this.size * 0.35) && this.size > INITIAL_BUCKETS) this.size /= 2;
    }
  }
}

/** Whether a scope's variables live in 3.21's global table (`match` and `this` have their own). */
export function inGlobalTable(scope: string): boolean {
  return scope !== "match" && scope !== "this";
}
