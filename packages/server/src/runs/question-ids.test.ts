import { OpenAICompatibleChatClient } from '@raf/client';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { defineTool, toolSuccess } from '@raf/core';
import { AgentBuilder } from '@raf/framework';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readEvents, type Served, serve, TOKEN_A } from '../test-support/served-fixture.js';

// A question's id must name that question only. The model picks the call ids, and a run that
// resumes after an approval is a new execution of the same run: a call id used again there (a
// hostile model, or one that numbers its calls per turn) must not get the answer the user gave
// to an earlier question of the run without being asked.
let model: MockModelServer;
let client: OpenAICompatibleChatClient;
let served: Served;
const answers: unknown[] = [];

beforeAll(async () => {
  model = await startMockModelServer({
    recordRequests: false,
    turns: (request) => {
      const messages = (request.body?.messages ?? []) as { role: string }[];
      const tools = messages.filter((m) => m.role === 'tool').length;
      // ask (c1) → deploy (g1, gated: the run pauses) → ask again, reusing the id c1 → done.
      if (tools === 0) return { toolCalls: [{ id: 'c1', name: 'confirm', arguments: { what: 'read' } }] };
      if (tools === 1) return { toolCalls: [{ id: 'g1', name: 'deploy', arguments: {} }] };
      if (tools === 2) return { toolCalls: [{ id: 'c1', name: 'confirm', arguments: { what: 'wipe' } }] };
      return { text: 'done' };
    },
  });
  client = new OpenAICompatibleChatClient({ model: 'mock', baseURL: model.baseURL, maxRetries: 0 });
  const confirm = defineTool({
    name: 'confirm',
    description: 'Asks the user to confirm',
    parameters: z.object({ what: z.string() }),
    execute: async ({ what }, ctx) => {
      const answer = await ctx.requestInput!({
        source: 'tool:confirm',
        message: `May I ${what}?`,
        mode: 'form',
        schema: { type: 'object', properties: { yes: { type: 'boolean' } }, required: ['yes'] },
      });
      answers.push({ what, answer });
      return toolSuccess(answer);
    },
  });
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploys',
    parameters: z.object({}),
    requiresApproval: true,
    execute: () => toolSuccess('deployed'),
  });
  const agent = new AgentBuilder('asker').chatClient(client).withTools([confirm, deploy]).build();
  served = await serve({ agents: [{ name: 'asker', agent: async () => agent }] } as never);
});
afterAll(async () => {
  await served?.close();
  await client?.close();
  await model?.close();
});

const post = (path: string, body: unknown) =>
  fetch(`${served.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function pendingQuestions(runId: string): Promise<{ questionId: string; message: string }[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const view = (await (
      await fetch(`${served.url}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${TOKEN_A}` } })
    ).json()) as { status: string; pendingQuestions: { questionId: string; message: string }[] };
    if (view.pendingQuestions.length > 0 || view.status !== 'running' || Date.now() > deadline)
      return view.pendingQuestions;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('question ids across the executions of one run', { timeout: 60_000 }, () => {
  it('a call id the model uses again after an approval gets a new question, not the old answer', async () => {
    const started = await post('/v1/agents/asker/runs', { input: 'go' });
    const { runId } = (await started.json()) as { runId: string };
    const first = await pendingQuestions(runId);
    expect(first).toMatchObject([{ message: 'May I read?' }]);
    const given = await post(`/v1/runs/${runId}/answers`, {
      answers: [{ questionId: first[0]!.questionId, action: 'accept', content: { yes: true } }],
    });
    expect(given.status).toBe(202);
    const paused = await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A);
    expect(paused.at(-1)?.data).toMatchObject({ type: 'finish', reason: 'awaitingApproval' });
    expect(
      (await post(`/v1/runs/${runId}/approvals`, { approvals: [{ callId: 'g1', approved: true }] })).status,
    ).toBe(202);
    // The second question waits for the user: it was never answered.
    const second = await pendingQuestions(runId);
    expect(answers).toEqual([{ what: 'read', answer: { action: 'accept', content: { yes: true } } }]);
    expect(second).toMatchObject([{ message: 'May I wipe?' }]);
    expect(second[0]!.questionId).not.toBe(first[0]!.questionId);
    expect(
      (
        await post(`/v1/runs/${runId}/answers`, {
          answers: [{ questionId: second[0]!.questionId, action: 'decline' }],
        })
      ).status,
    ).toBe(202);
    // The streamed event names the id the answer gives.
    const rest = await readEvents(`${served.url}/v1/runs/${runId}/events`, TOKEN_A, {
      lastEventId: paused.at(-1)!.id,
    });
    expect(rest.find((e) => e.data.type === 'input-request')?.data).toMatchObject({
      questionId: second[0]!.questionId,
    });
    expect(rest.at(-1)?.data).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(answers.at(-1)).toEqual({ what: 'wipe', answer: { action: 'decline' } });
  });
});
