import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProtectedPath } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { openapiPlugin } from './plugin.js';

// Issue 26: under `deny`, the model rewrote a local spec with write_file and the next run built
// its tools from the model's spec. A `specPath` is declared as a protected path of every
// workspace (readable, never written), through the plugin contract's `protect` hook.
const fixtures = fileURLToPath(new URL('./test-support/fixtures/', import.meta.url));

describe('kind: openapi with specPath', () => {
  it('declares the spec file as what the definition loads', async () => {
    const protectedPaths: ProtectedPath[] = [];
    const tools = await openapiPlugin().toolKinds!.openapi!(
      {
        kind: 'openapi',
        name: 'petstore',
        config: { specPath: 'petstore-openapi-3.0.yaml', baseUrl: 'http://127.0.0.1:9/v3' },
      },
      { baseDir: fixtures, env: {}, warn: () => {}, protect: (paths) => protectedPaths.push(...paths) },
    );
    expect(tools.length).toBeGreaterThan(0);
    expect(protectedPaths).toEqual([
      { path: join(fixtures, 'petstore-openapi-3.0.yaml'), reason: 'OpenAPI spec', readable: true },
    ]);
  });
});
