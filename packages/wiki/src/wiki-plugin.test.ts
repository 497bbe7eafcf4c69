import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
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

  it('a vault folder that is a link, or lies below one, is refused: a warning and no wiki, an error with --strict', async () => {
    await mkdir(join(dir, 'docs'));
    await symlink(join(dir, 'wiki'), join(dir, 'docs', 'handbook'));
    const link = join(dir, 'docs', 'handbook');
    for (const source of ['./docs/handbook', 'docs/handbook/']) {
      const file = await agentFile(`    config: { source: "${source}", watch: false }\n`);
      const report = await builder(file).validate();
      expect(report.warnings.map((w) => w.message)).toEqual([
        `wiki 'handbook': ${link} is a symbolic link (not followed); the wiki is not loaded; it is skipped`,
      ]);
      const explained = await builder(file).explain();
      expect(explained.tools.map((t) => t.name)).not.toContain('wiki_search');
      const strict = await builder(file).strictMode().validate();
      expect(strict.errors.map((e) => e.message)).toEqual([
        expect.stringContaining(`${link} is a symbolic link (not followed)`),
      ]);
    }
    await mkdir(join(dir, 'real'));
    await symlink(join(dir, 'wiki', 'handbook'), join(dir, 'real', 'linked')).catch(() => undefined);
    const below = await agentFile('    config: { source: real/linked/deeper, watch: false }\n');
    expect((await builder(below).validate()).warnings.map((w) => w.message)).toEqual([
      `wiki 'handbook': ${join(dir, 'real', 'linked')} is a symbolic link (not followed); the wiki is not loaded; it is skipped`,
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
