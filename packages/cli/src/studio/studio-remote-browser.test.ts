import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { buildStudioIfMissing, hasChromium, launchChromium, type StudioBrowser } from '@raf/studio/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { createMemoryIO } from '../memory-io.js';
import { type RunningStudio, startStudio } from './test-support/studio-fixture.js';

// Issue 31: `raf studio --server URL --token T` points the studio's conversations at a running
// `raf serve` (its /v1 API), so a team shares one server.

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const testServer = join(repo, 'packages/mcp/src/test-support/test-server.ts');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9, 9]);

let dir: string;
let model: MockModelServer;
let served: { url: string; token: string; stop(): Promise<number> };
let studio: RunningStudio;
let chromium: StudioBrowser;
let page: Page;

/** `raf serve <folder> --store memory:` in-process, until `stop()` (Ctrl-C): its URL and printed token. */
async function serve(folder: string) {
  const memory = createMemoryIO({ cwd: dir });
  const exit = main(['serve', folder, '--store', 'memory:'], memory.io);
  const deadline = Date.now() + 20_000;
  while (!/token: \S+/.test(memory.out())) {
    if (Date.now() > deadline) throw new Error(`raf serve did not start: ${memory.err()}`);
    const early = await Promise.race([exit, new Promise((r) => setTimeout(() => r(undefined), 25))]);
    if (early !== undefined) throw new Error(`raf serve exited ${early}: ${memory.err()}`);
  }
  return {
    url: memory.out().match(/raf serve: (\S+)/)![1]!,
    token: memory.out().match(/token: (\S+)/)![1]!,
    async stop() {
      memory.interrupt();
      return exit;
    },
  };
}

