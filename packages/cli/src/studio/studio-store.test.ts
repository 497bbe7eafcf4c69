import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createStore } from '@raf/framework';
import { buildStudioIfMissing } from '@raf/studio/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { createMemoryIO } from '../memory-io.js';
import {
  parseEvents,
  type RunningStudio,
  removeProject,
  startStudio,
  studioProject,
} from './test-support/studio-fixture.js';

let project: string;
let studio: RunningStudio | undefined;

beforeAll(() => {
  buildStudioIfMissing();
}, 60_000);
afterEach(async () => {
  if (studio) expect(await studio.stop()).toBe(0);
  studio = undefined;
  await removeProject(project);
});

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${studio!.origin}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${studio!.token}`,
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
  });

describe('raf studio --store URL', () => {
  it('keeps conversations and governance in the store it names (SQLite), as raf run and raf tools do', async () => {
    project = await studioProject();
    studio = await startStudio(project, ['agent.yaml'], ['--store', 'sqlite:state.db']);
    expect(studio.err()).toContain('sessions sqlite:state.db; governance sqlite:state.db');
    const governance = await api('/api/governance', {
      method: 'PATCH',
      body: JSON.stringify({ tool: 'search_file', enabled: false }),
    });
    expect(governance.status).toBe(200);
    expect(((await (await api('/api/governance')).json()) as { file: string }).file).toBe('sqlite:state.db');
    const res = await api('/api/agents/coordinator/runs', {
      method: 'POST',
      body: JSON.stringify({ input: 'Summarise the meeting notes into summary.md' }),
    });
    const events = parseEvents(await res.text());
    const sessionId = String(events[0]!.data.sessionId);
    expect(events.at(-1)!.data).toMatchObject({ type: 'finish', sessionId });
    expect(await studio.stop()).toBe(0);
    studio = undefined;

    // Nothing went to the default folder; the store holds both, and `raf tools --store` agrees.
    expect(existsSync(join(project, '.raf/sessions'))).toBe(false);
    expect(existsSync(join(project, '.raf/governance.json'))).toBe(false);
    const store = await createStore(`sqlite:${join(project, 'state.db')}`);
    try {
      const saved = await store.sessions.load(sessionId);
      expect(saved?.messages.at(-1)).toMatchObject({ role: 'assistant' });
      expect((await store.governance.load()).tools?.search_file?.enabled).toBe(false);
    } finally {
      await store.close();
    }
    const tools = createMemoryIO({ cwd: project });
    expect(await main(['tools', 'list', '--json', '--store', 'sqlite:state.db'], tools.io)).toBe(0);
    expect(tools.out()).toContain('search_file');
  }, 60_000);

  it('refuses --store with --sessions-dir or --governance, and a bad URL before serving', async () => {
    project = await studioProject();
    for (const extra of [
      ['--sessions-dir', 'x'],
      ['--governance', 'g.json'],
    ]) {
      const run = createMemoryIO({ cwd: project });
      expect(await main(['studio', 'agent.yaml', '--store', 'sqlite:s.db', ...extra], run.io)).toBe(2);
      expect(run.err()).toMatch(/--store/);
    }
    const bad = createMemoryIO({ cwd: project });
    expect(await main(['studio', 'agent.yaml', '--store', 'ftp://nowhere'], bad.io)).toBe(2);
    expect(bad.err()).toMatch(/store/i);
  }, 60_000);
});
