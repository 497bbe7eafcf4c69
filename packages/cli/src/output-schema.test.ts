import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

// Issue 32: a YAML `outputSchema` (JSON Schema, or the upstream's PropertySchema) reaches the model
// as json_schema, and `raf run --json`'s finish carries the validated `output`.

let dir: string;
let server: MockModelServer;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-output-')));
  server = await startMockModelServer({ turns: () => ({ text: '{"city":"Paris","celsius":21}' }) });
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const finishOf = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .at(-1);

describe('outputSchema in YAML', () => {
  it.each([
    [
      'a JSON Schema',
      `outputSchema:
  type: object
  properties: { city: { type: string }, celsius: { type: number } }
  required: [city, celsius]
  additionalProperties: false`,
      true,
    ],
    [
      "the upstream's PropertySchema",
      `outputSchema:
  properties:
    - { name: city, kind: string, required: true }
    - { name: celsius, kind: float, required: true }`,
      false,
    ],
  ])('%s: finish carries output', async (_name, schema, strict) => {
    await writeFile(
      join(dir, 'agent.yaml'),
      `kind: prompt
name: weather
instructions: Answer with the weather.
model: { provider: custom, id: m, connection: { endpoint: ${server.baseURL} } }
${schema}
`,
    );
    const run = createMemoryIO({ cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir } });
    expect(await main(['run', 'agent.yaml', '-i', 'Paris?', '--json'], run.io), run.err()).toBe(0);
    expect(finishOf(run.out())).toMatchObject({
      type: 'finish',
      reason: 'stop',
      output: { city: 'Paris', celsius: 21 },
    });
    expect(server.requests[0]!.body?.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { strict },
    });
  });
});
