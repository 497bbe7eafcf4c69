import { createToolManifest } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { BUILTIN_TOOL_MANIFESTS } from './builtin-manifests.js';
import { RUNTIME_LABELS } from './runtime-labels.js';
import { profileRoute, projectToolRuntime } from './runtime-projection.js';
import { ToolGovernance } from './tool-governance.js';
import { buildSubprocessWorkerPolicy, type WorkerPolicy } from './worker-policy.js';

const open: WorkerPolicy = { workspaceRoots: ['/w'], allowShell: true, readonly: false };
const governance = new ToolGovernance();
const project = (
  name: string,
  overrides: { policy?: WorkerPolicy; selected?: boolean; needsWorkspaceRoot?: boolean } = {},
) =>
  projectToolRuntime({
    manifest: BUILTIN_TOOL_MANIFESTS[name] ?? createToolManifest(),
    governance: governance.entry(name),
    selected: overrides.selected ?? true,
    needsWorkspaceRoot: overrides.needsWorkspaceRoot ?? name in BUILTIN_TOOL_MANIFESTS,
    policy: overrides.policy ?? open,
  });

describe('the runtime projection (seed 002)', () => {
  it('routes the built-ins as the seed table says under an open policy', () => {
    const routes = Object.fromEntries(
      ['run_command', 'read_file', 'list_files', 'find_files', 'search_file', 'write_file', 'edit_file']
        .concat(['apply_patch', 'load_skill', 'read_skill_resource', 'memory_save', 'memory_recall'])
        .map((name) => [name, project(name).state]),
    );
    expect(routes).toEqual({
      run_command: 'worker-local',
      read_file: 'worker-local',
      list_files: 'worker-local',
      find_files: 'worker-local',
      search_file: 'worker-local',
      write_file: 'main-process-proxied',
      edit_file: 'main-process-proxied',
      apply_patch: 'main-process-proxied',
      load_skill: 'main-process-proxied',
      read_skill_resource: 'main-process-proxied',
      memory_save: 'main-process-proxied',
      memory_recall: 'main-process-proxied',
    });
  });

  it('gives each of the six blocked reasons, with both labels, and maps states to routes', () => {
    const cases = [
      [project('read_file', { policy: { ...open, workspaceRoots: [] } }), 'workspace_root_required'],
      [project('run_command', { policy: { ...open, allowShell: false } }), 'shell_disabled_by_policy'],
      [project('write_file', { policy: { ...open, readonly: true } }), 'write_blocked_by_readonly_policy'],
      [project('write_file'), 'requires_main_process_proxy'],
      [
        projectToolRuntime({
          manifest: createToolManifest({ supportedInWorker: false }),
          governance: governance.entry('x'),
          selected: true,
          needsWorkspaceRoot: false,
          policy: open,
        }),
        'unsupported_in_worker',
      ],
      [project('read_file', { selected: false }), 'not_selected_for_subagent'],
    ] as const;
    for (const [runtime, reason] of cases) {
      expect(runtime.blockedReason).toBe(reason);
      expect(runtime.label).toEqual(RUNTIME_LABELS.reasons[reason]);
      expect(runtime.label?.en).toBeTruthy();
      expect(runtime.label?.['zh-CN']).toBeTruthy();
    }
    expect(cases.map(([r]) => [r.state, r.route])).toEqual([
      ['disabled-in-worker', 'disabled'],
      ['disabled-in-worker', 'disabled'],
      ['disabled-in-worker', 'disabled'],
      ['main-process-proxied', 'main-process-proxy'],
      ['disabled-in-worker', 'disabled'],
      ['not-selected', 'disabled'],
    ]);
  });

  it('follows the governance routing strategy and says when governance disabled a tool', () => {
    const g = new ToolGovernance();
    g.setRouting('read_file', 'force-main-process-proxy');
    g.setRouting('write_file', 'force-local');
    g.setRouting('list_files', 'force-disabled');
    g.setEnabled('find_files', false);
    const state = (name: string) =>
      projectToolRuntime({
        manifest: BUILTIN_TOOL_MANIFESTS[name]!,
        governance: g.effective(name, { disabled: ['search_file'] }),
        selected: true,
        needsWorkspaceRoot: true,
        policy: open,
      });
    expect(state('read_file')).toMatchObject({ state: 'main-process-proxied', route: 'main-process-proxy' });
    expect(state('write_file')).toMatchObject({ state: 'worker-local', blockedReason: null });
    expect(state('list_files')).toMatchObject({ route: 'disabled', blockedReason: 'unsupported_in_worker' });
    expect(state('find_files')).toMatchObject({ route: 'disabled', disabledBy: 'governance' });
    expect(state('search_file')).toMatchObject({ route: 'disabled', disabledBy: 'agent' });
    expect(profileRoute(BUILTIN_TOOL_MANIFESTS.read_file!, g.entry('read_file'))).toBe('main-process-proxy');
    expect(profileRoute(BUILTIN_TOOL_MANIFESTS.find_files!, g.entry('find_files'))).toBe('disabled');
  });
});

describe('buildSubprocessWorkerPolicy', () => {
  it('de-duplicates roots, allows a shell only when needed and allowed, stays read-only unless writing', () => {
    const m = BUILTIN_TOOL_MANIFESTS;
    expect(buildSubprocessWorkerPolicy({ cwd: '/w', roots: ['/w', '/docs'] }, m, ['read_file'])).toEqual({
      workspaceRoots: ['/w', '/docs'],
      allowShell: false,
      readonly: true,
    });
    expect(buildSubprocessWorkerPolicy({ cwd: '/w' }, m, ['bash', 'write_file'])).toEqual({
      workspaceRoots: ['/w'],
      allowShell: true,
      readonly: false,
    });
    expect(
      buildSubprocessWorkerPolicy({ cwd: '/w', shellAllowed: false, writeAllowed: false }, m, [
        'run_command',
        'edit',
      ]),
    ).toEqual({ workspaceRoots: ['/w'], allowShell: false, readonly: true });
    expect(buildSubprocessWorkerPolicy({}, new Map(Object.entries(m)), ['list_dir'])).toEqual({
      workspaceRoots: [],
      allowShell: false,
      readonly: true,
    });
  });
});
