import { fileURLToPath } from 'node:url';
import { collectAgentResponse, defineTool, getErrorMessage, toolFailure, toolSuccess } from '@raf/core';
import { DeclAgentBuilder } from '@raf/decl';
import { z } from 'zod';

const CUSTOMERS: Record<string, { name: string; plan: string }> = {
  'ana@example.com': { name: 'Ana Lima', plan: 'Business' },
};

/** The YAML declares `lookup_customer`; code supplies its implementation. */
const lookupCustomer = defineTool({
  name: 'lookup_customer',
  description: 'replaced by the YAML description',
  parameters: z.object({ email: z.string() }),
  execute: ({ email }) => {
    const customer = CUSTOMERS[email];
    return customer ? toolSuccess(customer) : toolFailure(`No customer with email ${email}`);
  },
});

/** Not in the YAML at all: added in code, given to the agent directly, never routed to the workspace. */
const today = defineTool({
  name: 'today',
  description: "Today's date (ISO)",
  parameters: z.object({}),
  execute: () => toolSuccess({ date: '2026-11-29' }),
});

export function supportAgent() {
  return new DeclAgentBuilder()
    .fromYamlFile(fileURLToPath(new URL('./agent.yaml', import.meta.url)))
    .registerFactory('lookup_customer', () => lookupCustomer)
    .withTool('today', today);
}

export async function answer(
  question: string,
  write: (text: string) => void = (t) => process.stdout.write(t),
) {
  const agent = await supportAgent().build();
  const response = await collectAgentResponse(agent.run(question), {
    onUpdate: (u) => {
      if (u.type === 'text-delta') write(u.delta);
      if (u.type === 'tool-called') write(`→ ${u.name} ${JSON.stringify(u.result)}\n`);
    },
  });
  write('\n');
  return response;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  answer(process.argv.slice(2).join(' ') || 'Please answer ticket T-1001').catch((error: unknown) => {
    process.stderr.write(`mixed-mode: ${getErrorMessage(error)}\n`);
    process.exitCode = 1;
  });
}
