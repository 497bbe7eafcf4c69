import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layering of SPEC §2, checked on what ships: each package's sources (always) and its built
 * bundle (when built). A package imports only packages it declares as dependencies (not dev
 * dependencies: a consumer's install has none of those), only from a lower floor, and nothing
 * depends on the CLI. A package's bundle inlines no other package. No import cycle hides inside a
 * package behind a lazy `import()`.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const packagesDir = join(root, 'packages');

const FLOOR: Record<string, number> = {
  '@raf/core': 0,
  '@raf/client': 1,
  '@raf/framework': 1,
  '@raf/workflow': 1,
  '@raf/decl': 2,
  '@raf/web': 3,
  '@raf/mcp': 3,
  '@raf/rag': 3,
  '@raf/wiki': 3,
  '@raf/sandbox': 3,
  '@raf/openapi': 3,
  '@raf/llama': 3,
  '@raf/a2a': 3,
  '@raf/ai-sdk': 3,
  '@raf/studio': 3,
  '@raf/server': 3,
  '@raf/cli': 4,
};

/** Imports across one floor that SPEC §2/§9 allow by name, each with its reason. */
const SIDEWAYS: Record<string, Record<string, string>> = {
  // One network policy: every request of an extension goes through the SSRF guard of @raf/web.
  '@raf/openapi': { '@raf/web': 'the SSRF guard (@raf/web/http)' },
  '@raf/rag': { '@raf/web': 'the SSRF guard (@raf/web/http)' },
  '@raf/a2a': { '@raf/web': 'the SSRF guard (@raf/web/http): every request to a remote agent' },
  '@raf/ai-sdk': { '@raf/web': 'the SSRF guard (@raf/web/http): the requests of providers built from YAML' },
  // SPEC §14.3: the served runs speak A2A and MCP with the one implementation of each.
  '@raf/server': {
    '@raf/a2a': 'A2A on served runs (RafAgentExecutor, cards, JSON-RPC)',
    '@raf/mcp': "MCP at /mcp (raf mcp serve's approvals by elicitation)",
  },
};

/** Extensions build on core, framework and decl only (SPEC §2); the client is theirs to ask for. */
const EXTENSION_BASE = new Set(['@raf/core', '@raf/framework', '@raf/decl', '@raf/client']);

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const packages = readdirSync(packagesDir)
  .filter((name) => existsSync(join(packagesDir, name, 'package.json')))
  .map((dir) => {
    const path = join(packagesDir, dir);
    const manifest = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) as Manifest;
    return { dir: path, manifest };
  });

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

// import … from 'x' · export … from 'x' · import 'x' · import('x'); type-only statements count too
// (a published declaration that names an undeclared package breaks the consumer's type check).
const IMPORT =
  /(?:^|[\s;}])import\s+(['"])([^'"\n$`]+)\1|(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?[\w*{}\s,$]+?\s+from\s+(['"])([^'"\n$`]+)\3|\bimport\s*\(\s*(['"])([^'"\n$`]+)\5\s*\)/g;
const TYPE_ONLY = /^[\s;}]?(?:import|export)\s+type\b/;

function specifiers(text: string): { specifier: string; typeOnly: boolean }[] {
  const found: { specifier: string; typeOnly: boolean }[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[2] ?? match[4] ?? match[6];
    if (specifier === undefined) continue;
    found.push({ specifier, typeOnly: match[4] !== undefined && TYPE_ONLY.test(match[0]) });
  }
  return found;
}

function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || BUILTINS.has(specifier)) return undefined;
  if (specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function shippedSources(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'test-support' && entry.name !== 'node_modules') shippedSources(path, out);
    } else if (/\.tsx?$/.test(entry.name) && !/\.test(-d)?\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

function builtFiles(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) builtFiles(path, out);
    else if (/\.(m|c)?js$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** What is wrong with one package importing another (undefined: fine). */
function violation(from: Manifest, to: string): string | undefined {
  const declared = { ...from.dependencies, ...from.peerDependencies, ...from.optionalDependencies };
  if (to === from.name) return undefined;
  if (!(to in declared)) return 'not declared in dependencies, peerDependencies or optionalDependencies';
  const mine = FLOOR[from.name];
  const theirs = FLOOR[to];
  if (mine === undefined || theirs === undefined) return undefined; // a third-party package
  if (to === '@raf/cli') return 'nothing depends on the CLI';
  if (SIDEWAYS[from.name]?.[to]) return undefined;
  if (mine === 3 && theirs <= 2 && !EXTENSION_BASE.has(to))
    return `an extension builds on ${[...EXTENSION_BASE].join(', ')}`;
  if (theirs >= mine) return `floor ${theirs} is not below floor ${mine}`;
  return undefined;
}

describe('layering (SPEC §2)', () => {
  for (const { dir, manifest } of packages) {
    it(`${manifest.name}: its sources import only declared packages of lower floors`, () => {
      const problems: string[] = [];
      for (const file of shippedSources(join(dir, 'src'))) {
        for (const { specifier } of specifiers(readFileSync(file, 'utf8'))) {
          const to = packageOf(specifier);
          const why = to && violation(manifest, to);
          if (why) problems.push(`${relative(root, file)} → ${specifier}: ${why}`);
        }
      }
      expect(problems).toEqual([]);
    });

    it.runIf(existsSync(join(dir, 'dist')))(
      `${manifest.name}: its build imports only declared packages and inlines no other package`,
      () => {
        const problems: string[] = [];
        for (const file of builtFiles(join(dir, 'dist'))) {
          const text = readFileSync(file, 'utf8');
          for (const { specifier } of specifiers(text)) {
            const to = packageOf(specifier);
            const why = to && violation(manifest, to);
            if (why) problems.push(`${relative(root, file)} → ${specifier}: ${why}`);
          }
          // esbuild heads each inlined module with its path: `// ../framework/src/x.ts` or
          // `// ../../node_modules/…` is code of another package shipped inside this one.
          for (const match of text.matchAll(/^\/\/ ((?:\.\.\/)+[^\s]+)$/gm))
            problems.push(`${relative(root, file)} inlines ${match[1]}`);
        }
        expect([...new Set(problems)]).toEqual([]);
      },
    );
  }

  it('no package imports another one cyclically inside itself (static or lazy imports)', () => {
    const graph = new Map<string, string[]>();
    for (const { dir } of packages) {
      for (const file of shippedSources(join(dir, 'src'))) {
        const targets: string[] = [];
        for (const { specifier, typeOnly } of specifiers(readFileSync(file, 'utf8'))) {
          // A type-only import is erased: it orders nothing at run time.
          if (typeOnly || !specifier.startsWith('.')) continue;
          const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
          const found = [target, target.replace(/\.ts$/, '.tsx')].find((t) => existsSync(t));
          if (found) targets.push(found);
        }
        graph.set(file, targets);
      }
    }
    expect(cyclesOf(graph).map((cycle) => cycle.map((f) => relative(root, f)).join(' → '))).toEqual([]);
  });
});

/** The strongly connected components of more than one file (Tarjan). */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}
