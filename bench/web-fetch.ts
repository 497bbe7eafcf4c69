// web_fetch (mode markdown: Readability, then Turndown) on 1 MB pages served from 127.0.0.1,
// through the real tool: HTTP, the SSRF guard, charset sniffing, parsing, extraction.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webPlugin } from '@raf/web';
import { densePage, newsPage } from './lib/big-page.js';

export interface WebBenchResult {
  /**
   * Median CPU ms (user + system, this process: the tool and the local server) of one web_fetch
   * (markdown) of the 1 MB news page. Target ≤ 150.
   */
  fetchReadabilityMarkdownMs: number;
  /** Median wall ms of the same (inflated on a loaded machine; for context). */
  fetchReadabilityMarkdownWallMs: number;
  /** Median CPU ms for a 1 MB page that is nearly all article text (the worst case; no target). */
  fetchReadabilityMarkdownDenseMs: number;
  pageBytes: number;
  markdownChars: { news: number; dense: number };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export async function runWebBench(options: { warmup: number; runs: number }): Promise<WebBenchResult> {
  const pages: Record<string, Buffer> = {
    '/news': Buffer.from(newsPage(1_048_576)),
    '/dense': Buffer.from(densePage(1_048_576)),
  };
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(pages[req.url ?? ''] ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const [tool] = await webPlugin().toolKinds!.web!(
    { kind: 'web', name: 'web_fetch', config: { allowPrivate: ['127.0.0.1'], maxChars: 10_000_000 } },
    { baseDir: '.', env: {}, warn: () => {} },
  );
  const context = { signal: new AbortController().signal, callId: 'bench' };
  const measure = async (path: string) => {
    let chars = 0;
    const once = async () => {
      const result = await tool!.execute({ url: `${origin}${path}`, mode: 'markdown' }, context);
      const content = (result.data as { content?: string } | undefined)?.content;
      if (!result.ok || !content)
        throw new Error(`web_fetch failed: ${JSON.stringify(result).slice(0, 300)}`);
      chars = content.length;
    };
    for (let i = 0; i < options.warmup; i++) await once();
    const cpu: number[] = [];
    const wall: number[] = [];
    for (let i = 0; i < options.runs; i++) {
      const startedCpu = process.cpuUsage();
      const started = performance.now();
      await once();
      wall.push(performance.now() - started);
      const used = process.cpuUsage(startedCpu);
      cpu.push((used.user + used.system) / 1000);
    }
    return { cpuMs: median(cpu), wallMs: median(wall), chars };
  };
  try {
    const news = await measure('/news');
    const dense = await measure('/dense');
    return {
      fetchReadabilityMarkdownMs: news.cpuMs,
      fetchReadabilityMarkdownWallMs: news.wallMs,
      fetchReadabilityMarkdownDenseMs: dense.cpuMs,
      pageBytes: pages['/news']!.length,
      markdownChars: { news: news.chars, dense: dense.chars },
    };
  } finally {
    server.close();
  }
}
