import type { JSONValue } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointStore } from '../checkpoint/memory-checkpoint-store.js';
import { WorkflowError } from '../errors.js';
import { functionExecutor, passThrough } from '../executors/function-executor.js';
import { humanInputExecutor } from '../executors/human-input-executor.js';
import { subWorkflowExecutor } from '../executors/sub-workflow-executor.js';
import { WorkflowBuilder } from '../graph/workflow-builder.js';
import { collect, trace } from '../test-support/collect.js';
import { Workflow } from '../workflow.js';

const add = (n: number) => functionExecutor((x) => (x as number) + n, `+${n}`);

describe('graph validation', () => {
  it('rejects a missing start node, dangling edges and cycles without a loopback', () => {
    expect(() => new WorkflowBuilder().addNode('a', add(1)).build()).toThrow(/no start node/);
    expect(() => new WorkflowBuilder().addNode('a', add(1)).setStart('a').addEdge('a', 'b').build()).toThrow(
      /names node "b", which does not exist/,
    );
    const cyclic = () =>
      new WorkflowBuilder()
        .addNode('a', add(1))
        .addNode('b', add(1))
        .setStart('a')
        .addEdge('a', 'b')
        .addEdge('b', 'a')
        .build();
    expect(cyclic).toThrow(/cycle a → b → a without a loopback edge/);
    try {
      cyclic();
    } catch (error) {
      expect(WorkflowError.isInstance(error) && error.reason).toBe('invalid-graph');
    }
  });

  it('accepts a bounded loopback and warns about unreachable nodes', () => {
    const graph = new WorkflowBuilder()
      .addNode('a', add(1))
      .addNode('b', add(1))
      .addNode('lonely', add(1))
      .setStart('a')
      .addEdge('a', 'b')
      .addLoopback('b', 'a', { maxIterations: 2 })
      .build();
    expect(graph.warnings).toEqual(['node "lonely" is unreachable from the start node "a"']);
  });

  it('changes its fingerprint when the graph changes', () => {
    const make = (to: string) =>
      new WorkflowBuilder()
        .addNode('a', add(1))
        .addNode('b', add(2))
        .addNode('c', add(3))
        .setStart('a')
        .addEdge('a', to)
        .build();
    expect(make('b').fingerprint).toBe(make('b').fingerprint);
    expect(make('b').fingerprint).not.toBe(make('c').fingerprint);
  });
});

