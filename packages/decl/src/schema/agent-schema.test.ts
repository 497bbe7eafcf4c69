import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentJsonSchema } from './agent-schema.js';

describe('the JSON Schema file shipped for editors', () => {
  it('matches the zod schema (regenerate with pnpm --filter @raf/decl schema:write)', () => {
    const shipped = JSON.parse(
      readFileSync(new URL('../../schema/agent.schema.json', import.meta.url), 'utf8'),
    );
    expect(shipped).toEqual(agentJsonSchema());
  });
});
