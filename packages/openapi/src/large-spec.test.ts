import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openapiPlugin } from './plugin.js';

/** 100 resources × (list, create, get) = 300 operations, sharing $ref'd schemas, as big APIs do. */
function largeSpec(resources: number): object {
  const paths: Record<string, object> = {};
  const schemas: Record<string, object> = {
    Page: { type: 'object', properties: { next: { type: 'string' }, total: { type: 'integer' } } },
    Error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' } } },
  };
  const errors = {
    '4XX': {
      description: 'error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    },
  };
  for (let i = 0; i < resources; i++) {
    const name = `Resource${i}`;
    schemas[name] = {
      type: 'object',
      required: ['name'],
      properties: {
        id: { type: 'string', readOnly: true },
        name: { type: 'string', maxLength: 120 },
        tags: { type: 'array', items: { type: 'string' } },
        owner: { $ref: `#/components/schemas/Resource${(i + 1) % resources}` },
        page: { $ref: '#/components/schemas/Page' },
        status: { type: 'string', enum: ['active', 'archived'] },
      },
    };
    const ref = { $ref: `#/components/schemas/${name}` };
    paths[`/resources${i}`] = {
      get: {
        operationId: `listResource${i}`,
        summary: `List resource ${i}`,
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } },
          { name: 'cursor', in: 'query', schema: { type: 'string' } },
        ],
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { type: 'array', items: ref } } },
          },
          ...errors,
        },
      },
      post: {
        operationId: `createResource${i}`,
        summary: `Create resource ${i}`,
        requestBody: { required: true, content: { 'application/json': { schema: ref } } },
        responses: {
          '201': { description: 'created', content: { 'application/json': { schema: ref } } },
          ...errors,
        },
      },
    };
    paths[`/resources${i}/{id}`] = {
      get: {
        operationId: `getResource${i}`,
        summary: `Get resource ${i}`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: ref } } },
          ...errors,
        },
      },
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Large API', version: '1.0.0' },
    servers: [{ url: 'https://api.example.com/v1' }],
    components: { schemas, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths,
  };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-openapi-large-'));
  await writeFile(join(dir, 'large.json'), JSON.stringify(largeSpec(100)));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a spec with 300 operations', () => {
  it('loads into 300 tools in under 300 ms (median of 5, after the parser module is loaded)', async () => {
    const factory = openapiPlugin().toolKinds!.openapi!;
    const context = { baseDir: dir, env: {}, warn: () => {} };
    const load = () =>
      factory(
        { kind: 'openapi', name: 'large', config: { specPath: 'large.json', connection: { apiKey: 't' } } },
        context,
      );
    const first = await load(); // also loads the $ref parser once
    expect(first).toHaveLength(300);
    expect(first[1]?.name).toBe('createResource0');
    // A circular chain through 100 schemas is cut, and every tool schema serialises.
    expect(() => JSON.stringify(first.map((t) => t.parameters))).not.toThrow();
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await load();
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const median = times[2] as number;
    console.log(
      `300-operation spec: median ${median.toFixed(1)} ms (runs: ${times.map((t) => t.toFixed(0)).join(', ')})`,
    );
    expect(median).toBeLessThan(300);
  });
});