describe('supersteps', () => {
  it('runs a chain and reports outputs', async () => {
    const graph = new WorkflowBuilder()
      .addNode('a', add(1))
      .addNode('b', add(10), { output: true })
      .setStart('a')
      .addEdge('a', 'b')
      .build();
    const events = await collect(new Workflow(graph).run(1));
    expect(trace(events)).toEqual(['step 0: a', 'step 1: b', 'output b=12', 'completed']);
    expect(events.map((e) => e.type)).toEqual([
      'workflow-started',
      'superstep-started',
      'node-invoking',
      'node-completed',
      'superstep-completed',
      'superstep-started',
      'node-invoking',
      'node-completed',
      'output',
      'superstep-completed',
      'completed',
    ]);
  });

  it('fans out in parallel, bounded, and joins at a fan-in barrier in source order', async () => {
    let running = 0;
    let peak = 0;
    const slow = (n: number) =>
      functionExecutor(async (x) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 20 - n * 3));
        running--;
        return (x as number) * n;
      });
    const builder = new WorkflowBuilder().addNode('src', passThrough()).setStart('src');
    const ids = [1, 2, 3, 4, 5].map((n) => {
      builder.addNode(`w${n}`, slow(n));
      return `w${n}`;
    });
    builder.addFanOut('src', ids).addNode(
      'sum',
      functionExecutor((xs) => xs as JSONValue[]),
      { output: true },
    );
    builder.addFanIn(ids, 'sum');
    const result = await new Workflow(builder.build(), { maxParallel: 2 }).run(2).result;
    expect(result.outputs).toEqual([{ nodeId: 'sum', value: [2, 4, 6, 8, 10] }]);
    expect(peak).toBe(2);
  });

  it('takes conditional edges that hold, and the first matching case of a switch', async () => {
    const graph = new WorkflowBuilder()
      .addNode('in', passThrough())
      .addNode(
        'big',
        functionExecutor(() => 'big'),
        { output: true },
      )
      .addNode(
        'even',
        functionExecutor(() => 'even'),
        { output: true },
      )
      .addNode(
        'small',
        functionExecutor(() => 'small'),
        { output: true },
      )
      .addNode('route', passThrough())
      .setStart('in')
      .addEdge('in', 'big', { when: (x) => (x as number) > 10 })
      .addEdge('in', 'even', { when: (x) => (x as number) % 2 === 0 })
      .addEdge('in', 'route')
      .addSwitch('route', [{ target: 'big', when: (x) => (x as number) > 10 }, { target: 'small' }])
      .build();
    const values = async (x: number) => (await new Workflow(graph).run(x).result).outputs.map((o) => o.value);
    expect(await values(12)).toEqual(['big', 'even', 'big']);
    expect(await values(3)).toEqual(['small']);
  });

  it('stops a loopback after maxIterations', async () => {
    const graph = new WorkflowBuilder()
      .addNode('inc', add(1), { output: true })
      .setStart('inc')
      .addLoopback('inc', 'inc', { maxIterations: 3 })
      .build();
    const result = await new Workflow(graph).run(0).result;
    expect(result.outputs.map((o) => o.value)).toEqual([1, 2, 3, 4]);
  });

  it('retries a failing node, then skips or falls back', async () => {
    let calls = 0;
    const flaky = functionExecutor(() => {
      calls++;
      if (calls < 3) throw new Error(`boom ${calls}`);
      return 'ok';
    });
    const graph = new WorkflowBuilder()
      .addNode('flaky', flaky, {
        output: true,
        retry: { maxRetries: 2, backoff: { type: 'fixed', delayMs: 1 } },
      })
      .setStart('flaky')
      .build();
    const events = await collect(new Workflow(graph).run(null));
    expect(trace(events)).toEqual([
      'step 0: flaky',
      'failed flaky#1 retrying',
      'failed flaky#2 retrying',
      'output flaky="ok"',
      'completed',
    ]);
    const broken = functionExecutor(() => {
      throw new Error('never works');
    });
    const fallback = new WorkflowBuilder()
      .addNode('broken', broken, { retry: { maxRetries: 1, onExhausted: { fallback: 'rescue' } } })
      .addNode(
        'rescue',
        functionExecutor((x) => `rescued ${x}`),
        { output: true },
      )
      .setStart('broken')
      .build();
    expect((await new Workflow(fallback).run('x').result).outputs).toEqual([
      { nodeId: 'rescue', value: 'rescued x' },
    ]);
    const failing = new WorkflowBuilder().addNode('broken', broken).setStart('broken').build();
    const failed = await new Workflow(failing).run('x').result;
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'RAF_WORKFLOW', nodeId: 'broken' });
    expect(failed.error?.message).toContain('node "broken" failed: never works');
  });

  it('times a node out per try and the whole run globally', async () => {
    const hang = functionExecutor(() => new Promise<JSONValue>(() => {}));
    const graph = new WorkflowBuilder().addNode('hang', hang, { timeoutMs: 30 }).setStart('hang').build();
    const result = await new Workflow(graph).run(null).result;
    expect(result.status).toBe('failed');
    expect(result.error?.message).toContain('timed out after 30 ms');
    const unbounded = new WorkflowBuilder().addNode('hang', hang).setStart('hang').build();
    const global = await new Workflow(unbounded, { timeoutMs: 40 }).run(null).result;
    expect(global.status).toBe('failed');
    expect(global.error).toMatchObject({ code: 'RAF_TIMEOUT' });
  });

  it('is cancelled by its signal', async () => {
    const hang = functionExecutor(() => new Promise<JSONValue>(() => {}));
    const graph = new WorkflowBuilder().addNode('hang', hang).setStart('hang').build();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const result = await new Workflow(graph).run(null, { signal: controller.signal }).result;
    expect(result.status).toBe('cancelled');
  });
});

