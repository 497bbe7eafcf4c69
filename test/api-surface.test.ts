import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The public surface of every entry point of every package (each `exports` entry with sources):
 * every exported name (types too) and its kind, sorted. A change here is a change of public API:
 * update the snapshot on purpose (`npx vitest run test/api-surface.test.ts -u`) and say so in the
 * changeset. `@raf/x/sub` is pinned in `api/x-sub.api.txt`.
 */
const root = fileURLToPath(new URL('..', import.meta.url));

const ENTRY_POINTS = readdirSync(join(root, 'packages'))
  .filter((dir) => existsSync(join(root, 'packages', dir, 'package.json')))
  .sort()
  .flatMap((dir) => {
    const manifest = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as {
      name: string;
      exports?: Record<string, string | Record<string, string>>;
    };
    return Object.entries(manifest.exports ?? {}).flatMap(([subpath, target]) => {
      const source = typeof target === 'object' ? target['@raf/source'] : undefined;
      if (!source) return [];
      const sub = subpath === '.' ? '' : subpath.slice(2);
      return [
        {
          name: sub ? `${manifest.name}/${sub}` : manifest.name,
          file: `packages/${dir}/${source.slice(2)}`,
          snapshot: `api/${dir}${sub ? `-${sub.replaceAll('/', '-')}` : ''}.api.txt`,
        },
      ];
    });
  });

function kindOf(symbol: ts.Symbol): string {
  const f = symbol.flags;
  if (f & ts.SymbolFlags.Class) return 'class';
  if (f & ts.SymbolFlags.Function) return 'function';
  if (f & ts.SymbolFlags.Enum) return 'enum';
  if (f & ts.SymbolFlags.Variable) return 'const';
  if (f & ts.SymbolFlags.Interface) return 'interface';
  if (f & ts.SymbolFlags.TypeAlias) return 'type';
  return 'other';
}

function exportsOf(files: string[]): Map<string, string[]> {
  const program = ts.createProgram(
    files.map((f) => `${root}${f}`),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      customConditions: ['@raf/source'],
      types: ['node'],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    },
  );
  const checker = program.getTypeChecker();
  const result = new Map<string, string[]>();
  for (const file of files) {
    const source = program.getSourceFile(`${root}${file}`);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`cannot read ${file}`);
    const lines = checker.getExportsOfModule(moduleSymbol).map((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return `${symbol.getName()} (${kindOf(target)})`;
    });
    result.set(file, lines.sort());
  }
  return result;
}

describe('public API surface', () => {
  it('covers every entry point of every package', () => {
    expect(ENTRY_POINTS.length).toBe(28);
  });
  const surfaces = exportsOf(ENTRY_POINTS.map((e) => e.file));
  for (const entry of ENTRY_POINTS) {
    it(`pins the exports of ${entry.name}`, async () => {
      const lines = surfaces.get(entry.file) ?? [];
      expect(lines.length).toBeGreaterThan(0);
      await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot(`${root}${entry.snapshot}`);
    });
  }
});
