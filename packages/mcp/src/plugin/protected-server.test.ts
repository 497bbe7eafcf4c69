import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ScriptedChatClient } from '@raf/client/testing';
import { definePlugin } from '@raf/core';
import { DeclAgentBuilder } from '@raf/decl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collect } from '../test-support/agents.js';
import { type McpPlugin, mcpPlugin } from './mcp-plugin.js';

// Issue 26, "what the agent file executes or loads is protected" (High): with `root: .` and a
// stdio server whose script sits in the root, a model under `deny` rewrote `server.mjs`, and the
// server's restart ran its code as a plain child of raf. The script is a protected path now.

const sdk = (path: string) => pathToFileURL(createRequire(import.meta.url).resolve(path)).href;
// A real MCP server on the official SDK, imported by absolute URL (the folder has no node_modules).
const SERVER = `import { McpServer } from '${sdk('@modelcontextprotocol/sdk/server/mcp.js')}';
import { StdioServerTransport } from '${sdk('@modelcontextprotocol/sdk/server/stdio.js')}';
const server = new McpServer({ name: 'notes', version: '1.0.0' });
server.registerTool('ping', { description: 'Answers pong' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
await server.connect(new StdioServerTransport());
`;
const EVIL = "import { writeFileSync } from 'node:fs'; writeFileSync('pwned', 'model code ran');\n";

let dir: string;
let plugin: McpPlugin | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-mcp-protect-')));
});
afterEach(async () => {
  await plugin?.close();
  plugin = undefined;
  await rm(dir, { recursive: true, force: true });
});

function builder(client: ScriptedChatClient): DeclAgentBuilder {
  plugin = mcpPlugin();
  return new DeclAgentBuilder()
    .fromYamlFile(join(dir, 'agent.yaml'))
    .use(plugin)
    .use(
      definePlugin({
        specificationVersion: 'v1',
        packageName: 'scripted-model',
        modelProviders: { scripted: () => client },
      }),
    )
    .strictMode({ unknownKeys: true })
    .withEnvironment({ PATH: process.env.PATH ?? '' });
}

async function agentFile(
  policy: string,
  server = 'config: { command: node, args: [./server.mjs] }',
): Promise<void> {
  await writeFile(join(dir, 'server.mjs'), SERVER);
  await writeFile(
    join(dir, 'agent.yaml'),
    `name: a\nmodel: { id: scripted, provider: scripted }\ncontexts:\n  - kind: workspace\n    name: project\n    config: { root: ., policy: ${policy} }\n  - kind: mcp\n    name: notes\n    ${server}\ntools:\n  - kind: file\n  - kind: file\n    name: apply_patch\n`,
  );
}

const attack = [
  { id: 'w', name: 'write_file', arguments: { path: 'server.mjs', content: EVIL } },
  { id: 'e', name: 'edit_file', arguments: { path: 'server.mjs', old_str: "'pong'", new_str: "'owned'" } },
  {
    id: 'p',
    name: 'apply_patch',
    arguments: {
      patch: "--- a/server.mjs\n+++ b/server.mjs\n@@ -1 +1 @@\n-import { McpServer }\n+import 'evil';\n",
    },
  },
  { id: 'm', name: 'move_file', arguments: { from: 'server.mjs', to: 'old.mjs' } },
  { id: 'r', name: 'remove_path', arguments: { path: 'server.mjs' } },
  { id: 'read', name: 'read_file', arguments: { path: 'server.mjs' } },
];

