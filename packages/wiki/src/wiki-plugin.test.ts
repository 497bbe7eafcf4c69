import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { DeclAgentBuilder } from '@raf/decl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeUpstreamWiki } from './test-support/make-wikis.js';
import { wikiPlugin } from './wiki-plugin.js';

let dir: string;
let model: MockModelServer | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-wiki-plugin-'));
  await makeUpstreamWiki(join(dir, 'wiki'));
});
afterEach(async () => {
  await model?.close();
  model = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function agentFile(config: string, modelBlock = 'model: { id: m, provider: openai }'): Promise<string> {
  const file = join(dir, 'agent.yaml');
  await writeFile(
    file,
    `name: team\n${modelBlock}\ncontexts:\n  - kind: wiki\n    name: handbook\n${config}`,
  );
  return file;
}
const builder = (file: string) => new DeclAgentBuilder().fromYamlFile(file).use(wikiPlugin());

describe('kind: wiki from YAML', () => {
  it('config errors at file:line:column; a missing folder warns and skips', async () => {
    const bad = await agentFile('    config: { source: wiki, writable: "yes" }\n');
    expect((await builder(bad).validate()).errors.map((e) => [e.line, e.path, e.message])).toEqual([
      [6, 'contexts[0].config.writable', 'Invalid input: expected boolean, received string'],
    ]);
    const missing = await agentFile('    config: { source: nowhere }\n');
    const report = await builder(missing).validate();
    expect(report.ok).toBe(true);
    expect(report.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/^wiki 'handbook': the folder .*nowhere does not exist; it is skipped$/),
    ]);
  });

  it('inspect lists the injected wiki tools (wiki_write only when writable) and the wiki state', async () => {
    const readOnly = await builder(await agentFile('    config: { source: wiki }\n')).explain();
    expect(readOnly.tools.map((t) => [t.name, t.source, t.context, t.executionMode])).toEqual([
      ['wiki_search', 'injected', 'handbook', 'parallel'],
      ['wiki_page', 'injected', 'handbook', 'parallel'],
      ['wiki_concepts', 'injected', 'handbook', 'parallel'],
    ]);
    expect(readOnly.contexts[1]?.details).toMatchObject({
      pages: 4,
      spaces: 2,
      links: 4,
      unresolvedLinks: 1,
      layout: 'upstream',
      watching: false,
    });
    const writable = await builder(
      await agentFile('    config: { source: wiki, writable: true }\n'),
    ).explain();
    expect(writable.tools.at(-1)).toMatchObject({ name: 'wiki_write', executionMode: 'sequential' });
  });

  it('a run suggests matching pages and answers wiki tool calls', async () => {
    model = await startMockModelServer({
      turns: [
        { toolCalls: [{ name: 'wiki_page', arguments: { page: 'Release process' } }] },
        { text: 'Tuesdays.' },
      ],
    });
    const file = await agentFile(
      '    config: { source: wiki }\n',
      `model: { id: m, provider: custom, connection: { endpoint: "${model.baseURL}" } }`,
    );
    const agent = await builder(file).build();
    expect((await agent.generate('When are releases cut?')).text).toBe('Tuesdays.');
    const [first, second] = model.requests.map((r) => r.body as { messages: { content: string }[] });
    expect(first?.messages[0]?.content).toContain('## Wiki: handbook\n4 pages.');
    expect(first?.messages[0]?.content).toContain(
      '- eng/release (Release process): Releases are cut on Tuesdays',
    );
    const result = JSON.parse(second?.messages.at(-1)?.content ?? '{}') as {
      ok: boolean;
      data: Record<string, unknown>;
    };
    expect(result).toMatchObject({
      ok: true,
      data: { id: 'eng/release', backlinks: ['eng/setup', 'ops/oncall'], hash: expect.any(String) },
    });
    await Promise.all(agent.contextProviders.map((p) => (p as { close?: () => Promise<void> }).close?.()));
  });
});
