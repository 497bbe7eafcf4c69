import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/error-classes.js';
import { parseScopePolicy, resolveScopePolicy, safeParseScopePolicy } from './scope-policy.js';

describe('scope policy parsing', () => {
  it.each([
    ['read', 'AllowAll'],
    ['allow', 'AllowAll'],
    ['allow_all', 'AllowAll'],
    ['approve', 'ApproveOutside'],
    ['ask', 'ApproveOutside'],
    ['approve_outside', 'ApproveOutside'],
    ['deny', 'DenyOutside'],
    ['restrict', 'DenyOutside'],
    ['deny_outside', 'DenyOutside'],
    ['DenyOutside', 'DenyOutside'],
    [' Approve-Outside ', 'ApproveOutside'],
  ])('maps the upstream spelling %j to %s', (input, expected) => {
    expect(parseScopePolicy(input)).toBe(expected);
  });

  it('defaults a missing policy to approve', () => {
    expect(parseScopePolicy(undefined)).toBe('ApproveOutside');
    expect(parseScopePolicy('')).toBe('ApproveOutside');
  });

  it('rejects an unknown policy in the strict pair', () => {
    const parsed = safeParseScopePolicy('yolo');
    expect(parsed.success).toBe(false);
    expect(() => parseScopePolicy('yolo')).toThrow(ConfigError);
    expect(() => parseScopePolicy('yolo')).toThrow(/unknown workspace policy "yolo"/);
  });

  it('fails closed: an unknown policy resolves to DenyOutside with a warning', () => {
    expect(resolveScopePolicy('yolo')).toEqual({
      policy: 'DenyOutside',
      warning: expect.stringContaining('falling back to deny'),
    });
    expect(resolveScopePolicy('read')).toEqual({ policy: 'AllowAll' });
  });
});
