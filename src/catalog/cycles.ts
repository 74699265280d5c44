/**
 * Dependency cycles, found before anything is applied and named as Puppet
 * 7 names them (graph/simple_graph.rb): the strongly connected components
 * of the relationship graph (Tarjan, iterative), each sorted by reference,
 * the components sorted, and for each one path around it found breadth
 * first from its first vertex, e.g.
 *   Found 1 dependency cycle:
 *   (File[/a] => File[/b] => File[/a])\nTry the '--graph' option ...
 * (Puppet joins the cycle lines with a literal backslash-n; so do we.)
 */
import type { RelationshipGraph } from "./graph.js";

/** Each cycle as vertex ids, in Puppet's order. */
export function findCycles(graph: RelationshipGraph): number[][] {
  const components = stronglyConnected(graph).filter(
    (c) => c.length > 1 || graph.hasEdge(c[0] as number, c[0] as number),
  );
  const key = (id: number): string => sortKey(graph, id);
  const sorted = components.map((c) => [...c].sort((a, b) => compareText(key(a), key(b))));
  return sorted.sort((a, b) => compareLists(a.map(key), b.map(key)));
}

/** Puppet's error message for the cycles found (empty string when there are none). */
export function describeCycles(graph: RelationshipGraph, cycles: readonly (readonly number[])[]): string {
  if (cycles.length === 0) return "";
  const count = cycles.length;
  let message = `Found ${count} dependency ${count === 1 ? "cycle" : "cycles"}:\n`;
  for (const cycle of cycles) {
    const path = pathInCycle(graph, cycle);
    message += `(${path.map((id) => graph.vertices[id]?.ref).join(" => ")})\\n`;
  }
  return `${message}Try the '--graph' option and opening the resulting '.dot' file in OmniGraffle or GraphViz`;
}

/** The reference Puppet sorts vertices by: an anchor is `Whit[admissible_Class[X]]`. */
function sortKey(graph: RelationshipGraph, id: number): string {
  const vertex = graph.vertices[id];
  if (!vertex) return "";
  if (vertex.kind === "resource") return vertex.ref;
  const prefix = vertex.kind === "admissible" ? "admissible_" : "completed_";
  return `Whit[${prefix}${vertex.ref}]`;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareLists(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareText(a[i] as string, b[i] as string);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** Tarjan's strongly connected components, without recursion (catalogs can be deep). */
function stronglyConnected(graph: RelationshipGraph): number[][] {
  const n = graph.size;
  const order = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (order[root] !== -1) continue;
    const frames: { vertex: number; next: number }[] = [{ vertex: root, next: 0 }];
    order[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as { vertex: number; next: number };
      const edges = graph.out[frame.vertex] ?? [];
      if (frame.next < edges.length) {
        const child = (edges[frame.next++] as { target: number }).target;
        if (order[child] === -1) {
          order[child] = low[child] = counter++;
          stack.push(child);
          onStack[child] = 1;
          frames.push({ vertex: child, next: 0 });
        } else if (onStack[child]) {
          low[frame.vertex] = Math.min(low[frame.vertex] as number, order[child] as number);
        }
        continue;
      }
      frames.pop();
      const vertex = frame.vertex;
      const up = frames[frames.length - 1];
      if (up) low[up.vertex] = Math.min(low[up.vertex] as number, low[vertex] as number);
      if (low[vertex] !== order[vertex]) continue;
      // A vertex alone (nearly all of them) is a component only with an edge to itself: no
      // array for each of the others, which findCycles would drop.
      if (stack[stack.length - 1] === vertex) {
        stack.pop();
        onStack[vertex] = 0;
        if (graph.hasEdge(vertex, vertex)) components.push([vertex]);
        continue;
      }
      const component: number[] = [];
      for (;;) {
        const top = stack.pop() as number;
        onStack[top] = 0;
        component.push(top);
        if (top === vertex) break;
      }
      components.push(component);
    }
  }
  return components;
}

/** Puppet's limit is none; ours keeps a huge component from exhausting memory. */
const MAX_FRAMES = 200_000;

/**
 * The first path (breadth first, over whole paths, as Puppet walks it) from
 * the cycle's first vertex that comes back to a vertex already on it.
 */
function pathInCycle(graph: RelationshipGraph, cycle: readonly number[]): number[] {
  const members = new Set(cycle);
  const queue: { vertex: number; path: number[] }[] = [{ vertex: cycle[0] as number, path: [] }];
  for (let head = 0; head < queue.length && head < MAX_FRAMES; head++) {
    const { vertex, path } = queue[head] as { vertex: number; path: number[] };
    if (path.includes(vertex)) return [...path, vertex];
    for (const edge of graph.out[vertex] ?? []) {
      if (members.has(edge.target)) queue.push({ vertex: edge.target, path: [...path, vertex] });
    }
  }
  return [...cycle, cycle[0] as number];
}
