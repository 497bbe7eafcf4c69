import { fileURLToPath } from 'node:url';
import { createMemoryIO, main } from '@raf/cli';
import { describe, expect, it } from 'vitest';
import { startDemoServers } from './demo-servers.js';
import { ask, scoutAgent } from './main.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const QUESTION =
  'We would like to adopt a calm older dog. What should we know, and does the shelter have one?';

describe('the web-and-openapi example', () => {
  it('has web_search and web_fetch (rule 6) and one tool per chosen operation', async () => {
    const plan = await scoutAgent({
      SEARCH_URL: 'http://127.0.0.1:9',
      SHELTER_URL: 'x',
      SHELTER_API_KEY: 'k',
    })
      .explain()
      .catch((error: Error) => error);
    // The spec is fetched at build time: without the demo servers the plan names the failure.
    expect(String(plan)).toMatch(/cannot load the spec x\/openapi\.json/);
    const servers = await startDemoServers();
    try {
      const real = await scoutAgent(servers.env).explain();
      expect(real.tools.map((t) => [t.name, t.kind, t.route])).toEqual([
        ['web_search', 'web', 'worker-local'],
        ['web_fetch', 'web', 'worker-local'],
        ['listDogs', 'openapi', 'main-process-proxy'],
        ['getDog', 'openapi', 'main-process-proxy'],
      ]);
    } finally {
      await servers.close();
    }
  });

  it('answers offline on its recorded model: searches, reads the page, asks the shelter API', async () => {
    let output = '';
    const { response, seen } = await ask(QUESTION, (t) => (output += t));
    expect(response.finishReason).toBe('stop');
    expect(output).toContain(
      '→ web_search {"ok":true,"data":{"query":"adopting a senior dog what to know","backend":"searxng"',
    );
    expect(output).toContain(
      '→ web_fetch {"ok":true,"data":{"url":"http://127.0.0.1:48213/guides/senior-dogs","status":200',
    );
    expect(output).toContain(
      '→ listDogs {"ok":true,"data":{"status":200,"body":[{"id":"d-101","name":"Biscuit"',
    );
    expect(output).toMatch(/The shelter has two calm seniors: Biscuit, .* and Pepper, /);
    const page = response.toolResults.find((r) => r.name === 'web_fetch')?.result.data as Record<
      string,
      string
    >;
    expect(page).toMatchObject({
      title: expect.stringMatching(/^Adopting a senior dog/),
      byline: 'Dr. Lena Park',
    });
    expect(page.content).toContain('## Before you adopt\n\n-   Ask the shelter for the dog');
    expect(page.content).not.toMatch(/orthopaedic beds|analytics/);
    expect(seen).toEqual([
      'GET /openapi.json',
      'GET /search?q=adopting+a+senior+dog+what+to+know&format=json',
      'GET /guides/senior-dogs',
      'GET /api/dogs?age=senior&temperament=calm [key demo-shelter-key]',
    ]);
  });

  it('runs the same file with the raf CLI, which registers the installed extensions by itself', async () => {
    const servers = await startDemoServers();
    try {
      const run = createMemoryIO({ cwd: here, env: servers.env });
      expect(await main(['run', 'agent.yaml', '-i', QUESTION], run.io), run.err()).toBe(0);
      expect(run.err().split('\n').filter(Boolean)).toEqual([
        '→ web_search {"query":"adopting a senior dog what to know","max_results":3} ✓ done',
        '→ web_fetch {"url":"http://127.0.0.1:48213/guides/senior-dogs","mode":"markdown"} ✓ done',
        '→ listDogs {"age":"senior","temperament":"calm"} ✓ done',
      ]);
      expect(run.out()).toMatch(/^From “Adopting a senior dog/);
    } finally {
      await servers.close();
    }
  });
});
