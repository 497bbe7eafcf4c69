import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './packed.js';

/**
 * The TypeScript snippets of a README, as a reader copies them: each ```ts block is a module of its
 * own, type-checked and run by the consumer test. A marker on the line before a block changes that:
 * `<!-- snippet: continues -->` appends it to the block before (it uses that block's names);
 * `<!-- snippet: not run (why) -->` type-checks it only (it needs a server or an answer the test
 * model does not give); `<!-- snippet: fragment (why) -->` leaves it out (not a whole module).
 */
export interface Snippet {
  /** `README.md:106`: where the block starts. */
  at: string;
  code: string;
  run: boolean;
}

export function readmeSnippets(file: string, options: { firstOnly?: boolean } = {}): Snippet[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '```ts') continue;
    const end = lines.findIndex((line, j) => j > i && line.trim() === '```');
    if (end === -1) throw new Error(`${file}:${i + 1}: a \`\`\`ts block without its end`);
    const start = i + 1;
    const code = lines.slice(i + 1, end).join('\n');
    const marker = /<!-- snippet: (continues|not run|fragment)\b/.exec(lines[i - 1] ?? '')?.[1];
    const previous = snippets.at(-1);
    i = end;
    if (marker === 'fragment') continue;
    if (marker === 'continues' && previous) previous.code += `\n${code}`;
    else snippets.push({ at: `${file}:${start}`, code, run: marker !== 'not run' });
  }
  // A package's quick start: its first snippet (with what continues it).
  return options.firstOnly ? snippets.slice(0, 1) : snippets;
}
