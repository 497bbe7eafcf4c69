// A second process writing wiki pages, one trial after another (one process serves every trial:
// a process start costs more than the race it takes part in). Each trial is two stdin lines: a
// JSON line `{ root, page, content, expectedHash? }`, on which it opens the wiki and prints
// "ready", then "go" (so two processes start their write together), on which it writes, prints
// the result as one JSON line and closes the wiki. It ends when stdin does.
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { Wiki } from '../wiki/wiki.js';

const trialSchema = z.object({
  root: z.string(),
  page: z.string(),
  content: z.string(),
  expectedHash: z.string().optional(),
});

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
for (let line = await lines.next(); !line.done; line = await lines.next()) {
  const { root, page, content, expectedHash } = trialSchema.parse(JSON.parse(line.value));
  const wiki = await Wiki.open(root);
  process.stdout.write('ready\n');
  if ((await lines.next()).done) break;
  const result = await wiki.write(
    { page, content, ...(expectedHash ? { expectedHash } : {}) },
    AbortSignal.timeout(30_000),
  );
  process.stdout.write(`${JSON.stringify({ ok: result.ok })}\n`);
  await wiki.close();
}
