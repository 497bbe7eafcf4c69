import { ConfigError } from '@raf/core';
import { z } from 'zod';
import { parseByteSize } from './byte-size.js';

export type CodeLanguage = 'javascript' | 'python' | 'shell';
export const CODE_LANGUAGES: readonly CodeLanguage[] = ['javascript', 'python', 'shell'];

const LANGUAGE_ALIASES: Readonly<Record<string, CodeLanguage>> = {
  javascript: 'javascript',
  js: 'javascript',
  python: 'python',
  python3: 'python',
  py: 'python',
  shell: 'shell',
  sh: 'shell',
  bash: 'shell',
};

/** A language name or one of its aliases (`js`, `py`, `sh`, `bash`) → the canonical name. */
export function canonicalLanguage(name: string): CodeLanguage | undefined {
  return LANGUAGE_ALIASES[name.trim().toLowerCase()];
}

const language = z.string().transform((value, ctx) => {
  const canonical = canonicalLanguage(value);
  if (canonical) return canonical;
  ctx.addIssue({
    code: 'custom',
    message: `unknown language ${JSON.stringify(value)}; use javascript, python or shell`,
  });
  return z.NEVER;
});

function byteSize(minimum: number, what: string) {
  return z.union([z.string(), z.number()]).transform((value, ctx) => {
    const bytes = parseByteSize(value);
    if (bytes === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `expected a size like 512m, 1g or a number of bytes; got ${JSON.stringify(value)}`,
      });
      return z.NEVER;
    }
    if (bytes < minimum) {
      ctx.addIssue({ code: 'custom', message: `${what} must be at least ${minimum} bytes` });
      return z.NEVER;
    }
    return bytes;
  });
}

/** The fields, canonical camelCase; each also reads under its snake_case spelling. */
const fields = z.object({
  /** `process` (bubblewrap for Python/shell; JavaScript always runs in QuickJS) or `wasm` (JavaScript only). */
  backend: z.enum(['process', 'wasm', 'container', 'docker', 'podman']).optional(),
  timeoutSecs: z.number().positive().max(3600).optional(),
  memoryLimit: byteSize(8 * 1024 * 1024, 'memory_limit').optional(),
  /** Accepted for upstream files; the process backend cannot enforce a CPU share (it needs cgroups). */
  cpus: z.union([z.string(), z.number()]).optional(),
  pidsLimit: z.number().int().min(1).max(4096).optional(),
  defaultLanguage: language.optional(),
  languages: z.array(language).min(1).optional(),
  fileSizeLimit: byteSize(1024, 'file_size_limit').optional(),
  outputLimit: byteSize(1024, 'output_limit').optional(),
  network: z.boolean().optional(),
  unconfined: z.boolean().optional(),
  persist: z.boolean().optional(),
  env: z.record(z.string(), z.string()).optional(),
});

export type SandboxConfig = z.output<typeof fields>;
export const SANDBOX_CONFIG_KEYS: readonly string[] = Object.keys(fields.shape);

const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The tool config / agent `sandbox:` map (SPEC §8, upstream digest §8), in either spelling:
 * `timeout_secs` or `timeoutSecs`, `memory_limit: 512m`, `pids_limit`, `default_language`, …
 * Unknown keys are dropped here (the factory warns about them); parsing yields camelCase.
 */
export const sandboxConfigSchema = z.preprocess(
  (value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).map(([key, item]) => [camel(key), item]))
      : value,
  fields,
);

export type SafeParseSandboxConfig =
  | { success: true; config: SandboxConfig; unknownKeys: string[] }
  | { success: false; error: string };

/**
 * Checks one map. Errors name the field as written, under `where` (`sandbox` for the agent-level
 * map, `config` for the tool's): `config.memory_limit: expected a size like 512m …`.
 */
export function safeParseSandboxConfig(input: unknown, where = 'config'): SafeParseSandboxConfig {
  if (input === undefined || input === null) return { success: true, config: {}, unknownKeys: [] };
  if (typeof input !== 'object' || Array.isArray(input))
    return { success: false, error: `${where}: expected a map of sandbox settings` };
  const written = new Map<string, string>();
  const canonical: Record<string, unknown> = {};
  const problems: string[] = [];
  const unknownKeys: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    const name = camel(key);
    const earlier = written.get(name);
    if (earlier !== undefined) {
      problems.push(`${where}: '${key}' and '${earlier}' are the same setting; keep one`);
      continue;
    }
    written.set(name, key);
    if (!SANDBOX_CONFIG_KEYS.includes(name)) unknownKeys.push(`${where}.${key}`);
    else canonical[name] = value;
  }
  const parsed = fields.safeParse(canonical);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const [first, ...rest] = issue.path.map(String);
      const field = [first === undefined ? '' : (written.get(first) ?? snake(first)), ...rest].join('.');
      problems.push(`${where}.${field}: ${issue.message}`);
    }
  }
  if (problems.length > 0) return { success: false, error: problems.join('; ') };
  return { success: true, config: parsed.success ? parsed.data : {}, unknownKeys };
}

/** Like `safeParseSandboxConfig`, but throws a `ConfigError`. */
export function parseSandboxConfig(input: unknown, where = 'config'): SandboxConfig {
  const parsed = safeParseSandboxConfig(input, where);
  if (!parsed.success) throw new ConfigError(parsed.error);
  return parsed.config;
}

/** Agent-level `sandbox:` defaults under the tool's `config` (the tool wins, field by field). */
export function mergeSandboxConfig(defaults: SandboxConfig, tool: SandboxConfig): SandboxConfig {
  const merged: SandboxConfig = { ...defaults };
  for (const [key, value] of Object.entries(tool)) {
    if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  return merged;
}
