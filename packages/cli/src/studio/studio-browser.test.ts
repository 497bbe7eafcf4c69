import { readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { buildStudioIfMissing, hasChromium, launchChromium, type StudioBrowser } from '@raf/studio/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RunningStudio,
  removeProject,
  startStudio,
  studioProject,
} from './test-support/studio-fixture.js';

// `pnpm --filter @raf/studio screenshots` sets this to write the pages' screenshots.
const SCREENSHOTS = process.env.RAF_STUDIO_SCREENSHOTS;
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const LANGS = ['en', 'zh-CN'] as const;
const PAGES = ['tools', 'agent', 'conversation'] as const;

let project: string;
let studio: RunningStudio;
let model: MockModelServer;
let chromium: StudioBrowser;
let page: Page;

const api = async <T>(path: string): Promise<T> =>
  (
    await fetch(`${studio.origin}${path}`, { headers: { authorization: `Bearer ${studio.token}` } })
  ).json() as Promise<T>;

type Labels = {
  routes: Record<string, Record<string, string>>;
  states: Record<string, Record<string, string>>;
};
type Json = Record<string, unknown>;

/** Every `data-field` under `scope` as `{ field: value }` (from `data-value`, the JSON it shows). */
async function fieldsIn(scope: string): Promise<Record<string, unknown>> {
  return page.$$eval(`${scope} [data-field]`, (nodes) =>
    Object.fromEntries(
      nodes.map((n) => [n.getAttribute('data-field'), JSON.parse(n.getAttribute('data-value') ?? 'null')]),
    ),
  );
}

/** The leaves of a tool's JSON as `tool.<name>.<path>` (arrays kept whole). */
function leaves(prefix: string, value: unknown, out: Record<string, unknown> = {}): Record<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    for (const [key, inner] of Object.entries(value)) leaves(`${prefix}.${key}`, inner, out);
  else out[prefix] = value;
  return out;
}

/** What each page shows once its data is in. */
const READY: Record<string, string> = {
  tools: '[data-tool]',
  agent: '[data-field="plan.name"]',
  conversation: '#message',
};

async function open(hash: string, lang: (typeof LANGS)[number] = 'en') {
  await page.goto(`${studio.url}#/${hash}`);
  await page.selectOption('header select', lang);
  await page
    .waitForSelector(`main[data-page="${hash}"] ${READY[hash]}`, { state: 'attached', timeout: 15_000 })
    .catch(async (error: Error) => {
      throw new Error(`${error.message}\npage: ${await page.textContent('main')}`);
    });
}

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

