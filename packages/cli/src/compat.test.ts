import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO as memoryIO } from './memory-io.js';

// Issue 11 through the CLI: upstream files and environments behave as the user expects.

let dir: string;
const servers: MockModelServer[] = [];
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-cli-compat-')));
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function serve(text: string): Promise<MockModelServer> {
  const server = await startMockModelServer({ turns: [{ text }] });
  servers.push(server);
  return server;
}

describe('item 5: an unregistered reference connection', () => {
  it('is a config error (exit 2) in validate and in run, and nothing is sent anywhere', async () => {
    await writeFile(
      join(dir, 'ref.yaml'),
      'name: r\nmodel:\n  id: m\n  connection: { kind: reference, name: corp }\n',
    );
    const message =
      "ref.yaml:4:40 model.connection.name: connection 'corp' is not registered; call builder.withConnection('corp', { endpoint, apiKey }) before build()";
    const validate = memoryIO({ cwd: dir });
    expect(await main(['validate', 'ref.yaml'], validate.io)).toBe(2);
    expect(validate.err()).toBe(`error: ${message}\n`);
    const run = memoryIO({ cwd: dir, env: { OPENAI_API_KEY: 'sk' } });
    expect(await main(['run', 'ref.yaml', '-i', 'hi'], run.io)).toBe(2);
    expect(run.err()).toBe(`error: ${message}\n`);
  });
});

describe('item 8: a missing skills folder', () => {
  it('warns in validate and inspect (exit 0), and fails validate --strict (exit 2)', async () => {
    await writeFile(
      join(dir, 'skills.yaml'),
      'name: s\nmodel: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }\ncontexts:\n  - kind: skills\n    name: gone\n',
    );
    const missing = `${dir}/skills/gone: the skills folder does not exist`;
    const validate = memoryIO({ cwd: dir });
    expect(await main(['validate', 'skills.yaml'], validate.io)).toBe(0);
    expect(validate.err()).toBe(
      `warning: skills.yaml:4:5 contexts[0]: ${missing}; the skills provider is skipped\n`,
    );
    expect(validate.out()).toBe('ok: skills.yaml (1 warning)\n');
    const inspect = memoryIO({ cwd: dir });
    expect(await main(['inspect', 'skills.yaml', '--json'], inspect.io)).toBe(0);
    expect(inspect.lines()[0]).toMatchObject({
      contexts: [{ kind: 'history' }],
      warnings: [expect.stringContaining(missing)],
    });
    const strict = memoryIO({ cwd: dir });
    expect(await main(['validate', 'skills.yaml', '--strict'], strict.io)).toBe(2);
    expect(strict.err()).toBe(`error: skills.yaml:4:5 contexts[0]: ${missing}\n`);
  });
});

describe('a skill behind a symbolic link', () => {
  it('is skipped with a warning naming the link in validate (exit 0), and fails validate --strict (exit 2)', async () => {
    await mkdir(join(dir, 'skills', 'mine'), { recursive: true });
    await mkdir(join(dir, 'elsewhere'));
    await writeFile(join(dir, 'elsewhere', 'SKILL.md'), '---\nname: far\ndescription: Far away\n---\nGo.\n');
    await symlink(join(dir, 'elsewhere'), join(dir, 'skills', 'mine', 'far'));
    await writeFile(
      join(dir, 'skills.yaml'),
      'name: s\nmodel: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }\ncontexts:\n  - kind: skills\n    name: mine\n',
    );
    const warning = `${dir}/skills/mine/far: the skill folder is a symbolic link; links are not followed (a link could lead outside the skills folder), so the skill is skipped`;
    const validate = memoryIO({ cwd: dir });
    expect(await main(['validate', 'skills.yaml'], validate.io)).toBe(0);
    expect(validate.err()).toBe(`warning: skills.yaml:4:5 contexts[0]: ${warning}\n`);
    const strict = memoryIO({ cwd: dir });
    expect(await main(['validate', 'skills.yaml', '--strict'], strict.io)).toBe(2);
    expect(strict.err()).toBe(`error: skills.yaml:4:5 contexts[0]: ${warning}\n`);
  });
});

describe('item 12: provider variables fill only what the file leaves empty', () => {
  it('OPENAI_BASE_URL does not redirect a deepseek agent with its own endpoint; --base-url still overrides', async () => {
    const deepseek = await serve('from deepseek');
    const elsewhere = await serve('from OPENAI_BASE_URL');
    await writeFile(
      join(dir, 'ds.yaml'),
      `name: d\nmodel: { id: deepseek-chat, provider: deepseek, connection: { endpoint: "${deepseek.baseURL}" } }\n`,
    );
    const env = { OPENAI_BASE_URL: elsewhere.baseURL, DEEPSEEK_API_KEY: 'ds-key', OPENAI_API_KEY: 'oa-key' };
    const run = memoryIO({ cwd: dir, env });
    expect(await main(['run', 'ds.yaml', '-i', 'x'], run.io)).toBe(0);
    expect(run.out()).toBe('from deepseek\n');
    expect(deepseek.requests[0]?.headers.authorization).toBe('Bearer ds-key');
    expect(elsewhere.requests).toHaveLength(0);

    await writeFile(join(dir, 'oa.yaml'), 'name: o\nmodel: { id: gpt-4o-mini, provider: openai }\n');
    const filled = memoryIO({ cwd: dir, env });
    expect(await main(['run', 'oa.yaml', '-i', 'x'], filled.io)).toBe(0);
    expect(filled.out()).toBe('from OPENAI_BASE_URL\n');
    expect(elsewhere.requests[0]?.headers.authorization).toBe('Bearer oa-key');

    const override = await serve('from --base-url');
    const explicit = memoryIO({ cwd: dir, env });
    expect(await main(['run', 'ds.yaml', '-i', 'x', '--base-url', override.baseURL], explicit.io)).toBe(0);
    expect(explicit.out()).toBe('from --base-url\n');
  });
});
