import { comparePaths } from './path-order.js';
import type { WalkerPool } from './walker-pool.js';
import type { WalkItem, WalkJob } from './walker-protocol.js';

/** A unit's results, once its worker answered: its items in path order, folders as child nodes. */
interface UnitNode {
  items?: Entry[];
}
type Entry = Exclude<WalkItem, { type: 'folder' }> | { type: 'node'; node: UnitNode };
type Result = Extract<WalkItem, { type: 'match' | 'file' }>;
interface Unit {
  node: UnitNode;
  path: string;
  relative: string;
  depth: number;
  budget: number;
}

/** The part of a job that is the same for every unit of one walk. */
export type WalkSpec = Omit<WalkJob, 'id' | 'path' | 'relative' | 'depth' | 'budget' | 'limit'>;

export interface OrderedWalk {
  /** The first `limit` results in path order (matches or files). */
  results: Result[];
  truncated: boolean;
  /** Files over the size cap met before the last result. */
  skipped: { file: string; size: number }[];
}

/** Files and folders a unit visits before handing deeper folders back. */
const UNIT_BUDGET = 512;

/**
 * Walks a tree on the worker pool and returns the first `limit` results in path order, the same on
 * every run whatever the timing: units run earliest-first, each returns its results in order with
 * placeholders for the folders it left, and a cursor takes results in tree order, so the walk
 * stops only once the first `limit` are certain. Look-ahead is bounded by two units per worker.
 */
export function orderedWalk(
  pool: WalkerPool,
  spec: WalkSpec,
  start: { path: string; relative: string; depth: number },
  limit: number,
  signal: AbortSignal,
  canGoLinear: boolean,
): Promise<OrderedWalk> {
  return new Promise((resolve, reject) => {
    const owner = {};
    const root: UnitNode = {};
    const waiting = new UnitHeap();
    waiting.push({ node: root, ...start, budget: 0 }); // the root hands out its folders at once
    const cursor: { node: UnitNode; index: number }[] = [{ node: root, index: 0 }];
    const results: Result[] = [];
    const skipped: { file: string; size: number }[] = [];
    let running = 0;
    let finished = false;

    const finish = (error?: unknown) => {
      if (finished) return;
      finished = true;
      signal.removeEventListener('abort', onAbort);
      if (error !== undefined) {
        pool.abort(owner);
        reject(error);
        return;
      }
      pool.cancel(owner);
      resolve({ results: results.slice(0, limit), truncated: results.length > limit, skipped });
    };
    const onAbort = () => finish(signal.reason);

    /** Takes results in tree order; true once the first `limit + 1` are known or all is walked. */
    const advance = (): boolean => {
      for (let top = cursor.at(-1); top; top = cursor.at(-1)) {
        const items = top.node.items;
        if (!items) return false;
        if (top.index >= items.length) {
          top.node.items = []; // consumed: free it
          cursor.pop();
          continue;
        }
        const item = items[top.index++] as Entry;
        if (item.type === 'node') cursor.push({ node: item.node, index: 0 });
        else if (item.type === 'skipped') skipped.push({ file: item.file, size: item.size });
        else if (results.push(item) > limit) return true;
      }
      return true;
    };

    const fill = () => {
      while (!finished && running < pool.size * 2 && waiting.size > 0) {
        const unit = waiting.pop();
        running++;
        const job = { ...spec, path: unit.path, relative: unit.relative, depth: unit.depth };
        void pool.run({ ...job, budget: unit.budget, limit: limit + 1 }, owner, canGoLinear).then((reply) => {
          running--;
          if (finished) return;
          if (reply.error !== undefined || reply.cancelled) {
            finish(new Error(reply.error ?? 'search worker stopped'));
            return;
          }
          const entries: Entry[] = [];
          for (const item of reply.items) {
            if (item.type !== 'folder') {
              entries.push(item);
              continue;
            }
            const node: UnitNode = {};
            waiting.push({
              node,
              path: item.path,
              relative: item.relative,
              depth: item.depth,
              budget: UNIT_BUDGET,
            });
            entries.push({ type: 'node', node });
          }
          unit.node.items = entries;
          if (advance()) finish();
          else fill();
        });
      }
    };

    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    fill();
  });
}

/** A binary min-heap of units by path order: the earliest unit runs next. */
class UnitHeap {
  private readonly units: Unit[] = [];
  get size(): number {
    return this.units.length;
  }
  push(unit: Unit): void {
    const units = this.units;
    let i = units.push(unit) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.before(parent, i)) break;
      this.swap(i, parent);
      i = parent;
    }
  }
  pop(): Unit {
    const units = this.units;
    const top = units[0] as Unit;
    const last = units.pop() as Unit;
    if (units.length === 0) return top;
    units[0] = last;
    for (let i = 0; ; ) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < units.length && this.before(left, least)) least = left;
      if (right < units.length && this.before(right, least)) least = right;
      if (least === i) return top;
      this.swap(i, least);
      i = least;
    }
  }
  private before(a: number, b: number): boolean {
    return comparePaths((this.units[a] as Unit).relative, (this.units[b] as Unit).relative) < 0;
  }
  private swap(a: number, b: number): void {
    const units = this.units;
    [units[a], units[b]] = [units[b] as Unit, units[a] as Unit];
  }
}