describe.runIf(hasChromium())('raf studio in Chromium', () => {
  beforeAll(async () => {
    buildStudioIfMissing();
    model = await startMockModelServer({
      turns: [
        {
          toolCalls: [
            {
              id: 'w1',
              name: 'write_file',
              arguments: { path: '../scratch/todo.md', content: 'new line\n' },
            },
          ],
        },
        { text: 'Written.' },
        // A slow answer, stopped halfway by the Stop button.
        { text: 'one two three four five six seven eight nine ten', chunkDelayMs: 400 },
        // One paused write per language for the screenshots.
        ...['w2', 'w3'].map((id) => ({
          toolCalls: [
            {
              id,
              name: 'write_file',
              arguments: { path: '../scratch/todo.md', content: 'new line\nsecond line\n' },
            },
          ],
        })),
      ],
    });
    project = await studioProject(model.baseURL);
    studio = await startStudio(project, ['agent.yaml', 'writer-agent.yaml']);
    chromium = await launchChromium();
    page = await chromium.context.newPage();
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
    expect(await studio?.stop()).toBe(0);
    await model?.close();
    if (project) await removeProject(project);
  });

  it('a wrong token gets 401, the right one the app', async () => {
    expect((await page.goto(`${studio.origin}/?token=wrong`))?.status()).toBe(401);
    expect((await page.goto(`${studio.origin}/`))?.status()).toBe(401);
    expect((await page.goto(studio.url))?.status()).toBe(200);
  });

  it('renders the first page within 1 s (navigation start to the Tools table, in a fresh tab)', async () => {
    // The first load of a process pays for compiling the server's code paths; a user's page comes after.
    await page.goto(studio.url);
    await page.waitForSelector('main [data-tool]');
    const tab = await chromium.context.newPage();
    try {
      await tab.goto(studio.url);
      await tab.waitForSelector('main [data-tool]');
      const ms = await tab.evaluate(() => performance.now());
      console.info(`studio first render: ${Math.round(ms)} ms`);
      expect(ms).toBeLessThanOrEqual(1000);
    } finally {
      await tab.close();
    }
  });

  it('Tools page: every tool shows exactly the governance API’s JSON, field by field, in both languages', async () => {
    const report = await api<{ tools: Json[] }>('/api/governance');
    const labels = await api<Labels>('/api/labels');
    for (const lang of LANGS) {
      await open('tools', lang);
      for (const tool of report.tools) {
        const name = tool.name as string;
        const shown = await fieldsIn(`tr[data-tool="${name}"]`);
        const expected = leaves(`tool.${name}`, { ...tool, aliases: undefined });
        for (const [field, value] of Object.entries(expected)) {
          if (value === undefined || (field.endsWith('.aliases') && (value as unknown[]).length === 0))
            continue;
          expect(shown[field], `${lang} ${field}`).toEqual(value);
        }
        if (tool.profile) {
          const text = await page.textContent(
            `tr[data-tool="${name}"] [data-field="tool.${name}.profile.route"]`,
          );
          expect(text).toBe(labels.routes[(tool.profile as { route: string }).route]![lang]);
        }
      }
    }
  });

  it('Agent page: the plan and every agent’s and sub-agent’s tools equal explain() and runtimeDiagnostic()', async () => {
    const plan = await api<Json & { tools: Json[]; runtime: Json }>('/api/agents/coordinator/plan');
    const labels = await api<Labels>('/api/labels');
    for (const lang of LANGS) {
      await open('agent', lang);
      const planFields = await fieldsIn('main');
      for (const tool of plan.tools)
        for (const [field, value] of Object.entries(leaves(`plan.tool.${tool.name}`, tool)))
          if (!field.endsWith('.context') && !field.endsWith('.server'))
            expect(planFields[field], field).toEqual(value);
      const runtime = plan.runtime as {
        agent: string;
        tools: Json[];
        subAgents: { agent: string; tools: Json[] }[];
      };
      for (const d of [runtime, ...runtime.subAgents]) {
        for (const tool of d.tools) {
          const scope = `section[data-agent="${d.agent}"] tr[data-tool="${tool.name}"]`;
          const shown = await fieldsIn(scope);
          const { label: _label, ...dynamic } = tool.runtime as Json;
          const expected = leaves(`tool.${tool.name}`, {
            governance: tool.governance,
            profile: tool.profile,
            runtime: dynamic,
          });
          for (const [field, value] of Object.entries(expected)) {
            expect(shown[field], `${lang} ${d.agent} ${field}`).toEqual(value);
          }
          const route = (tool.runtime as { route: string }).route;
          expect(await page.textContent(`${scope} [data-field="tool.${tool.name}.runtime.route"]`)).toBe(
            labels.routes[route]![lang],
          );
          const why =
            (tool.runtime as { label: Record<string, string> | null; state: string }).label ??
            labels.states[(tool.runtime as { state: string }).state]!;
          expect(
            await page.textContent(`${scope} [data-field="tool.${tool.name}.runtime.blockedReason"]`),
          ).toBe(why[lang]);
        }
      }
    }
  });

  it('Agent page: a sub-agent’s changed selection and toolPolicy preview exactly the preview API’s JSON', async () => {
    const plan = await api<Json & { toolPolicy: unknown; orchestration: { subAgents: Json[] } }>(
      '/api/agents/coordinator/plan',
    );
    const labels = await api<Labels>('/api/labels');
    const change = {
      subAgent: 'researcher',
      selection: ['list_files', 'read_file'],
      toolPolicy: { disabled: ['read_file'], routing: { list_files: 'force-main-process-proxy' } },
    };
    const post = async (path: string) =>
      (
        await fetch(`${studio.origin}/api/agents/coordinator/${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${studio.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(change),
        })
      ).json() as Promise<Json>;
    const expected = (await post('diagnostic/preview')) as { subAgents: { agent: string; tools: Json[] }[] };
    const researcher = expected.subAgents.find((s) => s.agent === 'researcher')!;
    const file = (await post('yaml/preview')) as { section: string };
    for (const lang of LANGS) {
      await page.goto('about:blank'); // a fresh page: the editor starts from the file as written
      await open('agent', lang);
      // The overrides as written: none in the example.
      const overrides = await fieldsIn('main');
      expect(overrides['plan.toolPolicy']).toEqual(plan.toolPolicy);
      for (const sub of plan.orchestration.subAgents)
        expect(overrides[`plan.subAgent.${sub.name}.toolPolicy`]).toEqual(sub.toolPolicy);
      const preview = '[data-preview] section[data-preview-agent="researcher"]';
      await page
        .waitForSelector(`${preview} tr[data-tool="search_file"]`, { state: 'attached', timeout: 15_000 })
        .catch(async (error: Error) => {
          throw new Error(`${error.message}\npage: ${await page.textContent('[data-preview-editor]')}`);
        });
      await page.uncheck('tr[data-choice="search_file"] input[type=checkbox]');
      await page.selectOption('select[data-override="read_file"]', 'disabled');
      await page.selectOption('select[data-routing="list_files"]', 'force-main-process-proxy');
      await page.waitForSelector(
        `${preview} [data-field="tool.list_files.governance.workerRoutingStrategy"][data-value='"force-main-process-proxy"']`,
      );
      expect(
        await page.$$eval(`${preview} tr[data-tool]`, (rows) => rows.map((r) => r.getAttribute('data-tool'))),
      ).toEqual(researcher.tools.map((t) => t.name));
      for (const tool of researcher.tools) {
        const scope = `${preview} tr[data-tool="${tool.name}"]`;
        const shown = await fieldsIn(scope);
        const { label: _label, ...dynamic } = tool.runtime as Json;
        const fields = leaves(`tool.${tool.name}`, {
          governance: tool.governance,
          profile: tool.profile,
          runtime: dynamic,
        });
        for (const [field, value] of Object.entries(fields))
          expect(shown[field], `${lang} preview ${field}`).toEqual(value);
        const runtime = tool.runtime as {
          route: string;
          state: string;
          label: Record<string, string> | null;
        };
        expect(await page.textContent(`${scope} [data-field="tool.${tool.name}.runtime.route"]`)).toBe(
          labels.routes[runtime.route]![lang],
        );
        expect(
          await page.textContent(`${scope} [data-field="tool.${tool.name}.runtime.blockedReason"]`),
        ).toBe((runtime.label ?? labels.states[runtime.state]!)[lang]);
      }
      expect((await fieldsIn('[data-preview]'))['preview.section']).toBe(file.section);
      expect(await axeViolations(), `agent page with a preview, ${lang}`).toEqual([]);
    }
  }, 60_000);

  it('toggling a tool on the Tools page changes the Agent page and the next run’s routes', async () => {
    const route = (scope: string) =>
      page.getAttribute(`${scope} [data-field="tool.search_file.runtime.route"]`, 'data-value');
    await open('agent');
    expect(await route('section[data-agent="researcher"]')).toBe('"worker-local"');
    await open('tools');
    await page.uncheck('tr[data-tool="search_file"] input[type=checkbox] >> nth=0');
    await page.waitForSelector(
      'tr[data-tool="search_file"] [data-field="tool.search_file.governance.enabled"][data-value="false"]',
    );
    await open('agent');
    expect(await route('section[data-agent="researcher"]')).toBe('"disabled"');
    await open('conversation');
    await page.fill('#message', 'Summarise the meeting notes into summary.md');
    await page.click('form.composer button[type=submit]');
    await page.waitForSelector('.chat li:has-text("Done.")', { timeout: 45_000 });
    // The delegation to the researcher shows its routes for this run.
    const batch = '.batch section[data-agent="researcher"]';
    await page.waitForSelector(batch);
    expect(await route(batch)).toBe('"disabled"');
    expect(await route('[data-run-routes] section[data-agent="researcher"]')).toBe('"disabled"');
    await open('tools');
    await page.check('tr[data-tool="search_file"] input[type=checkbox] >> nth=0');
    await page.waitForSelector(
      'tr[data-tool="search_file"] [data-field="tool.search_file.governance.enabled"][data-value="true"]',
    );
  }, 60_000);

  it('an approval in the Conversation page shows the target and the diff, and resumes the run', async () => {
    await open('conversation');
    await page.selectOption('main select', 'scribe');
    await page.fill('#message', 'update the to-do list');
    await page.click('form.composer button[type=submit]');
    await page.waitForSelector('[data-approval="w1"] [data-field="approval.diff"]');
    expect(
      await page.getAttribute('[data-approval="w1"] [data-field="approval.resolvedTarget"]', 'data-value'),
    ).toBe(JSON.stringify(join(project, 'scratch/todo.md')));
    expect(await page.textContent('[data-approval="w1"] [data-field="approval.diff"]')).toContain(
      '-old line\n+new line',
    );
    // How the turn paused, in words (not the `awaitingApproval` enum), in both languages.
    expect(await page.textContent('.chat')).toContain('Waiting for your approval.');
    expect(await page.textContent('.chat')).not.toContain('awaitingApproval');
    await page.selectOption('header select', 'zh-CN');
    expect(await page.textContent('.chat')).toContain('等待你的审批。');
    await page.selectOption('header select', 'en');
    await page.click('button:has-text("Approve")');
    await page.waitForSelector('.chat .assistant:has-text("Written.")');
    // The card gave way to one line saying what was decided.
    expect(await page.$('[data-approval="w1"]')).toBeNull();
    expect(await page.textContent('[data-decided="w1"]')).toContain('Approved: write_file');
    // The result reads as lines, not as raw JSON.
    const result = (await page.textContent('[data-call="w1"] .result')) ?? '';
    expect(result).toMatch(/^✓ \S+: /);
    expect(result).not.toContain('{"');
    expect(await readFile(join(project, 'scratch/todo.md'), 'utf8')).toBe('new line\n');
  }, 60_000);

  it('a Stop button while a turn streams stops it', async () => {
    await open('conversation');
    await page.selectOption('main select', 'scribe');
    await page.fill('#message', 'count slowly');
    await page.click('form.composer button[type=submit]');
    await page.waitForSelector('.chat .assistant:has-text("two")');
    await page.click('button[data-stop]');
    await page.waitForSelector('.chat li:has-text("Stopped.")');
    await page.waitForSelector('form.composer button[type=submit]');
    expect(await page.textContent('.chat')).not.toContain('nine ten');
  }, 60_000);

  it('opens on the Agent page when it serves an agent, not on the global Tools table', async () => {
    await page.goto(studio.url);
    await page.waitForSelector('main[data-page="agent"] [data-field="plan.name"]', { timeout: 15_000 });
  }, 30_000);

  it('axe finds no serious or critical violation on any page, in either language or theme', async () => {
    for (const lang of LANGS) {
      for (const name of PAGES) {
        await open(name, lang);
        if (lang === 'zh-CN') await page.check('header input[type=checkbox]');
        expect(await axeViolations(), `${name} ${lang}`).toEqual([]);
        if (lang === 'zh-CN') await page.uncheck('header input[type=checkbox]');
      }
    }
  }, 60_000);

  it('every control of each page is reachable with Tab', async () => {
    for (const name of PAGES) {
      await open(name);
      const controls = await page.$$eval(
        'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary',
        (nodes) =>
          nodes.map((n, i) => {
            n.setAttribute('data-tab-id', String(i));
            return String(i);
          }),
      );
      const reached = new Set<string>();
      await page.evaluate('document.activeElement && document.activeElement.blur()');
      for (let i = 0; i < controls.length + 5; i++) {
        await page.keyboard.press('Tab');
        const id = await page.evaluate<string | null>(
          "document.activeElement && document.activeElement.getAttribute('data-tab-id')",
        );
        if (id) reached.add(id);
      }
      expect(
        controls.filter((c) => !reached.has(c)),
        name,
      ).toEqual([]);
    }
  }, 60_000);

  it.runIf(SCREENSHOTS)(
    'writes the screenshots of the three pages in both languages',
    async () => {
      await mkdir(SCREENSHOTS!, { recursive: true });
      for (const lang of LANGS)
        for (const name of PAGES) {
          await page.goto('about:blank');
          await open(name, lang);
          if (name === 'agent') {
            // The coordinator, with a change of its researcher previewed.
            await page.selectOption('main select >> nth=0', 'coordinator');
            await page.waitForSelector('[data-preview] section[data-preview-agent="researcher"]');
            await page.uncheck('tr[data-choice="search_file"] input[type=checkbox]');
            await page.selectOption('select[data-override="read_file"]', 'disabled');
            await page.waitForSelector(
              '[data-preview] [data-field="tool.read_file.governance.enabled"][data-value="false"]',
            );
          }
          if (name === 'conversation') {
            await page.selectOption('main select', 'scribe');
            await page.fill('#message', 'add a second line to the to-do list');
            await page.click('form.composer button[type=submit]');
            await page.waitForSelector('[data-approval] [data-field="approval.diff"]', { timeout: 45_000 });
            await page.click('[data-run-routes] summary');
          }
          await shoot(name, lang);
        }
    },
    120_000,
  );
});

async function shoot(name: string, lang: string) {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: join(SCREENSHOTS!, `${name}-${lang}.png`), fullPage: true });
}
