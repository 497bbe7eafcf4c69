import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import type { RafPlugin } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadExtension } from '../registry/extension-loader.js';
import { DeclAgentBuilder } from './decl-agent-builder.js';
import { parseSubAgentData } from './sub-agent-data.js';

// An extension package installed in the agent's project: each factory call appends a line
// `<pid> <tag> <kind> <entry>` to `$RAF_COUNTING_LOG`, `tag` being the option it was made with.
const PLUGIN = `import { appendFileSync } from 'node:fs';
export function countingPlugin(options = {}) {
  const log = (kind, decl) =>
    appendFileSync(process.env.RAF_COUNTING_LOG, \`\${process.pid} \${options.tag ?? 'none'} \${kind} \${decl.name}\\n\`);
  return {
    specificationVersion: 'v1',
    packageName: 'raf-counting',
    options,
    toolKinds: {
      counted(decl) {
        log('tool', decl);
        return [{ name: decl.name, description: 'counts', parameters: { type: 'object', properties: {} },
          async execute() { return { ok: true, data: 'counted' }; } }];
      },
    },
    contextKinds: {
      counted(decl) {
        log('context', decl);
        return { name: decl.name, kind: 'counted' };
      },
    },
  };
}
`;

let dir: string;
let server: MockModelServer | undefined;
let log: string;
const savedLog = process.env.RAF_COUNTING_LOG;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-sub-data-')));
  const pkg = join(dir, 'node_modules', 'raf-counting');
  await mkdir(pkg, { recursive: true });
  await writeFile(
    join(pkg, 'package.json'),
    JSON.stringify({ name: 'raf-counting', type: 'module', exports: './index.mjs' }),
  );
  await writeFile(join(pkg, 'index.mjs'), PLUGIN);
  log = join(dir, 'factory-calls.log');
  await writeFile(log, '');
  // The worker inherits the environment: its factory calls land in the same file.
  process.env.RAF_COUNTING_LOG = log;
});
afterEach(async () => {
  if (savedLog === undefined) delete process.env.RAF_COUNTING_LOG;
  else process.env.RAF_COUNTING_LOG = savedLog;
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function scripted(scripts: Record<string, object[]>) {
  const queues = Object.fromEntries(Object.entries(scripts).map(([k, v]) => [k, [...v]]));
  server = await startMockModelServer({
    turns: (request) => queues[String(request.body?.model)]?.shift() ?? { text: 'nothing scripted' },
  });
}

const model = (id: string) =>
  `{ id: ${id}, provider: custom, connection: { endpoint: "${server?.baseURL}" } }`;

describe("a sub-agent's worker gets its definition as data", () => {
  it('builds that one sub-agent: 2 factory calls (its inherited context and its tool), with the plugin options the parent used', async () => {
    await scripted({
      coordinator: [
        { toolCalls: [{ id: 'd1', name: 'delegate_task', arguments: { agent: 'researcher', task: 'go' } }] },
        { text: 'done' },
      ],
      researcher: [{ text: 'researched' }],
    });
    const file = join(dir, 'agent.yaml');
    await writeFile(
      file,
      `name: coordinator
model: ${model('coordinator')}
contexts:
  - { kind: counted, name: shared }
subAgents:
  - name: researcher
    model: ${model('researcher')}
    tools: [{ kind: counted, name: research }]
  - name: writer
    model: ${model('writer')}
    tools: [{ kind: counted, name: write }]
`,
    );
    const plugin = (await loadExtension('raf-counting', dir, { tag: 'parent-options' })) as RafPlugin;
    await using builder = new DeclAgentBuilder().fromFile(file).use(plugin);
    const agent = await builder.build();
    const lines = async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean);
    // The parent builds the coordinator and both sub-agents (inline runs, proxied tools, inspect).
    expect((await lines()).filter((l) => l.startsWith(`${process.pid} `))).toHaveLength(5);
    const updates = [];
    for await (const u of agent.run('start')) updates.push(u);
    expect(
      updates.filter((u) => u.type === 'tool-called').map((u) => u.type === 'tool-called' && u.result),
    ).toEqual([{ ok: true, data: { agent: 'researcher', answer: 'researched' } }]);
    const inWorker = (await lines())
      .filter((l) => !l.startsWith(`${process.pid} `))
      .map((l) => l.replace(/^\d+ /, ''));
    // Before, the worker read the file again and planned the root and every sibling (5 calls), with
    // the plugin made again without its options (`none`).
    expect(inWorker.sort()).toEqual(['parent-options context shared', 'parent-options tool research']);
  }, 60_000);

  it('keeps a sub-agent inline, with a warning, when its kinds come from a plugin whose options are code', async () => {
    const file = join(dir, 'agent.yaml');
    await writeFile(
      file,
      `name: coordinator
model: { id: c, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }
subAgents:
  - name: researcher
    model: { id: r, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }
    tools: [{ kind: counted, name: research }]
  - name: writer
    model: { id: w, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }
`,
    );
    const plugin = (await loadExtension('raf-counting', dir)) as RafPlugin;
    const report = await new DeclAgentBuilder()
      .fromFile(file)
      .use({ ...plugin, options: false })
      .validate();
    expect(report.ok).toBe(true);
    expect(report.warnings.map((w) => w.message)).toEqual([
      "sub-agent 'researcher' runs inline: raf-counting was registered with options that are code, which a worker process cannot get (say runtime: inline to keep this quiet)",
    ]);
  });

  it('is checked on arrival: a definition that is not one is refused with the field named', () => {
    expect(() => parseSubAgentData({ version: 1, name: 'x' })).toThrow(/definition: /);
    expect(() => parseSubAgentData({ version: 2 })).toThrow(/version: /);
  });
});
