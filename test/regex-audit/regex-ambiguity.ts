import {
  complementRanges,
  intersectRanges,
  LINE_TERMINATORS,
  rangesOverlap,
  type CharRanges,
} from '../../src/patterns/char-ranges.js';
import type { PositionAutomaton } from './regex-positions.js';

/**
 * Worst-case backtracking of a position automaton, by the ambiguity criteria of Weideman, van der
 * Merwe, Berglund and Watson ("Analyzing matching time behavior of backtracking regular expression
 * matchers by using ambiguous NFA", 2016): two different loops through one state on the same text
 * (EDA) make the time exponential; a chain of k states where each pumps the same text as it moves to
 * the next (IDA) makes it a polynomial of degree k. The engine's retry at every text position is
 * modelled as a loop (`search` states) in front of the pattern, so a pattern that scans to the end from
 * every start is found quadratic. States where a match is already certain are left out: the engine
 * never backtracks into them.
 */
export type Ambiguity =
  { kind: 'exponential' } | { kind: 'polynomial'; degree: number } | { kind: 'unknown' };

export class WorkLimitError extends Error {}

interface Graph {
  sets: CharRanges[];
  /** Successors inside the analysed graph (certain-match states removed). */
  next: number[][];
  component: number[];
  cyclic: boolean[];
  /** Per component, the components reachable from it (itself included). */
  reach: Set<number>[];
}

export interface AmbiguityOptions {
  /** Steps of the search before it gives up with `unknown`. */
  workLimit: number;
  /**
   * Keep certain-match states: for a regex the engine runs at every position even after a match (a
   * lookaround, a scan that resumes one character after each match), where reading to a certain
   * match is paid again at every position.
   */
  everyPosition: boolean;
}

export function analyseAmbiguity(automaton: PositionAutomaton, options: AmbiguityOptions): Ambiguity {
  const counter = { work: 0, limit: options.workLimit };
  try {
    const graph = toGraph(automaton, options.everyPosition);
    const overlap = createOverlap(graph.sets, counter);
    if (hasExponentialAmbiguity(graph, overlap, counter)) return { kind: 'exponential' };
    return { kind: 'polynomial', degree: longestPumpingChain(graph, overlap, counter) };
  } catch (error) {
    if (error instanceof WorkLimitError) return { kind: 'unknown' };
    throw error;
  }
}

interface Counter {
  work: number;
  limit: number;
}

function spend(counter: Counter, amount: number): void {
  counter.work += amount;
  if (counter.work > counter.limit) throw new WorkLimitError('work limit');
}

/** Adds the two search states (last character a line terminator or not) and drops certain-match states. */
function toGraph(automaton: PositionAutomaton, everyPosition: boolean): Graph {
  const size = automaton.sets.length;
  const search = size;
  const searchAfterLine = size + 1;
  const sets = [...automaton.sets, complementRanges(LINE_TERMINATORS, automaton.maxChar), LINE_TERMINATORS];
  const kept = (state: number): boolean => everyPosition || state >= size || automaton.sure[state] !== true;
  const fromSearch = [search, searchAfterLine, ...automaton.first];
  const follow = [...automaton.follow, fromSearch, [...fromSearch, ...automaton.lineFirst]];
  // parallel transitions are kept: each is a separate choice the engine backtracks into
  const next = follow.map((list, state) => (kept(state) ? list.filter(kept) : []));
  const { component, count } = toComponents(next);
  const cyclic = new Array<boolean>(next.length).fill(false);
  const members = new Array<number>(count).fill(0);
  for (const state of component) members[state] = (members[state] ?? 0) + 1;
  next.forEach((list, state) => {
    const own = component[state] ?? -1;
    if ((members[own] ?? 0) > 1 || list.includes(state)) cyclic[state] = true;
  });
  return { sets, next, component, cyclic, reach: toComponentReach(next, component, count) };
}

/** Strongly connected components (Tarjan, iterative); numbered in reverse topological order. */
function toComponents(next: readonly number[][]): { component: number[]; count: number } {
  const index = new Array<number>(next.length).fill(-1);
  const low = new Array<number>(next.length).fill(0);
  const component = new Array<number>(next.length).fill(-1);
  const stack: number[] = [];
  let counter = 0;
  let count = 0;
  for (let root = 0; root < next.length; root += 1) {
    if (index[root] !== -1) continue;
    const work: [number, number][] = [[root, 0]];
    index[root] = low[root] = counter++;
    stack.push(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] ?? [0, 0];
      const [state, edge] = frame;
      const target = next[state]?.[edge];
      if (target !== undefined) {
        frame[1] += 1;
        if (index[target] === -1) {
          index[target] = low[target] = counter++;
          stack.push(target);
          work.push([target, 0]);
        } else if (component[target] === -1) low[state] = Math.min(low[state] ?? 0, index[target] ?? 0);
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low[parent[0]] = Math.min(low[parent[0]] ?? 0, low[state] ?? 0);
      if (low[state] !== index[state]) continue;
      let member = -1;
      while (member !== state) {
        member = stack.pop() ?? state;
        component[member] = count;
      }
      count += 1;
    }
  }
  return { component, count };
}

