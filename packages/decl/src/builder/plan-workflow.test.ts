import { type RecordedRequest, startMockModelServer } from '@raf/client/testing';
import { collectAgentResponse } from '@raf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../diagnostics/diagnostic.js';
import { DeclAgentBuilder } from './decl-agent-builder.js';

type Server = Awaited<ReturnType<typeof startMockModelServer>>;
let server: Server;

/** Who is asked: the agent named in the system prompt ("You are NAME."). */
function speaker(request: RecordedRequest): string {
  const messages = (request.body?.messages ?? []) as { role: string; content: string }[];
  return /You are ([\w-]+)\./.exec(messages.find((m) => m.role === 'system')?.content ?? '')?.[1] ?? '?';
}
function lastUser(request: RecordedRequest): string {
  const messages = (request.body?.messages ?? []) as { role: string; content: string }[];
  return messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
}

beforeAll(async () => {
  server = await startMockModelServer({
    turns: (request) => {
      const name = speaker(request);
      const messages = (request.body?.messages ?? []) as { role: string }[];
      if (name === 'boss' && !messages.some((m) => m.role === 'tool'))
        return {
          toolCalls: [
            { id: 'd1', name: 'delegate_task', arguments: { agent: 'writer', task: 'write a haiku' } },
          ],
        };
      if (name === 'boss') return { text: 'The writer delivered.' };
      return { text: `${name}: ${lastUser(request).slice(0, 40)}` };
    },
  });
});
afterAll(() => server.close());

const model = () => `model: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }`;
const agent = (name: string, extra = '') =>
  `  - kind: prompt\n    name: ${name}\n    ${model()}\n    instructions: You are ${name}.\n${extra}`;
const orchestrated = (orchestration: string, names: string[]) =>
  `kind: prompt\nname: boss\n${model()}\ninstructions: You are boss.\nmetadata:\n  orchestration: ${orchestration}\nsubAgents:\n${names.map((n) => agent(n)).join('')}`;

describe('kind: workflow files', () => {
  it('build a workflow agent that runs the actions', async () => {
    const text =
      'kind: workflow\nname: greeting-workflow\ntrigger:\n  kind: OnConversationStart\n  actions:\n    - kind: SetVariable\n      variable: Local.userName\n      value: =System.LastMessage.Text\n    - kind: SendActivity\n      activity:\n        text: =Concat("Hello, ", Local.userName, "!")\n';
    const builder = new DeclAgentBuilder().fromYaml(text, 'wf.yaml');
    expect((await builder.validate()).orchestration).toBe('workflow(2 actions, 3 nodes)');
    const built = await builder.buildAgent();
    expect((await collectAgentResponse(built.run('Alice'))).text).toBe('Hello, Alice!');
    await expect(builder.build()).rejects.toThrow(
      /builds a workflow \(greeting-workflow\), not a single agent: use buildAgent\(\)/,
    );
    const explained = await builder.explain();
    expect(explained.workflow?.graph?.nodes.map((n) => n.id)).toEqual([
      'workflow_start',
      'SetVariable_1',
      'SendActivity_2',
    ]);
  });

  it('report problems at their lines: expressions, unknown actions, missing extensions', async () => {
    const text =
      'kind: workflow\nname: w\ntrigger:\n  actions:\n    - kind: SetVariable\n      variable: Local.x\n      value: =Concat(1,\n    - kind: ExecuteCode\n      code: print(1)\n    - kind: Sendactivity\n';
    const report = await new DeclAgentBuilder().fromYaml(text, 'wf.yaml').validate();
    expect(report.errors.map(formatDiagnostic)).toEqual([
      'wf.yaml:7:14 trigger.actions[0].value: bad expression "=Concat(1,": the expression ends too early (at character 11)',
      'wf.yaml:8:7 trigger.actions[1].kind: ExecuteCode needs @raf/sandbox (pnpm add @raf/sandbox; builder.use(sandboxPlugin()))',
      'wf.yaml:10:7 trigger.actions[2].kind: unknown action kind "Sendactivity" (did you mean SendActivity?)',
    ]);
  });
});

describe('subAgents with metadata.orchestration', () => {
  it('sequential: validate names the mode; the agents answer in order, each given the previous answer', async () => {
    const builder = new DeclAgentBuilder().fromYaml(
      orchestrated('sequential', ['drafter', 'editor']),
      'team.yaml',
    );
    expect((await builder.validate()).orchestration).toBe('orchestration(sequential, 2 sub-agents)');
    const before = server.requests.length;
    const response = await collectAgentResponse((await builder.buildAgent()).run('topic: tides'));
    const asked = server.requests.slice(before);
    expect(asked.map(speaker)).toEqual(['drafter', 'editor']);
    expect(lastUser(asked[1]!)).toBe('drafter: topic: tides');
    expect(response.text).toBe('editor: drafter: topic: tides');
  });

  it('magentic (the default): the root delegates with delegate_task', async () => {
    const builder = new DeclAgentBuilder().fromYaml(
      `kind: prompt\nname: boss\n${model()}\ninstructions: You are boss.\nsubAgents:\n${agent('writer')}${agent('critic')}`,
      'team.yaml',
    );
    expect((await builder.validate()).orchestration).toBe('orchestration(magentic, 2 sub-agents)');
    expect((await builder.explain()).tools.map((t) => t.name)).toEqual([
      'delegate_task',
      'delegate_parallel',
    ]);
    const before = server.requests.length;
    const response = await (await builder.build()).generate('make a poem');
    expect(server.requests.slice(before).map(speaker)).toEqual(['boss', 'writer', 'boss']);
    expect(response.text).toBe('The writer delivered.');
  });

  it('sub-agent problems point at their own lines; nesting and unknown names are errors', async () => {
    const text = `${orchestrated('{ mode: handoff, triage: nobody }', ['a'])}${agent('b', '    tools:\n      - kind: web\n')}  - kind: prompt\n    name: c\n    ${model()}\n    subAgents:\n${agent('d').replace(/^ {2}/gm, '      ')}`;
    const report = await new DeclAgentBuilder().fromYaml(text, 'team.yaml').validate();
    const errors = report.errors.map(formatDiagnostic);
    expect(errors).toContain(
      'team.yaml:6:43 metadata.orchestration.triage: "nobody" is not a sub-agent (known: a, b)',
    );
    expect(errors.some((e) => /^team\.yaml:17:\d+ .*tool kind "web" needs @raf\/web/.test(e))).toBe(true);
    expect(errors.some((e) => /^team\.yaml:21:5 .*cannot have sub-agents of their own/.test(e))).toBe(true);
  });
});