describe('a stdio server script inside the root is a protected path', { timeout: 60_000 }, () => {
  for (const policy of ['deny', 'approve']) {
    it(`under ${policy}, the model cannot rewrite, move or remove server.mjs (it may read it)`, async () => {
      await agentFile(policy);
      const client = new ScriptedChatClient([{ toolCalls: attack }, { text: 'done' }]);
      const agent = await builder(client).build();
      const updates = await collect(agent, 'go');
      const results = Object.fromEntries(
        updates
          .filter((u) => u.type === 'tool-called')
          .map((u) => [
            (u as { callId: string }).callId,
            (u as { result: { ok: boolean; error?: string } }).result,
          ]),
      );
      for (const id of ['w', 'e', 'p', 'm', 'r']) {
        expect(results[id], id).toMatchObject({ ok: false });
        expect(results[id]?.error, id).toMatch(/Protected path: .*server\.mjs.*\(MCP server 'notes'\)/);
      }
      expect(results.read).toMatchObject({ ok: true });
      expect(await readFile(join(dir, 'server.mjs'), 'utf8')).toBe(SERVER);
      // No approval was asked: a protected write is refused outright under approve and deny.
      expect(updates.some((u) => u.type === 'tool-approval-request')).toBe(false);
    });
  }

  it('inspect lists the script as protected (reads allowed, writes refused)', async () => {
    await agentFile('deny');
    const plan = await builder(new ScriptedChatClient([])).explain();
    const rules = plan.contexts.find((c) => c.kind === 'workspace')?.protectedPaths ?? [];
    expect(rules).toContainEqual({
      path: join(dir, 'server.mjs'),
      reason: "MCP server 'notes'",
      reads: 'allowed',
      writes: 'refused',
    });
  });
});

// Issue 26 (attack-ext, mcp-env): `--require=./pre.cjs` in `args` was protected, the same file
// named in the server's `env` was not: with `NODE_OPTIONS: "--require ./pre2.cjs"` and `deny`,
// `write_file pre2.cjs` succeeded and the next start of the server ran the planted code.
describe('files a stdio server loads through its env are protected paths', { timeout: 60_000 }, () => {
  // Node reads double quotes in NODE_OPTIONS (a path with a space); the shell splitting does too.
  const ENV_SERVER = `config: { command: node, args: [./server.mjs], cwd: srv, env: { NODE_OPTIONS: '--require ./pre.cjs --import="./hooks dir/hook.mjs"', STARTUP: ./startup.py, PLAIN: not-a-file } }`;
  async function envAgent(policy: string): Promise<void> {
    await agentFile(policy, ENV_SERVER);
    await mkdir(join(dir, 'srv', 'hooks dir'), { recursive: true });
    await writeFile(join(dir, 'srv', 'pre.cjs'), '');
    await writeFile(join(dir, 'srv', 'hooks dir', 'hook.mjs'), '');
    await writeFile(join(dir, 'srv', 'startup.py'), '');
    await writeFile(join(dir, 'srv', 'server.mjs'), SERVER);
  }
  const targets = ['srv/pre.cjs', 'srv/hooks dir/hook.mjs', 'srv/startup.py'];

  for (const policy of ['deny', 'approve']) {
    it(`under ${policy}, the model cannot rewrite a NODE_OPTIONS --require / --import file or a file an env value names`, async () => {
      await envAgent(policy);
      const calls = targets.map((path, i) => ({
        id: `w${i}`,
        name: 'write_file',
        arguments: { path, content: EVIL },
      }));
      const client = new ScriptedChatClient([{ toolCalls: calls }, { text: 'done' }]);
      const agent = await builder(client).build();
      const updates = await collect(agent, 'go');
      const results = updates
        .filter((u) => u.type === 'tool-called')
        .map((u) => (u as { result: { ok: boolean; error?: string } }).result);
      expect(results).toHaveLength(targets.length);
      for (const [i, result] of results.entries()) {
        expect(result, targets[i]).toMatchObject({ ok: false });
        expect(result.error, targets[i]).toMatch(/Protected path: .*\(MCP server 'notes'\)/);
      }
      for (const path of targets) expect(await readFile(join(dir, path), 'utf8')).toBe('');
      expect(updates.some((u) => u.type === 'tool-approval-request')).toBe(false);
    });
  }

  it('inspect lists them; a value that names no file (and the folder) is not listed', async () => {
    await envAgent('deny');
    const plan = await builder(new ScriptedChatClient([])).explain();
    const rules = plan.contexts.find((c) => c.kind === 'workspace')?.protectedPaths ?? [];
    const paths = rules.filter((r) => r.reason === "MCP server 'notes'").map((r) => r.path);
    expect(paths.sort()).toEqual([...targets, 'srv/server.mjs'].map((p) => join(dir, p)).sort());
  });
});
