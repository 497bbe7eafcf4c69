import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileGovernanceStore, InMemoryGovernanceStore } from './governance-store.js';
import { aliasesOf, ToolGovernance } from './tool-governance.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-governance-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tool governance', () => {
  it('fills defaults, resolves seed 002 aliases and refuses to disable a core tool', () => {
    const g = new ToolGovernance();
    expect(g.entry('bash')).toEqual({ enabled: true, core: false, workerRoutingStrategy: 'auto' });
    g.setEnabled('bash', false);
    expect(g.entry('run_command').enabled).toBe(false);
    expect(g.data.tools).toEqual({ run_command: { enabled: false } });
    expect(() => g.setEnabled('load_skill', false)).toThrow(ConfigError);
    g.setCore('read_file', true);
    expect(() => g.setEnabled('read_file', false)).toThrow(/core tool/);
    expect(aliasesOf('run_command')).toEqual(['bash']);
    expect(() => g.setRouting('x', 'sideways' as never)).toThrow(/unknown worker routing strategy/);
  });

  it("applies an agent's toolPolicy over the global entry; core tools stay enabled", () => {
    const g = new ToolGovernance();
    g.setEnabled('grep', false);
    g.setPromptHint('read_file', 'prefer small offsets');
    const policy = {
      enabled: ['search_file'],
      disabled: ['edit', 'load_skill'],
      routing: { bash: 'force-main-process-proxy' as const },
      promptHints: { read_file: 'agent hint' },
    };
    expect(g.effective('search_file', policy).enabled).toBe(true);
    expect(g.effective('edit_file', policy)).toMatchObject({ enabled: false, disabledBy: 'agent' });
    expect(g.effective('load_skill', policy).enabled).toBe(true);
    expect(g.effective('run_command', policy).workerRoutingStrategy).toBe('force-main-process-proxy');
    expect(g.effective('read_file', policy).promptHint).toBe('agent hint');
    expect(g.effective('grep', undefined)).toMatchObject({ enabled: false, disabledBy: 'governance' });
  });

  it('keeps governance in a JSON file, written atomically, and names a broken file', async () => {
    const file = join(dir, '.raf', 'governance.json');
    const store = new FileGovernanceStore(file);
    const g = new ToolGovernance(await store.load());
    g.setEnabled('write_file', false);
    g.setRouting('read_file', 'force-local');
    await store.save(g.data);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      version: 1,
      tools: { write_file: { enabled: false }, read_file: { workerRoutingStrategy: 'force-local' } },
    });
    expect(new ToolGovernance(await store.load()).entry('write_file').enabled).toBe(false);
    await writeFile(file, '{"version":1,"tools":{"x":{"enabeld":false}}}');
    await expect(store.load()).rejects.toThrow(`${file}: tools.x: Unrecognized key: "enabeld"`);
    await writeFile(file, '{');
    await expect(store.load()).rejects.toThrow(/is not valid JSON/);
  });

  it('the in-memory store hands out copies', async () => {
    const store = new InMemoryGovernanceStore();
    const data = await store.load();
    data.tools.x = { enabled: false };
    expect((await store.load()).tools).toEqual({});
  });
});
