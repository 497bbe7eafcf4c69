import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { providerStateKey } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentBuilder } from '../agent/agent-builder.js';
import { createFileTool } from '../builtin-tools/index.js';
import { AgentSession } from '../sessions/agent-session.js';
import { drain, type Harness, startHarness } from '../test-support/harness.js';
import { makeWorkspaceFixture, type WorkspaceFixture } from '../test-support/workspace-fixture.js';
import { createLocalToolOperations } from './operations/local-tool-operations.js';
import { WorkspaceContextProvider } from './workspace-context-provider.js';

let fx: WorkspaceFixture;
let harness: Harness;
beforeEach(async () => {
  fx = await makeWorkspaceFixture();
});
afterEach(async () => {
  await harness?.close();
  await fx.cleanup();
});

describe('workspace state in the session', () => {
  it('keeps one state per workspace, so the second one saves its state and gives its warning too', async () => {
    harness = await startHarness([{ text: 'one' }, { text: 'two' }]);
    const docs = join(fx.base, 'docs');
    await mkdir(docs);
    // No bubblewrap: each workspace warns on its first run that commands are not confined.
    const operations = createLocalToolOperations({ bubblewrapPath: join(fx.base, 'no-bwrap') });
    const code = new WorkspaceContextProvider(
      { root: fx.root, name: 'code', policy: 'DenyOutside' },
      { operations },
    ).addTool(createFileTool('run_command'));
    const notes = new WorkspaceContextProvider(
      { root: docs, name: 'notes', policy: 'DenyOutside' },
      { operations },
    ).addTool(createFileTool('run_command'));
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withContextProvider(code)
      .withContextProvider(notes)
      .build();
    const session = agent.createSession();
    const first = await drain(agent.run('hi', { session }));
    expect(first.filter((u) => u.type === 'warning').map((u) => u.type === 'warning' && u.message)).toEqual([
      expect.stringMatching(/^workspace 'code': run_command is not confined/),
      expect.stringMatching(/^workspace 'notes': run_command is not confined/),
    ]);
    const state = session.toJSON().state;
    expect(state[providerStateKey('WorkspaceContextProvider:code')]).toEqual({
      scope_name: 'code',
      scope_root: fx.root,
      policy: 'DenyOutside',
    });
    expect(state[providerStateKey('WorkspaceContextProvider:notes')]).toEqual({
      scope_name: 'notes',
      scope_root: docs,
      policy: 'DenyOutside',
    });
    // Written once: a second run finds both, leaves them as they are and warns no more.
    const second = await drain(agent.run('again', { session }));
    expect(second.filter((u) => u.type === 'warning')).toEqual([]);
    expect(session.toJSON().state).toEqual(state);
  });

  it('reads the shared key of sessions saved by the previous version for the workspace it names', async () => {
    harness = await startHarness([{ text: 'ok' }]);
    const saved = new AgentSession('old');
    // The previous version stored every workspace under this one key.
    saved.setProviderState('WorkspaceContextProvider', {
      scope_name: 'code',
      scope_root: fx.root,
      policy: 'DenyOutside',
    });
    const session = AgentSession.fromJSON(saved.toJSON());
    const code = new WorkspaceContextProvider({ root: fx.root, name: 'code', policy: 'DenyOutside' }).addTool(
      createFileTool('run_command'),
    );
    const agent = new AgentBuilder('a').chatClient(harness.client).withContextProvider(code).build();
    const updates = await drain(agent.run('hi', { session }));
    // Not a first run for this workspace: no new state, no repeated first-run warning.
    expect(session.getProviderState('WorkspaceContextProvider:code')).toBeUndefined();
    expect(updates.filter((u) => u.type === 'warning')).toEqual([]);
  });
});
