import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeUpstreamWiki } from '../test-support/make-wikis.js';
import { Wiki } from './wiki.js';

let dir: string;
let wikis: Wiki[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-hostile-wiki-'));
  await mkdir(join(dir, 'outside'));
  await writeFile(join(dir, 'outside', 'secret.md'), 'the launch code is zebra-42\n');
  await writeFile(join(dir, 'outside', 'meta.yaml'), 'title: Stolen title\n');
});
afterEach(async () => {
  await Promise.all(wikis.map((w) => w.close()));
  wikis = [];
  await rm(dir, { recursive: true, force: true });
});
const open = async (root: string, signal?: AbortSignal) => {
  const wiki = await Wiki.open(root, signal ? { signal } : {});
  wikis.push(wiki);
  return wiki;
};
const signal = () => AbortSignal.timeout(10_000);

describe('a wiki folder with planted links and FIFOs', () => {
  it('an upstream page whose content.md links outside is not read: no page, no search hit', async () => {
    const root = join(dir, 'wiki');
    await makeUpstreamWiki(root);
    await rm(join(root, 'eng', 'setup', 'content.md'));
    await symlink('/etc/passwd', join(root, 'eng', 'setup', 'content.md'));
    await mkdir(join(root, 'eng', 'leak'));
    await writeFile(join(root, 'eng', 'leak', '_page.yaml'), 'title: Leak\n');
    await symlink(join(dir, 'outside', 'secret.md'), join(root, 'eng', 'leak', 'content.md'));
    const wiki = await open(root);
    expect(wiki.page('eng/setup')).toBeUndefined();
    expect(wiki.page('eng/leak')).toBeUndefined();
    expect(wiki.search('root zebra launch')).toEqual([]);
    expect(JSON.stringify(wiki.pageList)).not.toMatch(/zebra|root:x:0/);
    expect(wiki.problems.join('\n')).toMatch(/eng\/setup\/content\.md: a symbolic link/);
  });

  it('a linked _page.yaml sets no title from outside; a linked markdown page or folder is not read', async () => {
    const root = join(dir, 'wiki');
    await makeUpstreamWiki(root);
    await rm(join(root, 'eng', 'release', '_page.yaml'));
    await symlink(join(dir, 'outside', 'meta.yaml'), join(root, 'eng', 'release', '_page.yaml'));
    await symlink(join(dir, 'outside', 'secret.md'), join(root, 'notes.md'));
    await symlink(join(dir, 'outside'), join(root, 'linked'));
    const wiki = await open(root);
    expect(wiki.pageList.map((p) => p.title)).not.toContain('Stolen title');
    expect(wiki.page('eng/release')).toBeUndefined();
    expect(wiki.page('notes')).toBeUndefined();
    expect(wiki.page('linked/secret')).toBeUndefined();
    expect(JSON.stringify(wiki.pageList)).not.toContain('zebra');
  });

  it('a FIFO as a page file hangs neither open nor wiki_write', async () => {
    const root = join(dir, 'wiki');
    await makeUpstreamWiki(root);
    await rm(join(root, 'eng', 'release', 'content.md'));
    execFileSync('mkfifo', [join(root, 'eng', 'release', 'content.md')]);
    execFileSync('mkfifo', [join(root, 'pipe.md')]);
    const started = Date.now();
    const wiki = await open(root, signal());
    expect(wiki.page('eng/release')).toBeUndefined();
    expect(wiki.problems.join('\n')).toMatch(/pipe\.md: not a regular file/);
    // Creating the page the FIFO sits at: refused at once (the FIFO is never opened for writing).
    await expect(wiki.write({ page: 'pipe', content: 'x' }, signal())).rejects.toThrow(/not a regular file/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('open honours its signal', async () => {
    const root = join(dir, 'wiki');
    await makeUpstreamWiki(root);
    await expect(Wiki.open(root, { signal: AbortSignal.abort() })).rejects.toThrow();
  });

  it('temporary files of interrupted writes are swept by age on open', async () => {
    const root = join(dir, 'wiki');
    await makeUpstreamWiki(root);
    const old = join(root, 'eng', '.content.md.0123456789ab.raf-tmp');
    const fresh = join(root, 'eng', '.content.md.ba9876543210.raf-tmp');
    await writeFile(old, 'half');
    await writeFile(fresh, 'half');
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(old, hourAgo, hourAgo);
    await open(root);
    expect((await readdir(join(root, 'eng'))).filter((n) => n.endsWith('.raf-tmp'))).toEqual([
      '.content.md.ba9876543210.raf-tmp',
    ]);
  });

  it('a 172 KB page opens in linear time (seconds, not tens of seconds)', async () => {
    const root = join(dir, 'big');
    await mkdir(root);
    let text = '# Big page\n\n';
    for (let i = 0; text.length < 172 * 1024; i++)
      text += `Paragraph ${i} about [[topic ${i % 50}]] with some words and \`code\` here.\n\n`;
    await writeFile(join(root, 'big.md'), text);
    const started = Date.now();
    const wiki = await open(root);
    expect(wiki.pageList).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(6000);
  }, 60_000);
});

const child = fileURLToPath(new URL('../test-support/write-page-process.ts', import.meta.url));

/** A writer process, kept for every trial: `trial` opens the wiki and waits for `go`. */
function writer() {
  const proc = spawn(process.execPath, ['--conditions=@raf/source', '--import', 'tsx', child], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<never>((_, reject) =>
    proc.once('exit', (code) => reject(new Error(`writer exited ${code}: ${err}`))),
  );
  exited.catch(() => undefined);
  const nextLine = async () => {
    const line = await Promise.race([lines.next(), exited]);
    if (line.done) throw new Error(`writer closed its output: ${err}`);
    return line.value;
  };
  return {
    /** Resolves once the wiki at `root` is open in the process. */
    async trial(root: string, page: string, content: string, expectedHash?: string) {
      proc.stdin.write(`${JSON.stringify({ root, page, content, expectedHash })}\n`);
      expect(await nextLine()).toBe('ready');
    },
    /** Writes and resolves with whether the write succeeded. */
    async go(): Promise<boolean> {
      proc.stdin.write('go\n');
      return (JSON.parse(await nextLine()) as { ok: boolean }).ok;
    },
    close: () => {
      proc.stdin.end();
      return new Promise<void>((resolve) =>
        proc.exitCode === null ? proc.once('exit', () => resolve()) : resolve(),
      );
    },
  };
}

type Writer = ReturnType<typeof writer>;

/** One trial: both processes open the wiki, then both write at once. */
async function race(writers: [Writer, Writer], root: string, a: string[], b: string[]): Promise<boolean[]> {
  const [first, second] = writers;
  await Promise.all([first.trial(root, a[0]!, a[1]!, a[2]), second.trial(root, b[0]!, b[1]!, b[2])]);
  return Promise.all([first.go(), second.go()]);
}

describe('two processes writing one page (compare-and-swap under a lock)', () => {
  const TRIALS = 10;
  let writers: [Writer, Writer];
  beforeEach(() => {
    writers = [writer(), writer()];
  });
  afterEach(async () => {
    await Promise.all(writers.map((w) => w.close()));
  });

  it(`replacing with the same expected_hash: one ok and one conflict, ${TRIALS} of ${TRIALS}`, async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const root = join(dir, `replace-${trial}`);
      await mkdir(root);
      await writeFile(join(root, 'page.md'), 'first version\n');
      const hash = (await open(root)).page('page')?.hash as string;
      const results = await race(writers, root, ['page', 'from A\n', hash], ['page', 'from B\n', hash]);
      expect(results.sort()).toEqual([false, true]);
      const text = await readFile(join(root, 'page.md'), 'utf8');
      expect(['from A\n', 'from B\n']).toContain(text);
    }
  }, 240_000);

  it(`creating one page: one ok and one conflict, never two, ${TRIALS} of ${TRIALS}`, async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const root = join(dir, `create-${trial}`);
      await mkdir(root);
      const results = await race(writers, root, ['notes/new', 'by A\n'], ['notes/new', 'by B\n']);
      expect(results.sort()).toEqual([false, true]);
    }
  }, 240_000);
});
