import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startMockModelServer } from '@raf/client/testing';
import type { AgentResponseUpdate } from '@raf/core';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../test-support/approval-process.ts', import.meta.url));

// Asynchronous on purpose: the mock model server lives in this process and must keep answering.
async function runProcess(mode: string, baseURL: string, dir: string): Promise<AgentResponseUpdate[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=@raf/source', '--import', 'tsx', script, mode, baseURL, dir],
    { encoding: 'utf8', timeout: 30_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as AgentResponseUpdate[];
}

describe('an approval survives a process restart', () => {
  it('pauses in one process, saves the session to a file, and completes in another', async () => {
    const server = await startMockModelServer({
      turns: [
        { toolCalls: [{ id: 'call_d', name: 'deploy', arguments: { env: 'prod' } }] },
        { text: 'Deployed to prod.' },
      ],
    });
    const dir = await mkdtemp(join(tmpdir(), 'raf-restart-'));
    try {
      const first = await runProcess('start', server.baseURL, dir);
      expect(first.at(-1)).toEqual({ type: 'finish', reason: 'awaitingApproval' });
      const saved = JSON.parse(await readFile(join(dir, 'deploy-1.json'), 'utf8'));
      expect(saved.pendingApproval).toMatchObject({ gatedCallIds: ['call_d'], round: 0 });

      const second = await runProcess('resume', server.baseURL, dir);
      const called = second.find((u) => u.type === 'tool-called');
      expect(called).toMatchObject({ callId: 'call_d', result: { ok: true, data: { deployed: 'prod' } } });
      expect(second.at(-1)).toEqual({ type: 'finish', reason: 'stop' });

      // The resumed request carries the history in the right order: no new user turn.
      const messages = server.requests[1]?.body?.messages as { role: string; tool_call_id?: string }[];
      expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
      expect(messages[3]?.tool_call_id).toBe('call_d');
      const final = JSON.parse(await readFile(join(dir, 'deploy-1.json'), 'utf8'));
      expect(final.pendingApproval).toBeUndefined();
      expect(final.messages.map((m: { role: string }) => m.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
      ]);
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
