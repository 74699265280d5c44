/**
 * The order resources are applied in: a topological walk of the
 * relationship graph where, among the vertices whose dependencies are all
 * done, the one with the lowest priority goes first (Puppet 7's
 * SequentialPrioritizer with its ready queue: unrelated resources in
 * catalog order, generated ones right after their parent). Edges may be
 * added while walking (generated resources); a vertex that gains a
 * dependency not yet done leaves the ready queue until it is.
 */
import type { GraphEdge, RelationshipGraph, Vertex } from "./graph.js";

export function comparePriority(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0 || b.length === 0) return a.length - b.length;
  // Most priorities are one catalog position: decided by the first number.
  const first = (a[0] as number) - (b[0] as number);
  if (first !== 0 || (a.length === 1 && b.length === 1)) return first;
  const n = Math.min(a.length, b.length);
  for (let i = 1; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

export class Walk {
  /** Direct dependencies of each vertex not yet finished. */
  private readonly blockers: number[] = [];
  private readonly done: boolean[] = [];
  private readonly heap: number[] = [];
  /**
   * Ready vertices that came in priority order (a container's thousand
   * resources, readied at once in catalog order), from `head` on: taken
   * from the front without the heap's sifting. The rest go to the heap;
   * the next vertex is the lower of the two fronts.
   */
  private readonly inOrder: number[] = [];
  private head = 0;

  constructor(private readonly graph: RelationshipGraph) {
    for (let v = 0; v < graph.size; v++) this.track(v);
  }

  /** Starts tracking vertices added to the graph since (generated ones). */
  trackNew(): void {
    for (let v = this.blockers.length; v < this.graph.size; v++) this.track(v);
  }

  /** Adds an edge while walking, keeping the counts right. */
  addEdge(source: number, target: number, refresh: boolean): void {
    const had = this.graph.hasEdge(source, target);
    this.graph.addEdge(source, target, refresh);
    if (!had && !this.done[source]) this.blockers[target] = (this.blockers[target] as number) + 1;
  }

  /** Removes an edge while walking. */
  removeEdge(edge: GraphEdge): void {
    this.graph.removeEdge(edge);
    if (!this.done[edge.source]) {
      const left = (this.blockers[edge.target] as number) - 1;
      this.blockers[edge.target] = left;
      if (left === 0) this.push(edge.target);
    }
  }

  /** The next vertex to apply, or undefined when none is ready. */
  next(): number | undefined {
    while (this.heap.length > 0 || this.head < this.inOrder.length) {
      const v = this.take();
      // Stale entries: finished already, or blocked again since it was queued.
      if (!this.done[v] && this.blockers[v] === 0) return v;
    }
    return undefined;
  }

  /** Marks a vertex done and readies what was waiting only for it. */
  finish(v: number): void {
    if (this.done[v]) return;
    this.done[v] = true;
    const out = this.graph.out[v];
    if (out === undefined) return;
    // Index loops in the walk: a for-of makes an iterator and a result per
    // step in code not optimised yet, at every vertex.
    for (let i = 0; i < out.length; i++) {
      const target = (out[i] as GraphEdge).target;
      const left = (this.blockers[target] as number) - 1;
      this.blockers[target] = left;
      if (left === 0) this.push(target);
    }
  }

  isDone(v: number): boolean {
    return this.done[v] === true;
  }

  private track(v: number): void {
    let count = 0;
    const into = this.graph.in[v] ?? [];
    for (let i = 0; i < into.length; i++) if (!this.done[(into[i] as GraphEdge).source]) count++;
    this.blockers[v] = count;
    this.done[v] = false;
    if (count === 0) this.push(v);
  }

  private less(a: number, b: number): boolean {
    const vertices = this.graph.vertices;
    return comparePriority((vertices[a] as Vertex).priority, (vertices[b] as Vertex).priority) < 0;
  }

  private push(v: number): void {
    const inOrder = this.inOrder;
    if (this.head === inOrder.length) {
      inOrder.length = 0;
      this.head = 0;
    }
    if (inOrder.length === 0 || !this.less(v, inOrder[inOrder.length - 1] as number)) {
      inOrder.push(v);
      return;
    }
    const heap = this.heap;
    heap.push(v);
    let i = heap.length - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      const child = heap[i] as number;
      const parent = heap[up] as number;
      if (!this.less(child, parent)) break;
      heap[i] = parent;
      heap[up] = child;
      i = up;
    }
  }

  /** The lowest ready vertex, from the ordered run or the heap. */
  private take(): number {
    if (this.head < this.inOrder.length) {
      const first = this.inOrder[this.head] as number;
      if (this.heap.length === 0 || !this.less(this.heap[0] as number, first)) {
        this.head += 1;
        return first;
      }
    }
    return this.pop();
  }

  private pop(): number {
    const heap = this.heap;
    const top = heap[0] as number;
    const last = heap.pop() as number;
    if (heap.length === 0) return top;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && this.less(heap[l] as number, heap[m] as number)) m = l;
      if (r < heap.length && this.less(heap[r] as number, heap[m] as number)) m = r;
      if (m === i) return top;
      const moved = heap[i] as number;
      heap[i] = heap[m] as number;
      heap[m] = moved;
      i = m;
    }
  }
}
