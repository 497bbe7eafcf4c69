import { startMockAnthropicServer, startMockModelServer } from '@raf/client/testing';
import type { AgentResponseUpdate } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../diagnostics/diagnostic.js';
import { DeclAgentBuilder } from './decl-agent-builder.js';

async function drain(iterable: AsyncIterable<AgentResponseUpdate>): Promise<AgentResponseUpdate[]> {
  const out: AgentResponseUpdate[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('model.fallback', () => {
  it('a 500-storm on the first model switches to the next one, with a warning; inspect shows the chain', async () => {
    const storm = await startMockModelServer({ turns: () => ({ status: 500 }) });
    const backup = await startMockAnthropicServer({ turns: [{ text: 'backup here' }] });
    try {
      const yaml = [
        'name: resilient',
        'model:',
        '  id: primary',
        '  provider: custom',
        `  connection: { endpoint: "${storm.baseURL}" }`,
        '  fallback:',
        '    - provider: anthropic',
        '      id: claude-backup',
        `      connection: { endpoint: "${backup.url}", api_key: k }`,
        '',
      ].join('\n');
      const builder = new DeclAgentBuilder().fromYaml(yaml, 'resilient.yaml');
      expect((await builder.explain()).model).toEqual({
        provider: 'custom',
        id: 'primary',
        fallback: [{ provider: 'anthropic', id: 'claude-backup' }],
      });
      const updates = await drain((await builder.build()).run('hi'));
      expect(storm.requests.length).toBeGreaterThanOrEqual(3);
      expect(updates.find((u) => u.type === 'warning')).toMatchObject({
        code: 'RAF_MODEL_FALLBACK',
        message: expect.stringContaining('custom/primary failed'),
      });
      expect(
        updates
          .filter((u) => u.type === 'text-delta')
          .map((u) => (u as { delta: string }).delta)
          .join(''),
      ).toBe('backup here');
    } finally {
      await storm.close();
      await backup.close();
    }
  }, 30_000);

  it('a problem in a fallback model is reported at its own line', async () => {
    const report = await new DeclAgentBuilder()
      .fromYaml(
        'name: a\nmodel:\n  id: m\n  provider: custom\n  connection: { endpoint: "http://127.0.0.1:9/v1" }\n  fallback:\n    - id: x\n      provider: nowhere\n',
        'bad.yaml',
      )
      .validate();
    expect(report.errors.map(formatDiagnostic)).toEqual([
      expect.stringMatching(/^bad\.yaml:8:17 model\.fallback\[0\]\.provider: /),
    ]);
  });
});
