import { ScriptedChatClient } from '@raf/client/testing';
import { describe, expect, it } from 'vitest';
import { AgentBuilder } from '../agent/agent-builder.js';
import { createFileTool } from '../builtin-tools/index.js';
import { buildTestSubAgent } from '../test-support/sub-agent-factory.js';
import { WorkspaceContextProvider } from '../workspace/workspace-context-provider.js';
import { runtimeDiagnostic } from './runtime-diagnostic.js';
import { RUNTIME_LABELS } from './runtime-labels.js';
import { ToolGovernance } from './tool-governance.js';

function root(governance: ToolGovernance, sub: ReturnType<typeof buildTestSubAgent>) {
  const workspace = new WorkspaceContextProvider({
    name: 'project',
    root: '/w',
    roots: ['/w', '/docs'],
    policy: 'ApproveOutside',
  });
  workspace.addTools(['read_file', 'write_file', 'run_command'].map((n) => createFileTool(n as 'read_file')));
  return new AgentBuilder('coordinator')
    .chatClient(new ScriptedChatClient([]))
    .withContextProvider(workspace)
    .withToolGovernance(governance, { disabled: ['bash'], promptHints: { read_file: 'small ranges' } })
    .withSubAgents(
      [
        {
          name: 'researcher',
          agent: sub,
          toolPolicy: { routing: { grep: 'force-disabled' } },
        },
      ],
      { warmWorkers: 0 },
    )
    .build();
}

describe('runtimeDiagnostic', () => {
  it('gives the SPEC §7.1 JSON for the agent and each sub-agent, from one projection', async () => {
    const sub = buildTestSubAgent({
      name: 'researcher',
      baseURL: 'http://127.0.0.1:9',
      root: '/w',
      tools: ['read_file', 'search_file', 'run_command', 'write_file'],
    });
    const governance = new ToolGovernance();
    governance.setEnabled('write_file', false);
    const diagnostic = await runtimeDiagnostic(root(governance, sub), { lang: 'zh-CN' });
    expect(diagnostic.agent).toBe('coordinator');
    expect(diagnostic.workerPolicy).toEqual({
      workspaceRoots: ['/w', '/docs'],
      allowShell: false,
      readonly: true,
    });
    expect(diagnostic.tools.find((t) => t.name === 'read_file')).toEqual({
      name: 'read_file',
      aliases: [],
      manifest: {
        kind: 'builtin',
        executionMode: 'parallel',
        supportedInWorker: true,
        workerRoutingHint: 'local',
        requiresShell: false,
        requiresWrite: false,
        requiresSkillScope: false,
      },
      governance: { enabled: true, core: false, promptHint: 'small ranges', workerRoutingStrategy: 'auto' },
      profile: { route: 'worker-local' },
      runtime: {
        state: 'worker-local',
        route: 'worker-local',
        blockedReason: null,
        label: null,
        text: RUNTIME_LABELS.states['worker-local']['zh-CN'],
      },
    });
    expect(diagnostic.tools.find((t) => t.name === 'run_command')).toMatchObject({
      aliases: ['bash'],
      governance: { enabled: false, disabledBy: 'agent' },
      profile: { route: 'disabled' },
    });
    expect(diagnostic.tools.map((t) => t.name)).toEqual([
      'read_file',
      'write_file',
      'run_command',
      'delegate_task',
      'delegate_parallel',
    ]);
    const [researcher] = diagnostic.subAgents;
    expect(researcher?.agent).toBe('researcher');
    // The parent disabled bash: no shell for its workers; write_file is off globally.
    expect(researcher?.workerPolicy).toEqual({ workspaceRoots: ['/w'], allowShell: false, readonly: true });
    const runtime = Object.fromEntries(
      (researcher?.tools ?? []).map((t) => [t.name, [t.runtime.state, t.runtime.blockedReason]]),
    );
    expect(runtime).toEqual({
      read_file: ['worker-local', null],
      search_file: ['disabled-in-worker', 'unsupported_in_worker'],
      run_command: ['disabled-in-worker', 'shell_disabled_by_policy'],
      write_file: ['disabled-in-worker', null],
      delegate_task: ['not-selected', 'not_selected_for_subagent'],
      delegate_parallel: ['not-selected', 'not_selected_for_subagent'],
    });
    expect(researcher?.tools.find((t) => t.name === 'write_file')?.runtime.label).toEqual(
      RUNTIME_LABELS.governance.disabled,
    );
    expect(researcher?.subAgents).toEqual([]);
  });

  it('reads governance from a store at call time and honours a selection and a session', async () => {
    const sub = buildTestSubAgent({ name: 'r', baseURL: 'http://127.0.0.1:9', root: '/w' });
    const agent = root(new ToolGovernance(), sub);
    const diagnostic = await runtimeDiagnostic(agent, {
      selection: ['read_file'],
      session: {},
    });
    expect(diagnostic.workerPolicy).toEqual({ workspaceRoots: [], allowShell: false, readonly: true });
    expect(diagnostic.tools.find((t) => t.name === 'read_file')?.runtime.blockedReason).toBe(
      'workspace_root_required',
    );
    expect(diagnostic.tools.find((t) => t.name === 'write_file')?.runtime.blockedReason).toBe(
      'not_selected_for_subagent',
    );
  });
});
