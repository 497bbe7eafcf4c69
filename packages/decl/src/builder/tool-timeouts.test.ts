import { startMockModelServer } from '@raf/client/testing';
import { defineTool, toolSuccess } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DeclAgentBuilder } from './decl-agent-builder.js';

/** A tool that answers only when its signal fires (the timeout). */
function waits(name: string) {
  return defineTool({
    name,
    description: `${name} waits`,
    parameters: z.object({}),
    execute: (_args, { signal }) =>
      new Promise((resolve) => signal.addEventListener('abort', () => resolve(toolSuccess('late')))),
  });
}

describe('tool timeouts in YAML', () => {
  it('applies toolTimeoutSecs to every tool and timeoutSecs to the tools of its entry', async () => {
    const server = await startMockModelServer({
      turns: [
        {
          toolCalls: [
            { id: 'c1', name: 'slow', arguments: {} },
            { id: 'c2', name: 'slower', arguments: {} },
          ],
        },
        { text: 'ok' },
      ],
    });
    try {
      const yaml = [
        'name: timeouts',
        `model: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }`,
        'tool_timeout_secs: 0.05',
        'tools:',
        '  - kind: function',
        '    name: slow',
        '  - kind: function',
        '    name: slower',
        '    timeoutSecs: 0.08',
        '',
      ].join('\n');
      const builder = new DeclAgentBuilder()
        .fromYaml(yaml)
        .registerFactory('slow', () => waits('slow'))
        .registerFactory('slower', () => waits('slower'));
      expect((await builder.validate()).ok).toBe(true);
      const response = await (await builder.build()).generate('go');
      expect(response.toolResults.map((r) => r.result)).toEqual([
        { ok: false, error: 'Tool slow timed out after 0.05 s' },
        { ok: false, error: 'Tool slower timed out after 0.08 s' },
      ]);
      expect(response.text).toBe('ok');
    } finally {
      await server.close();
    }
  });

  it('rejects a timeout that is not a positive number, at its line', async () => {
    const report = await new DeclAgentBuilder()
      .fromYaml(
        'name: x\nmodel: { id: m }\ntoolTimeoutSecs: -1\ntools:\n  - kind: file\n    timeoutSecs: soon\n',
      )
      .validate();
    expect(report.errors.map((e) => `${e.line}:${e.path}`)).toEqual([
      '3:toolTimeoutSecs',
      '6:tools[0].timeoutSecs',
    ]);
  });
});
