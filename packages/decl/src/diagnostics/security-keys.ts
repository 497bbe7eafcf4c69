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
