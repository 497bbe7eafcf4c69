import { describe, expect, it } from 'vitest';
import { isGated } from './approval-mode.js';
import { mcpContextConfigSchema, mcpToolConfigSchema, parseMcpEntry } from './mcp-config.js';
import { serverSpec } from './server-spec.js';

const parse = (entry: Record<string, unknown>, kind: 'tool' | 'context' = 'tool') =>
  parseMcpEntry(entry as never, kind, 'mcp tool');

describe('kind: mcp entries', () => {
  it('read the settings in config, in either case, and the upstream fields beside it', () => {
    expect(
      parse({
        kind: 'mcp',
        name: 'files',
        config: {
          command: 'npx',
          args: ['-y', 'server'],
          env: { TOKEN: 'abc' },
          tool_name: { read: 'read_doc' },
        },
        approvalMode: { always: ['write'] },
        tools: ['read', 'write'],
        timeoutSecs: 5,
      }),
    ).toEqual({
      command: 'npx',
      args: ['-y', 'server'],
      env: { TOKEN: 'abc' },
      toolName: { read: 'read_doc' },
      approvalMode: { always: ['write'] },
      tools: ['read', 'write'],
      timeoutSecs: 5,
    });
    expect(
      parse({ kind: 'mcp', name: 'search', serverUrl: 'http://127.0.0.1:9/mcp', toolName: 'web_search' }),
    ).toEqual({
      url: 'http://127.0.0.1:9/mcp',
      toolName: 'web_search',
    });
    expect(
      parse(
        {
          kind: 'mcp',
          config: { url: 'https://example.invalid/mcp', max_exposed_tools: 10, approval_mode: 'always' },
        },
        'context',
      ),
    ).toMatchObject({ maxExposedTools: 10, approvalMode: 'always' });
  });

  it('name the wrong field, with a suggestion, and never the value of env or headers', () => {
    const secret = 'sk-very-secret-value';
    const wrong = (entry: Record<string, unknown>, kind: 'tool' | 'context' = 'tool') => {
      try {
        parse(entry, kind);
      } catch (error) {
        return (error as Error).message;
      }
      return 'no error';
    };
    expect(wrong({ kind: 'mcp', config: { command: 'x', timeout_sec: 3 } })).toBe(
      "mcp tool: config.timeout_sec is not an mcp setting (did you mean 'timeout_secs'?)",
    );
    const envError = wrong({ kind: 'mcp', config: { command: 'x', env: { KEY: { nested: secret } } } });
    expect(envError).toMatch(/^mcp tool: config\.env\.KEY/);
    expect(envError).not.toContain(secret);
    const headerError = wrong({ kind: 'mcp', config: { command: 'x', headers: { Authorization: secret } } });
    expect(headerError).toBe('mcp tool: config.headers applies to a url (HTTP), not to a command');
    expect(wrong({ kind: 'mcp', config: {} })).toBe(
      'mcp tool: config needs a command (a stdio server) or a url (an HTTP server)',
    );
    expect(wrong({ kind: 'mcp', config: { command: 'x', url: 'http://h/' } })).toMatch(
      /both command and url/,
    );
    expect(wrong({ kind: 'mcp', config: { url: 'ftp://h/' } })).toMatch(/must be http: or https:/);
    expect(wrong({ kind: 'mcp', config: { url: 'http://h/', timeoutSecs: 1, timeout_secs: 2 } })).toMatch(
      /'timeout_secs' and 'timeoutSecs' are the same setting/,
    );
    expect(wrong({ kind: 'mcp', config: { command: 'x', tools: ['a'] }, tools: ['b'] })).toMatch(
      /'tools' is given both in config and beside it/,
    );
    expect(wrong({ kind: 'mcp', config: { command: 'x', approvalMode: 'sometimes' } })).toBe(
      'mcp tool: config.approvalMode has the wrong shape',
    );
    expect(wrong({ kind: 'mcp', config: { command: 'x', resources: false } })).toMatch(
      /config\.resources is not an mcp setting/,
    );
    expect(wrong({ kind: 'mcp', config: { command: 'x', resources: false } }, 'context')).toBe('no error');
  });

  it('export zod schemas for the config maps (both spellings)', () => {
    expect(mcpToolConfigSchema.safeParse({ command: 'node', tool_name: { a: 'b' } }).success).toBe(true);
    expect(mcpToolConfigSchema.safeParse({ command: 'node', prompts: true }).success).toBe(false);
    expect(
      mcpContextConfigSchema.safeParse({ url: 'http://h/mcp', prompts: false, approval_mode: 'never' })
        .success,
    ).toBe(true);
  });

  it('turn into a server spec: names from the entry, the command or the host; paths against the YAML folder', () => {
    expect(serverSpec({ command: 'npx', args: ['-y', '@scope/server-files'] }, undefined, '/agents')).toEqual(
      {
        transport: 'stdio',
        name: 'server-files',
        command: 'npx',
        args: ['-y', '@scope/server-files'],
        env: {},
        cwd: '/agents',
      },
    );
    expect(
      serverSpec({ command: './bin/srv.js', cwd: 'work', env: { N: 1 } }, 'mine', '/agents'),
    ).toMatchObject({
      name: 'mine',
      command: '/agents/bin/srv.js',
      cwd: '/agents/work',
      env: { N: '1' },
    });
    expect(
      serverSpec({ url: 'https://api.example.invalid/mcp', headers: { A: 'b' } }, undefined, '/'),
    ).toEqual({
      transport: 'http',
      name: 'api.example.invalid',
      url: 'https://api.example.invalid/mcp',
      headers: { A: 'b' },
    });
  });
});

describe('approval_mode', () => {
  it('gates all, none, or the listed tools (an allow-list of safe tools fails closed)', () => {
    expect(isGated(undefined, 'a', 'a')).toBe(false);
    expect(isGated('never', 'a', 'a')).toBe(false);
    expect(isGated('always', 'a', 'a')).toBe(true);
    expect(isGated({ always: ['write'] }, 'write', 'write')).toBe(true);
    expect(isGated({ always: ['write'] }, 'read', 'read')).toBe(false);
    expect(isGated({ never: ['read'] }, 'read', 'read')).toBe(false);
    expect(isGated({ never: ['read'] }, 'delete', 'delete')).toBe(true);
    expect(isGated({ always: ['doc_write'] }, 'write', 'doc_write')).toBe(true);
  });
});
