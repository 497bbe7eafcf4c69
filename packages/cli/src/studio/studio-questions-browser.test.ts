import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { buildStudioIfMissing, hasChromium, launchChromium, type StudioBrowser } from '@raf/studio/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningStudio, startStudio } from './test-support/studio-fixture.js';

// Issue 33: an MCP server's question (elicitation) is a card on the Conversation page; issue 32:
// a dropped or picked image or PDF reaches the model as a content part.

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const testServer = join(repo, 'packages/mcp/src/test-support/test-server.ts');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9, 9]);
const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');

let dir: string;
let studio: RunningStudio;
let asker: MockModelServer;
let looker: MockModelServer;
let blind: MockModelServer;
let chromium: StudioBrowser;
let page: Page;

const model = (id: string, server: MockModelServer, extra = '') =>
  `model:\n  provider: custom\n  id: ${id}\n  connection: { endpoint: "${server.baseURL}" }\n${extra}`;

/** The serious and critical accessibility violations of the page as it is now. */
async function axeViolations(): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> };
      }
    ).axe;
    return axe.run();
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}, ${v.nodes.length} nodes)`);
}

/** What the MCP server got back from each elicitation, in order (its event log). */
async function elicited(): Promise<unknown[]> {
  const text = await readFile(join(dir, 'events.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { event: string; result?: unknown })
    .filter((e) => e.event === 'elicited')
    .map((e) => e.result);
}

async function send(agent: string, text: string) {
  await page.goto(`${studio.url}#/conversation`);
  await page.waitForSelector('main[data-page="conversation"] #message');
  await page.selectOption('main select', agent);
  await page.fill('#message', text);
  await page.click('form.composer button[type=submit]');
}

const lastUserContent = (server: MockModelServer, n = 0) =>
  (server.requests[n]!.body as { messages: { role: string; content: unknown }[] }).messages.at(-1);

