import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { InMemoryCheckpointStore } from '../checkpoint/memory-checkpoint-store.js';
import { scriptedAgent } from '../test-support/agents.js';
import { compileWorkflowDocument } from './compile-actions.js';
import type { WorkflowDocument } from './dsl-types.js';

const fixture = (name: string) =>
  parse(
    readFileSync(fileURLToPath(new URL(`../test-support/fixtures/${name}`, import.meta.url)), 'utf8'),
  ) as WorkflowDocument;

const texts = async (document: WorkflowDocument, input: string) => {
  const { workflow, problems } = compileWorkflowDocument(document);
  expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
  const result = await workflow!.run(input).result;
  expect(result.status).toBe('completed');
  return result.outputs.map((o) => o.value);
};

const doc = (actions: unknown[]): WorkflowDocument => ({
  name: 'test',
  trigger: { kind: 'OnConversationStart', actions },
});

describe('kind: workflow actions', () => {
  it('runs the upstream fixture shapes', async () => {
    expect(await texts(fixture('workflow_basic.yaml'), 'Alice')).toEqual(['Hello, Alice!']);
    expect(await texts(fixture('workflow_with_if.yaml'), '20')).toEqual(['Welcome, adult user!']);
    expect(await texts(fixture('workflow_with_if.yaml'), '12')).toEqual(['Welcome, young user!']);
  });

  it('accepts the snake_case spelling of every action kind, as the upstream docs write them', async () => {
    const outputs = await texts(
      doc([
        { kind: 'set_variable', variable: 'Local.seen', value: [] },
        { kind: 'edit_table_v2', itemsVariable: 'Local.seen', operation: 'add', value: 'a' },
        { kind: 'set_text_variable', variable: 'Local.name', value: '=System.LastMessage.Text' },
        {
          kind: 'if',
          condition: '=Local.name = "Ann"',
          // biome-ignore lint/suspicious/noThenProperty: the If action's field, as in YAML
          then: [{ kind: 'send_activity', activity: { text: '=Join(Local.seen, "")' } }],
        },
        { kind: 'end_workflow' },
      ]),
      'Ann',
    );
    expect(outputs).toEqual(['a']);
    const { problems } = compileWorkflowDocument(
      doc([{ kind: 'invoke_mcp_tool', serverUrl: 'http://x', toolName: 't' }, { kind: 'invoke-mcp-tool' }]),
    );
    // Known by its snake_case name: what is missing is the MCP service, not the kind.
    expect(problems.map((p) => p.message).sort()).toEqual([
      'InvokeMcpTool needs @raf/mcp (pnpm add @raf/mcp; builder.use(mcpPlugin()))',
      'unknown action kind "invoke-mcp-tool" (did you mean InvokeMcpTool?)',
    ]);
  });

  it('loops with Foreach, BreakLoop and ContinueLoop, and edits tables', async () => {
    const outputs = await texts(
      doc([
        { kind: 'SetVariable', variable: 'Local.seen', value: [] },
        {
          kind: 'Foreach',
          source: '=Split(System.LastMessage.Text, ",")',
          item_name: 'word',
          actions: [
            // biome-ignore lint/suspicious/noThenProperty: the If action's field, as in YAML
            { kind: 'If', condition: '=Local.word = "skip"', then: [{ kind: 'ContinueLoop' }] },
            // biome-ignore lint/suspicious/noThenProperty: the If action's field, as in YAML
            { kind: 'If', condition: '=Local.word = "stop"', then: [{ kind: 'BreakLoop' }] },
            {
              kind: 'EditTableV2',
              itemsVariable: 'Local.seen',
              operation: 'add',
              value: '=Upper(Local.word)',
            },
          ],
        },
        { kind: 'SendActivity', activity: { text: '=Join(Local.seen, "+")' } },
      ]),
      'a,skip,b,stop,c',
    );
    expect(outputs).toEqual(['A+B']);
  });

  it('branches with ConditionGroup and jumps with GotoAction (bounded)', async () => {
    const document = doc([
      { kind: 'SetVariable', variable: 'Local.n', value: 0 },
      { kind: 'SetVariable', id: 'again', variable: 'Local.n', value: '=Local.n + 1' },
      {
        kind: 'ConditionGroup',
        conditions: [{ condition: '=Local.n < 3', actions: [{ kind: 'GotoAction', actionId: 'again' }] }],
        elseActions: [{ kind: 'SendActivity', activity: { text: '=Concat("n=", Local.n)' } }],
      },
    ]);
    expect(await texts(document, '')).toEqual(['n=3']);
  });

  it('asks a Question and continues with the answer after a restart (from the checkpoint)', async () => {
    const document = doc([
      {
        kind: 'Question',
        question: { text: '=Concat("Hi ", System.LastMessage.Text, ", your age?")' },
        variable: 'Local.age',
      },
      {
        kind: 'If',
        condition: '=Local.age >= 18',
        // biome-ignore lint/suspicious/noThenProperty: the If action's field, as in YAML
        then: [{ kind: 'SendActivity', activity: { text: 'adult' } }],
        else: [{ kind: 'SendActivity', activity: { text: 'minor' } }],
      },
    ]);
    const store = new InMemoryCheckpointStore();
    const first = compileWorkflowDocument(document, { checkpoints: store }).workflow!;
    const paused = await first.run('Bo', { runId: 'q' }).result;
    expect(paused.status).toBe('halted');
    expect(paused.halted[0]?.request).toEqual({
      kind: 'input',
      prompt: 'Hi Bo, your age?',
      variable: 'Local.age',
    });
    const second = compileWorkflowDocument(document, { checkpoints: store }).workflow!;
    const done = await second.resume({ runId: 'q', answer: '30' }).result;
    expect(done.outputs.map((o) => o.value)).toEqual(['adult']);
  });

  it('invokes an agent, keeps its answer, and loops with the user while externalLoop.when holds', async () => {
    const helper = scriptedAgent('helper', ['What city?', 'Paris it is.']);
    const document = doc([
      {
        kind: 'InvokeAgent',
        agent: { name: 'helper' },
        input: {
          messages: '=System.LastMessage.Text',
          external_loop: { when: '=!("it is" in System.LastAgentResponse)' },
        },
        output: { messages: 'Local.reply', auto_send: true },
      },
      { kind: 'SendActivity', activity: { text: '=Concat("done: ", Local.reply)' } },
    ]);
    const { workflow } = compileWorkflowDocument(document, {
      services: { agent: (n) => (n === 'helper' ? helper : undefined) },
    });
    const paused = await workflow!.run('book a trip').result;
    expect(paused.halted[0]?.request).toEqual({ kind: 'input', prompt: 'What city?' });
    const done = await workflow!.resume({ state: paused.state, answer: 'Paris' }).result;
    expect(done.outputs.map((o) => o.value)).toEqual(['What city?', 'Paris it is.', 'done: Paris it is.']);
    expect(helper.client.calls[1]?.messages.map((m) => m.content)).toEqual([
      'book a trip',
      'What city?',
      'Paris',
    ]);
  });

  it('reports problems at their action: bad expressions, unknown kinds, missing packages and agents', () => {
    const { workflow, problems } = compileWorkflowDocument(
      doc([
        { kind: 'SetVariable', variable: 'Local.x', value: '=Concat(1,' },
        { kind: 'SetVarible', variable: 'Local.y', value: 1 },
        { kind: 'setvariable', variable: 'Local.y', value: 1 },
        { kind: 'ExecuteCode', code: 'print(1)' },
        { kind: 'InvokeMcpTool', serverUrl: 'http://x', toolName: 't' },
        { kind: 'HttpRequestAction', url: 'http://x' },
        { kind: 'InvokeAgent', agent: { name: 'ghost' } },
        { kind: 'BreakLoop' },
        { kind: 'GotoAction', actionId: 'nowhere' },
      ]),
    );
    expect(workflow).toBeUndefined();
    expect(problems.map((p) => `${p.path.join('.')}: ${p.message}`).sort()).toEqual(
      [
        'trigger.actions.0.value: bad expression "=Concat(1,": the expression ends too early (at character 11)',
        'trigger.actions.1.kind: unknown action kind "SetVarible"',
        'trigger.actions.2.kind: unknown action kind "setvariable" (did you mean SetVariable?)',
        'trigger.actions.3.kind: ExecuteCode needs @raf/sandbox (pnpm add @raf/sandbox; builder.use(sandboxPlugin()))',
        'trigger.actions.4.kind: InvokeMcpTool needs @raf/mcp (pnpm add @raf/mcp; builder.use(mcpPlugin()))',
        'trigger.actions.5.kind: HttpRequestAction needs @raf/web (pnpm add @raf/web; builder.use(webPlugin()))',
        'trigger.actions.6.agent: InvokeAgent: no agent "ghost" (register it: builder.withWorkflowAgent("ghost", agent))',
        'trigger.actions.7: BreakLoop outside a Foreach',
        'trigger.actions.8.actionId: GotoAction: no action has id "nowhere" (known: none)',
      ].sort(),
    );
  });

  it('fails at run time with the action and its place', async () => {
    const { workflow } = compileWorkflowDocument(
      doc([{ kind: 'SetVariable', variable: 'Local.x', value: '=Value("abc")' }]),
      {
        where: (path) => `wf.yaml:${Number(path.at(-1)) + 9}:7`,
      },
    );
    const result = await workflow!.run('').result;
    expect(result.status).toBe('failed');
    expect(result.error?.message).toContain(
      'SetVariable at wf.yaml:9:7: =Value("abc"): Value: "abc" is not a number',
    );
  });
});
