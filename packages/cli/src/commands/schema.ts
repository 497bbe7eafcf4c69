import { agentJsonSchema } from '@raf/decl';
import type { CliIO } from '../io.js';
import { EXIT } from '../io.js';

/** `raf schema`: the JSON Schema of agent files, for editors. */
export function schemaCommand(io: CliIO): number {
  io.stdout.write(`${JSON.stringify(agentJsonSchema(), null, 2)}\n`);
  return EXIT.ok;
}
