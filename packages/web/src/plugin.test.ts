import { DeclAgentBuilder } from '@raf/decl';
import { manifestOf } from '@raf/framework';
import { describe, expect, it } from 'vitest';
import { webConfigSchema } from './config/web-config.js';
import { webPlugin } from './plugin.js';

const agent = (tools: string) => `kind: prompt
name: researcher
model: { id: m, provider: openai, connection: { apiKey: sk-test } }
tools:
${tools}
`;

describe('webPlugin', () => {
  it('expands a nameless kind: web to web_search and web_fetch (rule 6): builtin, parallel, worker-local', async () => {
    const builder = new DeclAgentBuilder().fromYaml(agent('  - kind: web')).use(webPlugin());
    const plan = await builder.explain();
    expect(plan.tools.map((t) => [t.name, t.kind, t.source, t.executionMode, t.route, t.gated])).toEqual([
      ['web_search', 'web', 'static', 'parallel', 'worker-local', false],
      ['web_fetch', 'web', 'static', 'parallel', 'worker-local', false],
    ]);
    const built = await builder.build();
    expect(built).toBeDefined();
  });

  it('builds one named tool with its config, snake_case keys accepted', async () => {
    const yaml = agent(`  - kind: web
    name: web_fetch
    config: { default_mode: plaintext, max_bytes: 1000000, allow_private: [10.0.0.0/8, intranet.local] }`);
    const plan = await new DeclAgentBuilder().fromYaml(yaml).use(webPlugin()).explain();
    expect(plan.tools.map((t) => t.name)).toEqual(['web_fetch']);
  });

  it('gives the tools the builtin manifests of the framework', async () => {
    const plugin = webPlugin();
    const tools = await plugin.toolKinds!.web!(
      { kind: 'web', name: 'web_search' },
      { baseDir: '.', env: {}, warn: () => {} },
    );
    expect(manifestOf(tools[0]!)).toMatchObject({
      kind: 'builtin',
      executionMode: 'parallel',
      workerRoutingHint: 'local',
    });
  });

  it('reports config mistakes at the entry, naming the field', async () => {
    const yaml = agent(`  - kind: web
    name: web_fetch
    config: { maxBytes: lots }
  - kind: web
    name: web_crawl
  - kind: web
    name: web_search
    config: { backend: brave }
  - kind: web
    name: web_fetch
    config: { allowPrivate: [10.0.0.0/33] }`);
    const report = await new DeclAgentBuilder().fromYaml(yaml).use(webPlugin()).validate();
    expect(report.errors.map((e) => `${e.line}:${e.column} ${e.message}`)).toEqual([
      '7:25 Invalid input: expected number, received string',
      '9:11 kind: web has the tools web_search, web_fetch, http_request (got "web_crawl")',
      '11:11 web_search backend "brave" needs an API key: config.apiKey (e.g. $BRAVE_API_KEY) or BRAVE_API_KEY in the environment',
      '14:11 kind: web config.allowPrivate: "10.0.0.0/33" is not a valid CIDR range (e.g. 10.0.0.0/8, fd00::/8)',
    ]);
  });

  it('without the plugin, the YAML says which package to install', async () => {
    const report = await new DeclAgentBuilder().fromYaml(agent('  - kind: web')).validate();
    expect(report.errors[0]?.message).toBe(
      'tool kind "web" needs @raf/web (pnpm add @raf/web; builder.use(webPlugin()))',
    );
  });

  it('exports the config schema for editors and the plugin contract', () => {
    expect(webConfigSchema.parse({})).toMatchObject({
      backend: 'duckduckgo',
      maxResults: 5,
      defaultMode: 'markdown',
    });
    expect(webConfigSchema.safeParse({ unknown: 1 }).success).toBe(false);
  });
});
