import { collectAgentResponse } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { WorkflowAgent } from '../agent/workflow-agent.js';
import type { WorkflowEvent } from '../engine/events.js';
import { lastInput, scriptedAgent } from '../test-support/agents.js';
import { orchestrationWorkflow } from './build-orchestration.js';
import { concurrentAgent } from './concurrent.js';
import { groupChatAgent } from './group-chat.js';
import { handoffAgent } from './handoff.js';
import { parseOrchestration } from './orchestration-config.js';
import { pipelineWorkflow } from './pipeline.js';
import { sequentialAgent } from './sequential.js';
import { voteAgent } from './vote.js';

/** The agents that spoke, in order (from the node events). */
function speakers(events: readonly WorkflowEvent[], labels: Map<string, string>): string[] {
  return events.flatMap((e) =>
    e.type === 'node-completed' && labels.has(e.nodeId) ? [labels.get(e.nodeId)!] : [],
  );
}

async function runAgent(agent: WorkflowAgent, input: string) {
  const events: WorkflowEvent[] = [];
  const response = await collectAgentResponse(agent.run(input, { onEvent: (e) => events.push(e) }), {
    throwOnError: false,
  });
  const labels = new Map(
    [...agent.workflow.graph.nodes.values()]
      .filter((n) => n.executor.kind === 'agent')
      .map((n) => [n.id, n.executor.label!]),
  );
  return { text: response.text, events, spoke: speakers(events, labels), finish: response.finishReason };
}

