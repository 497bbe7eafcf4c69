import type { ZodType } from 'zod';
import { type Diagnostic, describeIssue, suggest } from '../diagnostics/diagnostic.js';
import { securityKeyOf } from '../diagnostics/security-keys.js';

export type ConfigReport = (
  path: (string | number)[],
  message: string,
  severity: Diagnostic['severity'],
  /** The problem is the key itself (unknown, or a second spelling), not its value. */
  key?: boolean,
) => void;

interface FieldMeta {
  policyBearing?: boolean;
  aliases?: readonly string[];
}

const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

function shapeOf(schema: ZodType): Record<string, ZodType> | undefined {
  // A `z.preprocess(fn, object)` (a pipe) checks its keys as the object it leads to.
  const def = (schema as { def?: { type?: string; out?: ZodType } }).def;
  if (def?.type === 'pipe' && def.out) return shapeOf(def.out);
  const shape = (schema as { shape?: unknown }).shape;
  return shape && typeof shape === 'object' ? (shape as Record<string, ZodType>) : undefined;
}

const metaOf = (field: ZodType | undefined): FieldMeta =>
  ((field as { meta?: () => unknown } | undefined)?.meta?.() as FieldMeta | undefined) ?? {};

/**
 * Checks a `config:` map against its kind's schema (`RafPlugin.configSchemas`). Keys are matched
 * as written, in snake_case, or by a declared alias, and handed on under the schema's name. An
 * unknown key warns (an error when `strict`), except a near miss of a policy-bearing key or a
 * security-relevant key the kind does not have (`securityKeyOf`), which is always an error: a
 * misspelt `policy` must not leave the workspace under the default. Wrong types
 * are errors. Returns the parsed config, or undefined when it has an error.
 */
export function checkConfig(
  schema: ZodType,
  config: Readonly<Record<string, unknown>> | undefined,
  strict: boolean,
  report: ConfigReport,
): Record<string, unknown> | undefined {
  const shape = shapeOf(schema);
  const canonical: Record<string, unknown> = {};
  const writtenAs = new Map<string, string>();
  let failed = false;
  if (shape) {
    const names = Object.keys(shape);
    const target = new Map<string, string>();
    for (const name of names) {
      target.set(name, name);
      for (const alias of metaOf(shape[name]).aliases ?? []) target.set(alias, name);
    }
    for (const [key, value] of Object.entries(config ?? {})) {
      const name = target.get(key) ?? target.get(camel(key));
      if (name === undefined) {
        const hint = suggest(key, [...target.keys()]);
        const meant = hint === undefined ? undefined : (target.get(hint) as string);
        // A near miss of this kind's policy-bearing key, or a security-relevant key this kind
        // does not have (an `approval_mode` written in the wrong entry's config).
        const misspelt = meant !== undefined && metaOf(shape[meant]).policyBearing === true;
        const policy = misspelt ? meant : securityKeyOf(key);
        if (policy) failed = true;
        report(
          [key],
          `unknown key '${key}'${hint ? ` (did you mean '${hint}'?)` : `; known: ${names.join(', ')}`}${
            policy
              ? `: a ${misspelt ? 'misspelt' : 'misspelt or misplaced'} ${policy} would leave the default in force`
              : ''
          }`,
          policy || strict ? 'error' : 'warning',
          true,
        );
        continue;
      }
      const earlier = writtenAs.get(name);
      if (earlier !== undefined) {
        report([key], `'${key}' and '${earlier}' are the same setting; keep one`, 'error', true);
        failed = true;
        continue;
      }
      writtenAs.set(name, key);
      canonical[name] = value;
    }
  } else Object.assign(canonical, config);
  const parsed = schema.safeParse(canonical, { reportInput: true });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const [first, ...rest] = issue.path as (string | number)[];
      const path = first === undefined ? [] : [writtenAs.get(String(first)) ?? first, ...rest];
      report(path, describeIssue(issue), 'error');
    }
    return undefined;
  }
  return failed ? undefined : (parsed.data as Record<string, unknown>);
}

/**
 * A top-level block of a file that configures a tool kind (a workflow's `web:`, an agent's or a
 * workflow's `sandbox:`), checked against that kind's schema with its problems under `key`, as a
 * tool's `config:` is. Undefined when absent or broken (the problem is reported); the block as
 * written when no registered plugin gives the kind a schema.
 */
export function checkKindBlock(
  registry: { configSchema(category: 'tool kind', kind: string): ZodType | undefined },
  kind: string,
  key: string,
  block: unknown,
  strict: boolean,
  report: ConfigReport,
): Record<string, unknown> | undefined {
  if (block === undefined || block === null) return undefined;
  if (typeof block !== 'object' || Array.isArray(block)) {
    report([key], `'${key}' must be a mapping of the ${kind} tool's settings`, 'error');
    return undefined;
  }
  const schema = registry.configSchema('tool kind', kind);
  if (!schema) return block as Record<string, unknown>;
  return checkConfig(schema, block as Record<string, unknown>, strict, (path, ...rest) =>
    report([key, ...path], ...rest),
  );
}
