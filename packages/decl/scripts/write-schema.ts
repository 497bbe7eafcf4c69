// Writes schema/agent.schema.json (for `# yaml-language-server: $schema=…`) from the zod schema.
import { writeFileSync } from 'node:fs';
import { agentJsonSchema } from '../src/schema/agent-schema.js';

writeFileSync(
  new URL('../schema/agent.schema.json', import.meta.url),
  `${JSON.stringify(agentJsonSchema(), null, 2)}\n`,
);