const api = (path: string, body: unknown) =>
  fetch(`${studio.origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${studio.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe.runIf(hasChromium())(
  'the studio’s questions and attachments in Chromium',
  { timeout: 90_000 },
  () => {
    beforeAll(async () => {
      buildStudioIfMissing();
      dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-studio-q-')));
      asker = await startMockModelServer({
        turns: [
          { toolCalls: [{ id: 'c1', name: 'ask_name', arguments: {} }] },
          { text: 'Hello Ada.' },
          {
            toolCalls: [{ id: 'c2', name: 'open_link', arguments: { url: 'https://tracker.example/login' } }],
          },
          { text: 'Not signed in.' },
          {
            toolCalls: [{ id: 'c3', name: 'open_link', arguments: { url: 'http://tracker.example/login' } }],
          },
          { text: 'Cancelled it.' },
        ],
      });
      looker = await startMockModelServer({ turns: () => ({ text: 'A chart and a report.' }) });
      blind = await startMockModelServer({ turns: () => ({ text: 'never asked' }) });
      await writeFile(
        join(dir, 'asker.yaml'),
        `name: asker\n${model('m', asker)}tools:
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
        join(dir, 'looker.yaml'),
        `name: looker\n${model('vision-model', looker, '  capabilities: { images: true, files: true }\n')}`,
      );
      await writeFile(join(dir, 'blind.yaml'), `name: blind\n${model('text-model', blind)}`);
      studio = await startStudio(dir, ['asker.yaml', 'looker.yaml', 'blind.yaml']);
      chromium = await launchChromium();
      page = await chromium.context.newPage();
    }, 60_000);
    afterAll(async () => {
      await chromium?.close();
      expect(await studio?.stop()).toBe(0);
      await Promise.all([asker?.close(), looker?.close(), blind?.close()]);
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('a form question shows its fields; an answer that does not fit is said on the card; Submit answers and the run goes on', async () => {
      await send('asker', 'who am I');
      const card = '[data-question="c1"]';
      await page.waitForSelector(card);
      expect(await page.getAttribute(`${card} [data-field="question.source"]`, 'data-value')).toBe(
        '"mcp:people"',
      );
      expect(await page.textContent(`${card} [data-field="question.message"]`)).toBe('What is your name?');
      expect(await page.textContent(`${card} label[for="q-c1-name"]`)).toBe('name *');
      expect(await page.getAttribute('#q-c1-age', 'type')).toBe('number');
      expect(await axeViolations()).toEqual([]);
      // Over the schema's maximum: the server's check refuses it and the card stays to be fixed.
      await page.fill('#q-c1-name', 'Ada');
      await page.fill('#q-c1-age', '200');
      await page.click(`${card} button[type=submit]`);
      await page.waitForSelector(`${card} [data-question-error]`);
      expect(await page.textContent(`${card} [data-question-error]`)).toMatch(/age/);
      await page.fill('#q-c1-age', '36');
      await page.click(`${card} button[type=submit]`);
      await page.waitForSelector('.chat .assistant:has-text("Hello Ada.")');
      expect(await page.textContent('[data-answered="c1"]')).toContain('Answered');
      expect(await elicited()).toEqual([{ action: 'accept', content: { name: 'Ada', age: 36 } }]);
    });

    it('a URL question shows an https page as a link it never opens; Decline answers', async () => {
      const pages = chromium.context.pages().length;
      await send('asker', 'sign me in');
      const card = '[data-question="c2"]';
      await page.waitForSelector(card);
      const link = await page.$(`${card} a[data-field="question.url"]`);
      expect(await link?.getAttribute('href')).toBe('https://tracker.example/login');
      expect(await link?.getAttribute('rel')).toBe('noopener noreferrer');
      expect(chromium.context.pages()).toHaveLength(pages);
      expect(await axeViolations()).toEqual([]);
      await page.click(`${card} button:has-text("Decline")`);
      await page.waitForSelector('.chat .assistant:has-text("Not signed in.")');
      expect((await elicited()).at(-1)).toEqual({ action: 'decline' });
    });

    it('a URL question with a non-https page shows it as text, not a link; Cancel answers', async () => {
      await send('asker', 'sign me in again');
      const card = '[data-question="c3"]';
      await page.waitForSelector(card);
      expect(await page.$(`${card} a`)).toBeNull();
      expect(await page.textContent(`${card} code[data-field="question.url"]`)).toBe(
        'http://tracker.example/login',
      );
      await page.click(`${card} button:has-text("Cancel")`);
      await page.waitForSelector('.chat .assistant:has-text("Cancelled it.")');
      expect((await elicited()).at(-1)).toEqual({ action: 'cancel' });
    });

    it('a picked image and PDF reach the model as content parts', async () => {
      await page.goto(`${studio.url}#/conversation`);
      await page.waitForSelector('main[data-page="conversation"] #message');
      await page.selectOption('main select', 'looker');
      await page.setInputFiles('#attach', [
        { name: 'chart.png', mimeType: 'image/png', buffer: PNG },
        { name: 'report.pdf', mimeType: 'application/pdf', buffer: PDF },
      ]);
      await page.waitForSelector('[data-attachment="report.pdf"]');
      await page.fill('#message', 'What is this?');
      await page.click('form.composer button[type=submit]');
      await page.waitForSelector('.chat .assistant:has-text("A chart and a report.")');
      expect(await page.$('[data-sent-attachment="chart.png"]')).not.toBeNull();
      expect(lastUserContent(looker)).toEqual({
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
          {
            type: 'file',
            file: {
              filename: 'report.pdf',
              file_data: `data:application/pdf;base64,${PDF.toString('base64')}`,
            },
          },
        ],
      });
    });

    it('a dropped image for a model that takes none fails before any request, naming the setting', async () => {
      await page.goto(`${studio.url}#/conversation`);
      await page.waitForSelector('main[data-page="conversation"] #message');
      await page.selectOption('main select', 'blind');
      const dataTransfer = await page.evaluateHandle(
        (bytes) => {
          // In the page: the DOM's DataTransfer (this file is typed for Node).
          const page = globalThis as unknown as {
            DataTransfer: new () => { items: { add(file: File): void } };
          };
          const transfer = new page.DataTransfer();
          transfer.items.add(new File([new Uint8Array(bytes)], 'photo.png', { type: 'image/png' }));
          return transfer;
        },
        [...PNG],
      );
      await page.dispatchEvent('form.composer', 'drop', { dataTransfer });
      await page.waitForSelector('[data-attachment="photo.png"]');
      await page.fill('#message', 'look');
      await page.click('form.composer button[type=submit]');
      await page.waitForSelector('.chat .error');
      expect(await page.textContent('.chat .error')).toMatch(
        /text-model.*does not take images.*capabilities\.images/,
      );
      expect(blind.requests).toHaveLength(0);
    });

    it('the server refuses an attachment over the cap or of an unknown type, and an unknown question', async () => {
      const big = await api('/api/agents/looker/runs', {
        input: 'big',
        attachments: [{ name: 'big.png', data: Buffer.alloc(20 * 1024 * 1024 + 1).toString('base64') }],
      });
      expect(big.status).toBe(413);
      expect(((await big.json()) as { error: { code: string } }).error.code).toBe('attachment_too_large');
      const exe = await api('/api/agents/looker/runs', {
        input: 'run this',
        attachments: [{ name: 'tool.exe', data: 'AAAA' }],
      });
      expect(exe.status).toBe(400);
      expect(((await exe.json()) as { error: { message: string } }).error.message).toMatch(
        /tool\.exe.*cannot tell what kind of file/,
      );
      const requests = looker.requests.length;
      const noRun = await api('/api/agents/asker/runs/nope/inputs', { callId: 'x', action: 'decline' });
      expect(noRun.status).toBe(404);
      expect(looker.requests).toHaveLength(requests);
    });
  },
);