describe('checkpoints and resume', () => {
  const chain = (n: number) => {
    const builder = new WorkflowBuilder().setStart('n0');
    for (let i = 0; i < n; i++) {
      builder.addNode(
        `n${i}`,
        functionExecutor((x, ctx) => {
          ctx.state.set('visited', [...((ctx.state.get('visited') as JSONValue[]) ?? []), i]);
          return (x as number) + 1;
        }),
        { output: i === n - 1 },
      );
      if (i > 0) builder.addEdge(`n${i - 1}`, `n${i}`);
    }
    return builder.build();
  };

  it('saves one checkpoint per superstep and resumes from any of them to the same outputs', async () => {
    const store = new InMemoryCheckpointStore();
    const workflow = new Workflow(chain(5), { checkpoints: store });
    const first = await workflow.run(0, { runId: 'r1' }).result;
    expect(first.outputs).toEqual([{ nodeId: 'n4', value: 5 }]);
    const infos = await store.list('r1');
    expect(infos.map((i) => i.step)).toEqual([0, 1, 2, 3, 4]);
    expect(infos[1]?.parentId).toBe(infos[0]?.id);
    const again = await workflow.resume({ runId: 'r1', checkpointId: infos[1]!.id }).result;
    expect(again.outputs).toEqual(first.outputs);
    expect(again.state.state.visited).toEqual([0, 1, 2, 3, 4]);
    expect((await store.list('r1')).length).toBe(8); // the resumed run added steps 2–4
    expect(await store.prune('r1', 2)).toBe(6);
    expect((await store.list('r1')).length).toBe(2);
  });

  it('refuses a checkpoint of another graph', async () => {
    const store = new InMemoryCheckpointStore();
    await new Workflow(chain(3), { checkpoints: store }).run(0, { runId: 'r2' }).result;
    const changed = new Workflow(chain(4), { checkpoints: store });
    await expect(changed.resume({ runId: 'r2' }).result).rejects.toThrow(
      /cannot resume run "r2": its checkpoint was taken on another graph/,
    );
  });

  it('pauses at a human-input node and resumes with the answer from the checkpoint', async () => {
    const store = new InMemoryCheckpointStore();
    const graph = new WorkflowBuilder()
      .addNode('ask', humanInputExecutor({ prompt: (x) => `name for ${x}?`, variable: 'Local.name' }))
      .addNode(
        'greet',
        functionExecutor((name) => `Hello, ${name}!`),
        { output: true },
      )
      .setStart('ask')
      .addEdge('ask', 'greet')
      .build();
    const workflow = new Workflow(graph, { checkpoints: store });
    const paused = await collect(workflow.run('the cat', { runId: 'h1' }));
    expect(trace(paused)).toEqual(['step 0: ask', 'halted ask']);
    expect(paused.at(-1)).toMatchObject({
      type: 'halted',
      request: { kind: 'input', prompt: 'name for the cat?' },
    });
    await expect(workflow.resume({ runId: 'h1' }).result).rejects.toThrow(/waiting for input at node "ask"/);
    const resumed = await collect(
      new Workflow(graph, { checkpoints: store }).resume({ runId: 'h1', answer: 'Tom' }),
    );
    expect(trace(resumed)).toEqual([
      'resumed at 1',
      'step 1: ask',
      'step 2: greet',
      'output greet="Hello, Tom!"',
      'completed',
    ]);
  });

  it('nests a workflow as a node, pausing the parent when the child pauses', async () => {
    const child = new Workflow(
      new WorkflowBuilder()
        .addNode('ask', humanInputExecutor({ prompt: 'color?' }))
        .addNode(
          'echo',
          functionExecutor((x) => `child got ${x}`),
          { output: true },
        )
        .setStart('ask')
        .addEdge('ask', 'echo')
        .build(),
      { name: 'child' },
    );
    const graph = new WorkflowBuilder()
      .addNode('sub', subWorkflowExecutor(child))
      .addNode(
        'after',
        functionExecutor((x) => `parent got ${x}`),
        { output: true },
      )
      .setStart('sub')
      .addEdge('sub', 'after')
      .build();
    const parent = new Workflow(graph);
    const paused = await parent.run('go').result;
    expect(paused.status).toBe('halted');
    expect(paused.halted[0]?.request).toEqual({ kind: 'input', prompt: 'color?' });
    const done = await parent.resume({ state: paused.state, answer: 'red' }).result;
    expect(done.outputs).toEqual([{ nodeId: 'after', value: 'parent got child got red' }]);
  });
});
