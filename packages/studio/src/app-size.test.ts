import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildStudioIfMissing } from './testing/build.js';

describe('the built studio app', () => {
  it('ships at most 150 KB of gzipped JavaScript, loaded by index.html', async () => {
    const dir = buildStudioIfMissing();
    const assets = await readdir(join(dir, 'assets'));
    const scripts = assets.filter((f) => f.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    let gzipped = 0;
    for (const file of scripts) gzipped += gzipSync(await readFile(join(dir, 'assets', file))).length;
    expect(gzipped).toBeLessThanOrEqual(150 * 1024);
    const html = await readFile(join(dir, 'index.html'), 'utf8');
    for (const file of scripts) expect(html).toContain(`./assets/${file}`);
    // Nothing is loaded from elsewhere: the server's CSP allows 'self' only.
    expect(html).not.toMatch(/(src|href)="https?:/);
  }, 60_000);
});