/** Components are numbered in reverse topological order, so successors are done first. */
function toComponentReach(
  next: readonly number[][],
  component: readonly number[],
  count: number,
): Set<number>[] {
  const reach = Array.from({ length: count }, (_, own) => new Set([own]));
  const byComponent = Array.from({ length: count }, () => [] as number[]);
  component.forEach((own, state) => byComponent[own]?.push(state));
  for (let own = 0; own < count; own += 1) {
    for (const state of byComponent[own] ?? []) {
      for (const target of next[state] ?? []) {
        for (const reached of reach[component[target] ?? 0] ?? []) reach[own]?.add(reached);
      }
    }
  }
  return reach;
}

interface Overlap {
  pair(a: number, b: number): CharRanges;
  triple(a: number, b: number, c: number): boolean;
}

function createOverlap(sets: readonly CharRanges[], counter: Counter): Overlap {
  const pairs = new Map<number, CharRanges>();
  const pair = (a: number, b: number): CharRanges => {
    const key = Math.min(a, b) * sets.length + Math.max(a, b);
    const known = pairs.get(key);
    if (known !== undefined) return known;
    spend(counter, 1);
    const shared = intersectRanges(sets[a] ?? [], sets[b] ?? []);
    pairs.set(key, shared);
    return shared;
  };
  return { pair, triple: (a, b, c) => rangesOverlap(pair(a, b), sets[c] ?? []) };
}

/**
 * EDA: within one strongly connected component, two runs that start in the same state, read the same
 * text, take different transitions (to different states, or by two routes to the same one, as the
 * inner and outer loop of `(a+)+` do) and are in one state again. Nodes are (state, state, split).
 */
function hasExponentialAmbiguity(graph: Graph, overlap: Overlap, counter: Counter): boolean {
  const size = graph.next.length;
  const byComponent = new Map<number, number[]>();
  graph.component.forEach((own, state) => {
    if (graph.cyclic[state]) byComponent.set(own, [...(byComponent.get(own) ?? []), state]);
  });
  for (const states of byComponent.values()) {
    const own = graph.component[states[0] ?? 0];
    const inside = (state: number): boolean => graph.component[state] === own;
    const seen = new Set<number>();
    const queue: [number, number, boolean][] = states.map((state) => [state, state, false]);
    for (let head = 0; head < queue.length; head += 1) {
      const [a, b, split] = queue[head] ?? [0, 0, false];
      const left = graph.next[a] ?? [];
      const right = graph.next[b] ?? [];
      for (let i = 0; i < left.length; i += 1) {
        const x = left[i] ?? 0;
        if (!inside(x)) continue;
        for (let j = 0; j < right.length; j += 1) {
          spend(counter, 1);
          const y = right[j] ?? 0;
          if (!inside(y) || overlap.pair(x, y).length === 0) continue;
          const splitNow = split || i !== j;
          if (splitNow && x === y) return true;
          const key = (x * size + y) * 2 + (splitNow ? 1 : 0);
          if (seen.has(key)) continue;
          seen.add(key);
          queue.push([x, y, splitNow]);
        }
      }
    }
  }
  return false;
}

/**
 * Degree of the polynomial: the longest chain of pumping states p1 -> p2 -> ... where each pair is an
 * IDA (some text leads p to p, p to q and q to q). A pattern with no pumping pair is linear (1).
 */
function longestPumpingChain(graph: Graph, overlap: Overlap, counter: Counter): number {
  const pumps = graph.next.map((_, state) => state).filter((state) => graph.cyclic[state]);
  const depth = new Map<number, number>();
  const measure = (state: number): number => {
    const known = depth.get(state);
    if (known !== undefined) return known;
    let best = 1;
    const own = graph.component[state] ?? 0;
    for (const target of pumps) {
      const other = graph.component[target] ?? 0;
      if (other === own || graph.reach[own]?.has(other) !== true) continue;
      if (isPolynomialPair(graph, { from: state, to: target, overlap, counter }))
        best = Math.max(best, 1 + measure(target));
    }
    depth.set(state, best);
    return best;
  };
  return pumps.reduce((best, state) => Math.max(best, measure(state)), 1);
}

interface PairQuery {
  from: number;
  to: number;
  overlap: Overlap;
  counter: Counter;
}

/** IDA of (p, q): three runs on one text, p -> p, p -> q and q -> q, searched as triples of states. */
function isPolynomialPair(graph: Graph, { from, to, overlap, counter }: PairQuery): boolean {
  const { next, component, reach } = graph;
  const fromComponent = component[from] ?? 0;
  const toComponent = component[to] ?? 0;
  const between = (state: number): boolean => {
    const own = component[state] ?? 0;
    return reach[fromComponent]?.has(own) === true && reach[own]?.has(toComponent) === true;
  };
  const size = next.length;
  const key = (a: number, b: number, c: number): number => (a * size + b) * size + c;
  const target = key(from, to, to);
  const seen = new Set<number>([key(from, from, to)]);
  const queue: [number, number, number][] = [[from, from, to]];
  for (let head = 0; head < queue.length; head += 1) {
    const [a, b, c] = queue[head] ?? [0, 0, 0];
    for (const x of next[a] ?? []) {
      if (component[x] !== fromComponent) continue;
      for (const y of next[b] ?? []) {
        if (!between(y) || overlap.pair(x, y).length === 0) continue;
        for (const z of next[c] ?? []) {
          spend(counter, 1);
          if (component[z] !== toComponent || !overlap.triple(x, y, z)) continue;
          const reached = key(x, y, z);
          if (reached === target) return true;
          if (!seen.has(reached)) {
            seen.add(reached);
            queue.push([x, y, z]);
          }
        }
      }
    }
  }
  return false;
}