describe('orchestrations', () => {
  it('sequential passes each answer to the next agent; the last one answers', async () => {
    const writer = scriptedAgent('writer', ['draft: cats are great']);
    const editor = scriptedAgent('editor', ['Cats are great.']);
    const run = await runAgent(sequentialAgent([writer, editor]), 'write about cats');
    expect(run.spoke).toEqual(['writer', 'editor']);
    expect(run.text).toBe('Cats are great.');
    expect(lastInput(editor)).toBe('draft: cats are great');
    const a = scriptedAgent('a', ['A']);
    const b = scriptedAgent('b', ['B']);
    const fixed = await runAgent(sequentialAgent([a, b], { passOutput: false }), 'task');
    expect(fixed.text).toBe('B');
    expect(lastInput(b)).toBe('task');
  });

  it('concurrent gives every agent the same input and merges all answers in agent order', async () => {
    const agents = ['optimist', 'pessimist', 'realist'].map((n) => scriptedAgent(n, [`${n} view`]));
    const run = await runAgent(concurrentAgent(agents), 'will it rain?');
    expect(new Set(run.spoke)).toEqual(new Set(['optimist', 'pessimist', 'realist']));
    expect(run.text).toBe(
      '## optimist\noptimist view\n\n## pessimist\npessimist view\n\n## realist\nrealist view',
    );
    for (const agent of agents) expect(lastInput(agent)).toBe('will it rain?');
  });

  it('handoff routes to the expert the triage names, with the original input; no name keeps the triage answer', async () => {
    const billing = scriptedAgent('billing', ['Your refund is on its way.'], 'payments and refunds');
    const tech = scriptedAgent('tech', ['Restart the router.'], 'technical problems');
    const triage = scriptedAgent('triage', ['This is for billing.', 'I can answer that myself: hello!']);
    const agent = handoffAgent(triage, [billing, tech]);
    const routed = await runAgent(agent, 'where is my refund?');
    expect(routed.spoke).toEqual(['triage', 'billing']);
    expect(routed.text).toBe('Your refund is on its way.');
    expect(lastInput(billing)).toBe('where is my refund?');
    const kept = await runAgent(agent, 'hi');
    expect(kept.spoke).toEqual(['triage']);
    expect(kept.text).toBe('I can answer that myself: hello!');
    expect(tech.client.calls).toHaveLength(0);
  });

  it('groupChat: round robin until maxRounds, each participant seeing the whole conversation', async () => {
    const alice = scriptedAgent('alice', ['I think A.', 'Still A.']);
    const bob = scriptedAgent('bob', ['I prefer B.']);
    const run = await runAgent(groupChatAgent([alice, bob], { maxRounds: 3 }), 'A or B?');
    expect(run.spoke).toEqual(['alice', 'bob', 'alice']);
    expect(run.text).toBe('Still A.');
    expect(lastInput(alice, 1)).toContain('[user]\nA or B?\n\n[alice]\nI think A.\n\n[bob]\nI prefer B.');
  });

  it('groupChat: fixed order, termination keywords, and an LLM coordinator', async () => {
    const a = scriptedAgent('a', ['one', 'three DONE']);
    const b = scriptedAgent('b', ['two']);
    const fixed = await runAgent(
      groupChatAgent([a, b], {
        selector: 'fixedOrder',
        speakerOrder: ['a', 1],
        terminationKeywords: ['done'],
      }),
      'count',
    );
    expect(fixed.spoke).toEqual(['a', 'b', 'a']);
    expect(fixed.text).toBe('three DONE');
    const coordinator = scriptedAgent('host', ['critic should speak', 'now poet', 'critic again']);
    const poet = scriptedAgent('poet', ['roses are red']);
    const critic = scriptedAgent('critic', ['needs rhyme', 'fine now']);
    const led = await runAgent(groupChatAgent([poet, critic], { coordinator, maxRounds: 3 }), 'a poem');
    expect(led.spoke).toEqual(['critic', 'poet', 'critic']);
    expect(led.text).toBe('fine now');
  });

  it('vote: majority, weighted, unanimity failing, and a second round when undecided', async () => {
    const voters = (answers: string[][]) => answers.map((a, i) => scriptedAgent(`v${i}`, a));
    const majority = await runAgent(voteAgent(voters([['Paris'], ['paris.'], ['Lyon']])), 'capital?');
    expect(majority.text).toBe('Paris');
    const weighted = await runAgent(
      voteAgent(voters([['Paris'], ['Paris'], ['Lyon']]), { aggregator: 'weighted', weights: [1, 1, 5] }),
      'capital?',
    );
    expect(weighted.text).toBe('Lyon');
    const split = await runAgent(voteAgent(voters([['yes'], ['no']]), { aggregator: 'unanimous' }), 'ok?');
    expect(split.finish).toBe('other');
    expect(split.events.at(-1)).toMatchObject({
      type: 'error',
      message: expect.stringContaining('not unanimous after 1 round: v0: yes; v1: no'),
    });
    const second = voters([
      ['yes', 'yes'],
      ['no', 'yes'],
    ]);
    const agreed = await runAgent(voteAgent(second, { aggregator: 'unanimous', votingRounds: 2 }), 'ok?');
    expect(agreed.text).toBe('yes');
    expect(agreed.spoke).toEqual(['v0', 'v1', 'v0', 'v1']);
    expect(lastInput(second[1]!, 1)).toContain('Votes:\nv0: yes\nv1: no');
  });

  it('pipeline (coding-agent shape): phases in order, looping from phase 1 until the review passes', async () => {
    const orchestrator = scriptedAgent('coding-agent', ['Plan the work.']);
    const planner = scriptedAgent('planner', ['plan']);
    const explorer = scriptedAgent('explorer', ['files: a.ts']);
    const alpha = scriptedAgent('coder-alpha', ['alpha v1', 'alpha v2']);
    const beta = scriptedAgent('coder-beta', ['beta v1', 'beta v2']);
    const tester = scriptedAgent('tester', ['FAIL: 1 test', 'all green']);
    const reviewer = scriptedAgent('reviewer', ['blocking: fix test', 'APPROVED']);
    const config = parseOrchestration({
      orchestration: {
        mode: 'pipeline',
        maxIterations: 15,
        loopFromPhase: 1,
        phases: [
          { mode: 'sequential', agents: ['planner', 'explorer'] },
          { mode: 'concurrent', agents: ['coder-alpha', 'coder-beta'] },
          { mode: 'sequential', agents: ['tester', 'reviewer'] },
        ],
      },
    });
    const workflow = orchestrationWorkflow(config, {
      root: orchestrator,
      agents: [planner, explorer, alpha, beta, tester, reviewer],
    });
    const run = await runAgent(new WorkflowAgent(workflow), 'add a feature');
    expect(run.spoke).toEqual([
      'coding-agent',
      'planner',
      'explorer',
      'coder-alpha',
      'coder-beta',
      'tester',
      'reviewer',
      'coder-alpha',
      'coder-beta',
      'tester',
      'reviewer',
    ]);
    expect(run.text).toBe('APPROVED');
    expect(lastInput(tester)).toBe('## coder-alpha\nalpha v1\n\n## coder-beta\nbeta v1');
    expect(lastInput(alpha, 1)).toBe('blocking: fix test');
  });

  it('pipeline stops after maxIterations passes when the review never passes', async () => {
    const worker = scriptedAgent('worker', ['try 1', 'try 2', 'try 3']);
    const result = await pipelineWorkflow([{ mode: 'sequential', agents: [worker] }], {
      loopFromPhase: 0,
      maxIterations: 3,
    }).run('go').result;
    expect(result.outputs.map((o) => o.value)).toEqual(['try 3']);
    expect(worker.client.calls).toHaveLength(3);
  });
});

describe('metadata.orchestration', () => {
  it('reads the string and object forms with the upstream aliases and the legacy maxIterations', () => {
    expect(parseOrchestration(undefined)).toEqual({ mode: 'magentic' });
    expect(parseOrchestration({ orchestration: 'parallel' })).toEqual({ mode: 'concurrent' });
    expect(parseOrchestration({ orchestration: 'group_chat', maxIterations: 4 })).toEqual({
      mode: 'groupChat',
      maxIterations: 4,
    });
    expect(
      parseOrchestration({
        orchestration: { mode: 'groupChat', selector: 'fixed_order', speakerOrder: [1, 0] },
      }),
    ).toEqual({
      mode: 'groupChat',
      selector: 'fixedOrder',
      speakerOrder: [1, 0],
    });
    expect(() => parseOrchestration({ orchestration: 'swarm' })).toThrow(
      /unknown orchestration mode "swarm"/,
    );
    expect(() => parseOrchestration({ orchestration: 'workflow' })).toThrow(
      /write it as a kind: workflow file/,
    );
  });
});
