import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { Options } from 'tsup';
import ts from 'typescript';

type Plugin = NonNullable<Options['esbuildPlugins']>[number];

/** Where an exported value is declared: its file, and its name there. */
interface Origin {
  file: string;
  name: string;
}

/**
 * Imports from the workspace packages' entry files (`import { X } from '@raf/framework'`) rewritten
 * to import each value from the file that declares it, for the `raf` bundle.
 *
 * Why: esbuild places a file in the chunks of every entry point that reaches it through any
 * import, used or not, so one import of a package's `index.ts`, which re-exports everything,
 * put the whole package in the chunk that `raf validate` loads (the agent loop, sessions, memory,
 * sub-agents: about 100 KB it compiles and never runs). Imported from the declaring files, each
 * command's chunks hold what that command reaches. Nothing else changes: the same modules, the
 * same bindings. A name it cannot trace stays imported from the entry file.
 */
export function directImports(): Plugin {
  const exportsOf = new Map<string, ExportTable>();
  const table = (file: string) => {
    let found = exportsOf.get(file);
    if (!found) {
      found = readExports(file);
      exportsOf.set(file, found);
    }
    return found;
  };
  const origin = (file: string, name: string, seen = new Set<string>()): Origin | undefined => {
    if (seen.has(file)) return undefined;
    seen.add(file);
    const exports = table(file);
    if (exports.local.has(name)) return { file, name };
    const from = exports.named.get(name);
    if (from) return from.file ? origin(from.file, from.name, seen) : undefined;
    for (const star of exports.stars) {
      const found = origin(star, name, seen);
      if (found) return found;
    }
    return undefined;
  };

  return {
    name: 'direct-imports',
    setup(build) {
      build.onLoad({ filter: /\/packages\/[^/]+\/src\/.+\.ts$/ }, async (args) => {
        if (args.path.includes('/node_modules/')) return undefined;
        const text = await readFile(args.path, 'utf8');
        if (!text.includes("from '@raf/")) return undefined;
        const source = ts.createSourceFile(args.path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
        const edits: { start: number; end: number; text: string }[] = [];
        for (const statement of source.statements) {
          const rewrite = await rewriteImport(statement, source, async (specifier) => {
            const resolved = await build.resolve(specifier, {
              kind: 'import-statement',
              resolveDir: dirname(args.path),
            });
            return resolved.errors.length > 0 || resolved.external || !resolved.path.endsWith('.ts')
              ? undefined
              : resolved.path;
          });
          if (rewrite) edits.push(rewrite);
        }
        if (edits.length === 0) return undefined;
        let contents = text;
        for (const edit of edits.reverse())
          contents = contents.slice(0, edit.start) + edit.text + contents.slice(edit.end);
        return { contents, loader: 'ts', resolveDir: dirname(args.path) };
      });

      /** The replacement of one `import { … } from '@raf/…'`, on as many lines (source maps hold). */
      async function rewriteImport(
        statement: ts.Statement,
        source: ts.SourceFile,
        entryOf: (specifier: string) => Promise<string | undefined>,
      ) {
        if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) return;
        const specifier = statement.moduleSpecifier.text;
        const clause = statement.importClause;
        if (!specifier.startsWith('@raf/') || !clause || clause.isTypeOnly || clause.name) return;
        const bindings = clause.namedBindings;
        if (!bindings || !ts.isNamedImports(bindings)) return;
        const entry = await entryOf(specifier);
        if (!entry) return;
        const byFile = new Map<string, string[]>();
        const kept: string[] = [];
        for (const element of bindings.elements) {
          if (element.isTypeOnly) continue;
          const imported = (element.propertyName ?? element.name).text;
          const local = element.name.text;
          const found = origin(entry, imported);
          if (!found) {
            kept.push(imported === local ? local : `${imported} as ${local}`);
            continue;
          }
          const names = byFile.get(found.file) ?? [];
          names.push(found.name === local ? local : `${found.name} as ${local}`);
          byFile.set(found.file, names);
        }
        // Relative to the importing file: no build machine's paths in the bundle or its source maps.
        const from = dirname(source.fileName);
        const lines = [...byFile].map(([file, names]) => {
          const path = relative(from, file);
          return `import { ${names.join(', ')} } from ${JSON.stringify(path.startsWith('.') ? path : `./${path}`)};`;
        });
        if (kept.length > 0) lines.push(`import { ${kept.join(', ')} } from ${JSON.stringify(specifier)};`);
        const start = statement.getStart(source);
        const end = statement.getEnd();
        const newlines = source.text.slice(start, end).split('\n').length - 1;
        return { start, end, text: lines.join(' ') + '\n'.repeat(newlines) };
      }
    },
  };
}

interface ExportTable {
  /** Values declared in the file (or imported and exported again: traced no further). */
  local: Set<string>;
  /** `export { a as b } from './x.js'`: b → x's a (file undefined: not a workspace source). */
  named: Map<string, { file: string | undefined; name: string }>;
  /** `export * from './x.js'`. */
  stars: string[];
}

/** The source file a relative `./x.js` of a TypeScript source names: `x.ts` or `x/index.ts`. */
function sourceFile(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = join(dirname(from), specifier.replace(/\.js$/, ''));
  return [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}

function readExports(file: string): ExportTable {
  const table: ExportTable = { local: new Set(), named: new Map(), stars: [] };
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (statement.isTypeOnly) continue;
      const from =
        statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
          ? statement.moduleSpecifier.text
          : undefined;
      const clause = statement.exportClause;
      if (!clause) {
        const target = from === undefined ? undefined : sourceFile(file, from);
        if (target) table.stars.push(target);
        continue;
      }
      if (!ts.isNamedExports(clause)) continue;
      for (const element of clause.elements) {
        if (element.isTypeOnly) continue;
        const name = element.name.text;
        const original = (element.propertyName ?? element.name).text;
        if (from === undefined) table.local.add(name);
        else table.named.set(name, { file: sourceFile(file, from), name: original });
      }
    } else if (exported(statement)) {
      if (
        (ts.isFunctionDeclaration(statement) ||
          ts.isClassDeclaration(statement) ||
          ts.isEnumDeclaration(statement)) &&
        statement.name
      )
        table.local.add(statement.name.text);
      else if (ts.isVariableStatement(statement))
        for (const declaration of statement.declarationList.declarations)
          if (ts.isIdentifier(declaration.name)) table.local.add(declaration.name.text);
    }
  }
  return table;
}
