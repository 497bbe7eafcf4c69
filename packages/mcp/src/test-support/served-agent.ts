// An agent served over stdio by `serveAgentOverStdio`, on a scripted model with a gated tool.
// Run: node --import tsx served-agent.ts. Env: SERVED_LOG (a file: one line per transfer made).
import { appendFileSync } from 'node:fs';
import { ScriptedChatClient } from '@raf/client/testing';
import { defineTool, toolSuccess } from '@raf/core';
import { AgentBuilder } from '@raf/framework';
import * as z from 'zod';
import { serveAgentOverStdio } from '../serve/serve-agent.js';

const transfer = defineTool({
  name: 'transfer',
  description: 'Moves money',
  parameters: z.object({ amount: z.number() }),
  requiresApproval: true,
  execute: ({ amount }) => {
    if (process.env.SERVED_LOG) appendFileSync(process.env.SERVED_LOG, `transfer ${amount}\n`);
    return toolSuccess({ sent: amount });
  },
});
// Each client's call: the model asks for a transfer, then says what happened.
const client = new ScriptedChatClient([
  { toolCalls: [{ id: 'call_t', name: 'transfer', arguments: { amount: 5 } }] },
  { text: 'Sent 5.' },
  { toolCalls: [{ id: 'call_u', name: 'transfer', arguments: { amount: 500 } }] },
  { text: 'Not sent.' },
]);
const agent = new AgentBuilder('teller')
  .chatClient(client)
  .description('A bank teller')
  .withTool(transfer)
  .build();
await serveAgentOverStdio(agent);
