import { ConfigError } from '../errors/error-classes.js';

/** What a workspace does with calls that reach outside its root. */
export type ScopePolicy = 'AllowAll' | 'ApproveOutside' | 'DenyOutside';

export const ScopePolicy = {
  AllowAll: 'AllowAll',
  ApproveOutside: 'ApproveOutside',
  DenyOutside: 'DenyOutside',
} as const satisfies Record<ScopePolicy, ScopePolicy>;

/** The policy when the YAML says none. */
export const DEFAULT_SCOPE_POLICY: ScopePolicy = 'ApproveOutside';

// The upstream spellings (and the enum names themselves, in any case) map to a policy.
const ALIASES: Record<string, ScopePolicy> = {
  read: 'AllowAll',
  allow: 'AllowAll',
  allow_all: 'AllowAll',
  allowall: 'AllowAll',
  approve: 'ApproveOutside',
  ask: 'ApproveOutside',
  approve_outside: 'ApproveOutside',
  approveoutside: 'ApproveOutside',
  deny: 'DenyOutside',
  restrict: 'DenyOutside',
  deny_outside: 'DenyOutside',
  denyoutside: 'DenyOutside',
};

/** The documented spellings, for editors and error messages. */
export const SCOPE_POLICY_SPELLINGS = [
  'read',
  'allow',
  'allow_all',
  'approve',
  'ask',
  'approve_outside',
  'deny',
  'restrict',
  'deny_outside',
] as const;

export type SafeParseScopePolicyResult =
  | { success: true; policy: ScopePolicy }
  | { success: false; error: ConfigError };

function normalize(value: string): string {
  return value.trim().toLowerCase().replaceAll('-', '_');
}

/** Reads a policy string; a missing value is the default (`approve`), an unknown one fails. */
export function safeParseScopePolicy(value: string | null | undefined): SafeParseScopePolicyResult {
  if (value == null || value.trim() === '') return { success: true, policy: DEFAULT_SCOPE_POLICY };
  const policy = ALIASES[normalize(value)];
  if (policy) return { success: true, policy };
  return {
    success: false,
    error: new ConfigError(
      `unknown workspace policy "${value}"; use read|allow|allow_all, approve|ask|approve_outside or deny|restrict|deny_outside`,
    ),
  };
}

/** Like `safeParseScopePolicy`, but throws the `ConfigError`. */
export function parseScopePolicy(value: string | null | undefined): ScopePolicy {
  const parsed = safeParseScopePolicy(value);
  if (!parsed.success) throw parsed.error;
  return parsed.policy;
}

/**
 * Fail-closed reading for configuration loaders: an unknown policy becomes `DenyOutside` and the
 * problem is returned as a warning instead of stopping the load.
 */
export function resolveScopePolicy(value: string | null | undefined): {
  policy: ScopePolicy;
  warning?: string;
} {
  const parsed = safeParseScopePolicy(value);
  if (parsed.success) return { policy: parsed.policy };
  return { policy: 'DenyOutside', warning: `${parsed.error.message}; falling back to deny (DenyOutside)` };
}
