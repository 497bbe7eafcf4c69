// Writes src/builtin-tools/builtin-tool-schemas.ts: the built-in tools' JSON Schemas, from zod.
import { writeFileSync } from 'node:fs';
import { renderBuiltinToolSchemas } from '../src/builtin-tools/render-tool-schemas.js';

writeFileSync(
  new URL('../src/builtin-tools/builtin-tool-schemas.ts', import.meta.url),
  renderBuiltinToolSchemas(),
);
