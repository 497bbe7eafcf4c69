import { createToolManifest, defineTool, type ITool, type ToolResult, toolSuccess } from '@raf/core';
import { INTERRUPTED_ERROR } from '@raf/framework';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DurableTables } from './durable-tables.js';
import { serveProxiedCall } from './proxied-serve.js';

/**
 * A coordinator's answer to a sub-agent's proxied call (SPEC §14.1, §14.2), on the store's real
 * `raf_durable_calls`: the approval gate decides before anything is marked, so a call that asks
 * is never taken for a call in doubt — not by a coordinator recovered before its pause was
 * recorded, not after an older coordinator marked it before asking. A call that really started
 * (marked, then the process died) stays in doubt: interrupted, or run again when idempotent.
 */
let cluster: PgCluster | undefined;
let tables: DurableTables;

/** A `write` whose gate asks for paths outside `ws/`, counting its runs and what ran before them. */
function writeTool(seen: string[], idempotent = false): ITool {
  return defineTool({
    name: 'write',
    description: 'writes a file',
    parameters: z.object({ path: z.string() }),
    ...(idempotent && { manifest: createToolManifest({ idempotent: true }) }),
    requiresApproval: (args) => {
      seen.push('gate');
      return !args?.path.startsWith('ws/');
    },
    execute: (args) => {
      seen.push(`ran ${args.path}`);
      return toolSuccess({ wrote: args.path });
    },
  });
}

const serve = (childId: string, tool: ITool, path: string, approved?: boolean) =>
  serveProxiedCall(tables, {
    childId,
    n: 0,
    raw: { callId: 'w1', name: 'write', arguments: { path } },
    proxied: new Map([['write', tool]]),
    agent: 'writer',
    signal: new AbortController().signal,
    decision: approved === undefined ? undefined : { callId: 'w1', approved, target: null },
  });

const failure = (result: unknown) => (result as ToolResult & { ok: false }).error;

describe.skipIf(postgresSkipReason !== undefined)('serving a proxied call', () => {
  beforeAll(async () => {
    cluster = await startPgCluster();
    tables = await DurableTables.open(cluster.createDatabase('proxied_serve'));
  }, 60_000);
  afterAll(async () => {
    await tables?.close();
    cluster?.stop();
  });

  it('a call that needs approval asks and is not marked started; asked again after a crash, it asks again', async () => {
    const seen: string[] = [];
    const tool = writeTool(seen);
    const asked = await serve('run-1/d1', tool, '../out.txt');
    expect(asked).toMatchObject({
      approval: { callId: 'w1', name: 'write', arguments: { path: '../out.txt' } },
    });
    // A coordinator recovered before the pause was recorded serves the same call again: it asks.
    expect(await serve('run-1/d1', tool, '../out.txt')).toMatchObject({ approval: { callId: 'w1' } });
    expect(seen).toEqual(['gate', 'gate']);
    // Nothing was marked: the first mark of `proxy:0` is still to come.
    expect(await tables.markStarted('run-1/d1', 'proxy:0')).toBe(true);
  });

  it('a gated call marked started (an older coordinator marked before it asked) still asks, and runs once approved', async () => {
    const seen: string[] = [];
    const tool = writeTool(seen);
    await tables.markStarted('run-2/d1', 'proxy:0');
    expect(await serve('run-2/d1', tool, '../out.txt')).toMatchObject({ approval: { callId: 'w1' } });
    expect(seen).toEqual(['gate']);
    // Approved: its own start (`proxy:0:approved`), run once; a recovered coordinator serving the
    // approved call again finds it in doubt and does not run it twice.
    expect(await serve('run-2/d1', tool, '../out.txt', true)).toEqual(toolSuccess({ wrote: '../out.txt' }));
    expect(failure(await serve('run-2/d1', tool, '../out.txt', true))).toBe(INTERRUPTED_ERROR);
    expect(seen).toEqual(['gate', 'ran ../out.txt']);
    // Denied: nothing runs and nothing is marked.
    expect(failure(await serve('run-3/d1', tool, '../out.txt', false))).toBe('Rejected: User denied');
    expect(await tables.markStarted('run-3/d1', 'proxy:0:approved')).toBe(true);
  });

  it('a call the gate lets through is marked just before it runs: started and not finished, it is in doubt', async () => {
    const seen: string[] = [];
    const tool = writeTool(seen);
    expect(await serve('run-4/d1', tool, 'ws/a.txt')).toEqual(toolSuccess({ wrote: 'ws/a.txt' }));
    expect(seen).toEqual(['gate', 'ran ws/a.txt']);
    // Served again (the coordinator died before its answer was recorded): interrupted, not run twice.
    expect(failure(await serve('run-4/d1', tool, 'ws/a.txt'))).toBe(INTERRUPTED_ERROR);
    expect(seen).toEqual(['gate', 'ran ws/a.txt', 'gate']);
    // An idempotent tool runs again.
    const again: string[] = [];
    const idempotent = writeTool(again, true);
    await serve('run-5/d1', idempotent, 'ws/b.txt');
    expect(await serve('run-5/d1', idempotent, 'ws/b.txt')).toEqual(toolSuccess({ wrote: 'ws/b.txt' }));
    expect(again).toEqual(['gate', 'ran ws/b.txt', 'gate', 'ran ws/b.txt']);
  });

  it('the time a resumed delegation first started is recorded once: a rerun reads the same', async () => {
    const first = await tables.firstMarkedAt('run-6/d1', 'resumed:0');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await tables.firstMarkedAt('run-6/d1', 'resumed:0')).toBe(first);
    expect(await tables.firstMarkedAt('run-6/d1', 'resumed:1')).toBeGreaterThan(first);
  });
});
