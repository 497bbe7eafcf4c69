import { suggest } from './diagnostic.js';

/**
 * Keys whose absence loosens what an agent may do: the workspace policy and its allowlists, an
 * MCP entry's approval mode, the SSRF guard's and a spec's opt-ins, the roots. Written where it
 * has no effect (misplaced) or misspelt, such a key is an error in every mode, also where other
 * unknown keys only warn (`raf validate --lenient`, a builder without `strictMode()`): the
 * setting the author meant must never silently fall back to the default.
 */
const SECURITY_KEYS = [
  'policy',
  'approvalMode',
  'toolPolicy',
  'allowCommands',
  'allowedCommands',
  'network',
  'readableOutside',
  'allowPrivate',
  'allowFileRefs',
  'root',
  'roots',
] as const;

const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** The security-relevant key an unknown key is, or looks like a misspelling of (`polcy`, `approval_mode`). */
export function securityKeyOf(key: string): string | undefined {
  const canonical = camel(key);
  const exact = SECURITY_KEYS.find((k) => k.toLowerCase() === canonical.toLowerCase());
  return exact ?? suggest(canonical, SECURITY_KEYS);
}

/**
 * The security-relevant setting a key sits inside, when its path (in canonical names, as zod
 * reports it) passes through one: an unknown key in `approval_mode: { alwayss: [...] }` or
 * `toolPolicy: { disable: [...] }` is dropped like any other, and the tools it meant to gate run
 * unasked or stay enabled; so it is an error in every mode, `--lenient` too (SPEC §9).
 */
export function securitySettingAround(path: readonly PropertyKey[]): string | undefined {
  for (const segment of path) {
    if (typeof segment !== 'string') continue;
    const canonical = camel(segment);
    const key = SECURITY_KEYS.find((k) => k.toLowerCase() === canonical.toLowerCase());
    if (key) return key;
  }
  return undefined;
}
