import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DeclAgentBuilder } from '@raf/decl';
import { RUNTIME_LABELS, runtimeDiagnostic } from '@raf/framework';
import { buildStudioIfMissing } from '@raf/studio/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
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

// biome-ignore lint/suspicious/noExplicitAny: the tests walk the API's JSON freely
type Loose = any;

const post = async (path: string, body: unknown, type = 'application/json') => {
  const res = await fetch(`${studio!.origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${studio!.token}`, 'content-type': type },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Loose };
};
const preview = (body: unknown) => post('/api/agents/coordinator/diagnostic/preview', body);

/** What saving would produce: the file edited by hand beside the original, built as `raf studio` builds. */
async function savedAs(edit: (text: string) => string) {
  const text = edit(await readFile(join(project, 'agent.yaml'), 'utf8'));
  await writeFile(join(project, 'saved.yaml'), text);
  const agent = await new DeclAgentBuilder()
    .fromFile(join(project, 'saved.yaml'))
    .withGovernance(join(project, '.raf/governance.json'))
    .build();
  return runtimeDiagnostic(agent);
}

const toolOf = (diagnostic: Loose, agent: string, tool: string) =>
  diagnostic.subAgents.find((s: Loose) => s.agent === agent).tools.find((t: Loose) => t.name === tool);

describe('raf studio: POST /api/agents/:id/diagnostic/preview', () => {
  it('no change previews exactly the current diagnostic; the file is never written', async () => {
    project = await studioProject();
    const before = await readFile(join(project, 'agent.yaml'), 'utf8');
    studio = await startStudio(project, ['agent.yaml']);
    const current = await (
      await fetch(`${studio.origin}/api/agents/coordinator/diagnostic`, {
        headers: { authorization: `Bearer ${studio.token}` },
      })
    ).json();
    expect(await preview({})).toEqual({ status: 200, body: current });
    await preview({ subAgent: 'researcher', toolPolicy: { disabled: ['grep'] } });
    expect(await readFile(join(project, 'agent.yaml'), 'utf8')).toBe(before);
  });

  it("a sub-agent's toolPolicy that disables a tool: route disabled, disabled by the agent, equal to the saved file's diagnostic", async () => {
    project = await studioProject();
    studio = await startStudio(project, ['agent.yaml']);
    const change = { subAgent: 'researcher', toolPolicy: { disabled: ['grep'] } };
    const { status, body } = await preview(change);
    expect(status).toBe(200);
    const grep = toolOf(body, 'researcher', 'search_file');
    expect(grep.governance).toMatchObject({ enabled: false, disabledBy: 'agent' });
    expect(grep.profile).toEqual({ route: 'disabled' });
    expect(grep.runtime).toEqual({
      state: 'disabled-in-worker',
      route: 'disabled',
      blockedReason: null,
      label: RUNTIME_LABELS.governance.disabledByAgent,
    });
    expect(toolOf(body, 'researcher', 'read_file').runtime.route).toBe('worker-local');
    const saved = await savedAs((text) =>
      text.replace(
        '    instructions: Read the notes',
        '    toolPolicy:\n      disabled: [grep]\n    instructions: Read the notes',
      ),
    );
    expect(body).toEqual(JSON.parse(JSON.stringify(saved)));

    // The YAML to copy: comments kept, the policy in the sub-agent's entry.
    const yaml = await post('/api/agents/coordinator/yaml/preview', change);
    expect(yaml.status).toBe(200);
    expect(yaml.body).toMatchObject({ file: 'agent.yaml', target: 'subAgents[0]' });
    expect(yaml.body.yaml).toContain("# Seed 002's names work too: list_dir is list_files");
    expect(yaml.body.section).toBe(
      [
        'toolPolicy:',
        '  disabled:',
        '    - grep',
        'tools:',
        '  - kind: file',
        '    name: list_dir',
        '  - kind: file',
        '    name: read_file',
        '  - kind: file',
        '    name: grep',
        '',
      ].join('\n'),
    );
  });

  it("the parent's toolPolicy reaches its sub-agents: disabling write_file makes the writer read-only", async () => {
    project = await studioProject();
    studio = await startStudio(project, ['agent.yaml']);
    const { body } = await preview({ toolPolicy: { disabled: ['write_file'] } });
    expect(body.subAgents.find((s: Loose) => s.agent === 'writer').workerPolicy.readonly).toBe(true);
    expect(toolOf(body, 'writer', 'write_file').runtime).toMatchObject({
      route: 'disabled',
      blockedReason: 'write_blocked_by_readonly_policy',
      label: RUNTIME_LABELS.reasons.write_blocked_by_readonly_policy,
    });
    const saved = await savedAs((text) =>
      text.replace('subAgents:\n', 'toolPolicy: { disabled: [write_file] }\nsubAgents:\n'),
    );
    expect(body).toEqual(JSON.parse(JSON.stringify(saved)));
  });

  it('a narrower selection drops the tools: entries of the others, as saving would', async () => {
    project = await studioProject();
    studio = await startStudio(project, ['agent.yaml']);
    const { status, body } = await preview({ subAgent: 'researcher', selection: ['list_dir', 'read_file'] });
    expect(status).toBe(200);
    const researcher = body.subAgents.find((s: Loose) => s.agent === 'researcher');
    expect(researcher.tools.map((t: Loose) => [t.name, t.runtime.state])).toEqual([
      ['list_files', 'worker-local'],
      ['read_file', 'worker-local'],
      ['delegate_task', 'not-selected'],
      ['delegate_parallel', 'not-selected'],
    ]);
    const saved = await savedAs((text) => text.replace('      - { kind: file, name: grep }\n', ''));
    expect(body).toEqual(JSON.parse(JSON.stringify(saved)));
  });

  it('bad input is a 4xx JSON error that names the field, never a crash', async () => {
    project = await studioProject();
    studio = await startStudio(project, ['agent.yaml']);
    const cases: [unknown, number, string, RegExp?][] = [
      [{ colour: 'red' }, 400, 'unknown_field'],
      [{ subAgent: 3 }, 400, 'invalid_field', /subAgent/],
      [{ subAgent: 'nobody' }, 404, 'no_such_sub_agent'],
      [{ selection: 'read_file' }, 400, 'invalid_field', /selection/],
      [{ subAgent: 'researcher', selection: ['write_file'] }, 400, 'invalid_field', /not one of/],
      [{ selection: [] }, 400, 'invalid_field', /delegate_task is not declared/],
      [{ toolPolicy: [] }, 400, 'invalid_field', /toolPolicy/],
      [{ toolPolicy: { disabled: [''] } }, 400, 'invalid_field', /toolPolicy\.disabled/],
      [{ toolPolicy: { routing: { grep: 'sideways' } } }, 400, 'invalid_field', /toolPolicy\.routing\.grep/],
      [{ toolPolicy: { blocked: ['grep'] } }, 400, 'invalid_field', /unknown field blocked/],
    ];
    for (const [body, status, code, message] of cases) {
      const res = await preview(body);
      expect([res.status, res.body.error.code]).toEqual([status, code]);
      if (message) expect(res.body.error.message).toMatch(message);
    }
    expect((await preview('{oops')).status).toBe(400);
    expect((await preview('[]')).status).toBe(400);
    expect((await post('/api/agents/coordinator/diagnostic/preview', 'x', 'text/plain')).status).toBe(415);
    expect((await post('/api/agents/nobody/diagnostic/preview', {})).status).toBe(404);
    // Still serving.
    expect((await preview({})).status).toBe(200);
  });
});
