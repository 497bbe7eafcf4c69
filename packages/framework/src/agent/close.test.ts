import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { IContextProvider } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { drain, type Harness, startHarness } from '../test-support/harness.js';
import { testSpec } from '../test-support/sub-agent-factory.js';
import { AgentBuilder } from './agent-builder.js';

let harness: Harness;
afterEach(() => harness?.close());

/** Live child processes of this process (from /proc). */
function childPids(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(fields[1]) === process.pid && fields[0] !== 'Z' ? [Number(pid)] : [];
      } catch {
        return [];
      }
    });
}

describe('agent.close() and Symbol.asyncDispose', () => {
  it('closes each provider once (all of them when one fails) and stops the sub-agents worker pool', async () => {
    harness = await startHarness([{ text: 'hi' }]);
    const closed: string[] = [];
    const provider = (name: string, fails = false): IContextProvider & { close(): Promise<void> } => ({
      name,
      kind: 'test',
      close: async () => {
        closed.push(name);
        if (fails) throw new Error(`${name} failed to close`);
      },
    });
    const spec = testSpec({ name: 'researcher', baseURL: harness.server.baseURL, root: tmpdir() });
    const agent = new AgentBuilder('root')
      .chatClient(harness.client)
      .withContextProvider(provider('a', true))
      .withContextProvider(provider('b'))
      .withSubAgents([spec], { warmWorkers: 1 })
      .build();
    await drain(agent.run('hello'));
    // The run warmed a spare worker.
    for (let i = 0; i < 100 && childPids().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(childPids()).toHaveLength(1);
    await expect(agent.close()).rejects.toThrow('a failed to close');
    await agent.close().catch(() => undefined);
    expect(closed).toEqual(['a', 'b']);
    expect(childPids()).toEqual([]);
  }, 60_000);

  it('await using closes the agent at the end of the block', async () => {
    harness = await startHarness([]);
    let closed = 0;
    {
      await using agent = new AgentBuilder('a')
        .chatClient(harness.client)
        .withContextProvider({
          name: 'p',
          kind: 'test',
          close: async () => void closed++,
        } as IContextProvider)
        .build();
      expect(agent.name).toBe('a');
    }
    expect(closed).toBe(1);
  });
});