describe.runIf(hasChromium())(
  'raf studio --server against a raf serve, in Chromium',
  { timeout: 90_000 },
  () => {
    beforeAll(async () => {
      buildStudioIfMissing();
      dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-studio-remote-')));
      model = await startMockModelServer({
        turns: [
          {
            toolCalls: [
              { id: 'w1', name: 'write_file', arguments: { path: '../todo.md', content: 'shared line\n' } },
            ],
          },
          { text: 'Written on the server.' },
          { text: 'Still there.' },
          // A slow answer, stopped halfway by the Stop button.
          { text: 'one two three four five six seven eight nine ten', chunkDelayMs: 400 },
          // An MCP server's question (elicitation), answered on the card through the server.
          { toolCalls: [{ id: 'q1', name: 'ask_name', arguments: {} }] },
          { text: 'Hello Ada.' },
          // A picked image, sent to the server as a content part.
          { text: 'A chart.' },
        ],
      });
      // A write outside the workspace's root asks first (`policy: approve`).
      await mkdir(join(dir, 'agents/notes/ws'), { recursive: true });
      await writeFile(join(dir, 'agents/notes/todo.md'), 'old line\n');
      await writeFile(
        join(dir, 'agents/scribe.yaml'),
        [
          'kind: prompt',
          'name: scribe',
          `model: { id: m, provider: custom, connection: { endpoint: "${model.baseURL}" } }`,
          'instructions: Keep the to-do list.',
          'contexts:',
          '  - kind: workspace',
          '    name: notes',
          '    config: { root: ./notes/ws, policy: approve }',
          'tools:',
          '  - { kind: file, name: write_file }',
          '',
        ].join('\n'),
      );
      await writeFile(
        join(dir, 'agents/asker.yaml'),
        `name: asker
model: { id: m, provider: custom, connection: { endpoint: "${model.baseURL}" } }
tools:
  - kind: mcp
    name: people
    config:
      command: ${JSON.stringify(process.execPath)}
      args: [--import, tsx, ${JSON.stringify(testServer)}]
      cwd: ${JSON.stringify(repo)}
      env: { TEST_SERVER_LOG: ${JSON.stringify(join(dir, 'events.jsonl'))} }
`,
      );
      await writeFile(
        join(dir, 'agents/looker.yaml'),
        `name: looker
model: { id: m, provider: custom, connection: { endpoint: "${model.baseURL}" }, capabilities: { images: true } }
`,
      );
      await mkdir(join(dir, 'elsewhere'));
      served = await serve('agents');
      // The studio runs in another folder: nothing it shows comes from local agent files.
      studio = await startStudio(
        join(dir, 'elsewhere'),
        [],
        ['--server', served.url, '--token', served.token],
      );
      chromium = await launchChromium();
      page = await chromium.context.newPage();
    }, 60_000);
    afterAll(async () => {
      await chromium?.close();
      // Only what beforeAll started: a failed start is reported once, by beforeAll.
      if (studio) expect(await studio.stop()).toBe(0);
      if (served) expect(await served.stop()).toBe(0);
      await model?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('opens on the Conversation page naming the server; a run pauses for approval and finishes on the server', async () => {
      await page.goto(studio.url);
      await page.waitForSelector('main[data-page="conversation"] #message', { timeout: 15_000 });
      expect(await page.getAttribute('[data-server]', 'data-server')).toBe(served.url);
      // Only conversations: the Tools and Agent pages read local files the server does not publish.
      expect(await page.$$eval('header nav a', (links) => links.map((a) => a.getAttribute('href')))).toEqual([
        '#/conversation',
      ]);
      // raf serve's /v1 takes content parts: files can be attached here too.
      expect(await page.$('#attach')).not.toBeNull();
      await page.selectOption('main select', 'scribe');
      await page.fill('#message', 'update the to-do list');
      await page.click('form.composer button[type=submit]');
      await page.waitForSelector('[data-approval="w1"]').catch(async (error: Error) => {
        throw new Error(`${error.message}\npage: ${await page.textContent('main')}`);
      });
      expect(await page.textContent('[data-approval="w1"] [data-field="approval.name"]')).toBe('write_file');
      expect(await page.textContent('.chat')).toContain('Waiting for your approval.');
      expect(await readFile(join(dir, 'agents/notes/todo.md'), 'utf8')).toBe('old line\n');
      await page.click('button:has-text("Approve")');
      await page.waitForSelector('.chat .assistant:has-text("Written on the server.")');
      expect(await page.textContent('[data-decided="w1"]')).toContain('Approved: write_file');
      expect(await page.textContent('.chat')).toContain('Done.');
      expect(await readFile(join(dir, 'agents/notes/todo.md'), 'utf8')).toBe('shared line\n');
      expect(model.requests).toHaveLength(2);
      // The next turn goes on the same session on the server: the model sees the first one.
      await page.fill('#message', 'is it there?');
      await page.click('form.composer button[type=submit]');
      await page.waitForSelector('.chat .assistant:has-text("Still there.")');
      const history = (model.requests[2]!.body as { messages: { content: unknown }[] }).messages;
      expect(history.map((m) => m.content)).toContain('update the to-do list');
    });

    it('Stop cancels the run on the server', async () => {
      await page.fill('#message', 'count slowly');
      await page.click('form.composer button[type=submit]');
      await page.waitForSelector('.chat .assistant:has-text("two")');
      await page.click('button[data-stop]');
      await page.waitForSelector('.chat li:has-text("Stopped.")');
      // The server stopped its model call: the stream to the model closed before its end.
      await expect.poll(() => model.requests[3]?.closedEarly, { timeout: 15_000 }).toBe(true);
      await page.waitForSelector('form.composer button[type=submit]');
      expect(await page.textContent('.chat')).not.toContain('nine ten');
    });

    it('an MCP question is a card; its answer goes to the server, checked there, and the run goes on', async () => {
      await page.selectOption('main select', 'asker');
      await page.fill('#message', 'who am I');
      await page.click('form.composer button[type=submit]');
      const card = '[data-question="q1"]';
      await page.waitForSelector(card).catch(async (error: Error) => {
        throw new Error(`${error.message}\npage: ${await page.textContent('main')}`);
      });
      expect(await page.textContent(`${card} [data-field="question.message"]`)).toBe('What is your name?');
      // Over the schema's maximum: raf serve's check refuses it, the card stays to be fixed.
      await page.fill('#q-q1-name', 'Ada');
      await page.fill('#q-q1-age', '200');
      await page.click(`${card} button[type=submit]`);
      await page.waitForSelector(`${card} [data-question-error]`);
      expect(await page.textContent(`${card} [data-question-error]`)).toMatch(/age/);
      await page.fill('#q-q1-age', '36');
      await page.click(`${card} button[type=submit]`);
      await page.waitForSelector('.chat .assistant:has-text("Hello Ada.")');
      expect(await page.textContent('[data-answered="q1"]')).toContain('Answered');
      const log = (await readFile(join(dir, 'events.jsonl'), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { event: string; result?: unknown });
      expect(log.filter((e) => e.event === 'elicited').map((e) => e.result)).toEqual([
        { action: 'accept', content: { name: 'Ada', age: 36 } },
      ]);
    });

    it('a picked PNG goes to the server as an image part and reaches the model', async () => {
      await page.selectOption('main select', 'looker');
      await page.setInputFiles('#attach', [{ name: 'chart.png', mimeType: 'image/png', buffer: PNG }]);
      await page.waitForSelector('[data-attachment="chart.png"]');
      await page.fill('#message', 'What is this?');
      await page.click('form.composer button[type=submit]');
      await page.waitForSelector('.chat .assistant:has-text("A chart.")').catch(async (error: Error) => {
        throw new Error(`${error.message}\npage: ${await page.textContent('main')}`);
      });
      const sent = (model.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] })
        .messages;
      expect(sent.at(-1)).toEqual({
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
        ],
      });
    });

    it('the local-only routes say why, and a wrong token is refused before the studio serves', async () => {
      const get = (path: string) =>
        fetch(`${studio.origin}${path}`, { headers: { authorization: `Bearer ${studio.token}` } });
      expect(await (await get('/api/config')).json()).toMatchObject({
        server: served.url,
        attachments: true,
      });
      const governance = await get('/api/governance');
      expect(governance.status).toBe(404);
      expect(((await governance.json()) as { error: { message: string } }).error.message).toMatch(
        /raf serve/,
      );
      const wrong = createMemoryIO({ cwd: dir });
      expect(await main(['studio', '--server', served.url, '--token', 'not-the-token'], wrong.io)).toBe(2);
      expect(wrong.err()).toMatch(/refused the token/);
      expect(wrong.err()).not.toContain(served.token);
    });
  },
);
