import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, reply, startLocalServer } from '../test-support/local-server.js';
import { parseAllowList } from './address-policy.js';
import { type HostResolver, type ResolvedAddress, resolveChecked } from './guarded-connector.js';
import { GuardedHttpClient } from './guarded-http.js';
import { WebRequestError } from './web-request-error.js';

// Two loopback servers: `target` (127.0.0.1) is the "internal" service an attacker wants;
// `front` (127.0.0.2) stands in for a public host (admitted with allowPrivate: ['127.0.0.2'])
// whose pages redirect inward. No test sends a packet beyond 127.0.0.0/8.
let target: LocalServer;
let front: LocalServer;
let P: number;

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });

/** Public-looking names and where the test resolver sends them. */
const ZONE: Record<string, ResolvedAddress[]> = {
  'evil.example': [v4('127.0.0.1')],
  'internal.example': [v4('127.0.0.1')],
  'mapped.example': [{ address: '::ffff:127.0.0.1', family: 6 }],
  'six.example': [{ address: '::1', family: 6 }],
  'mixed.example': [v4('127.0.0.2'), v4('127.0.0.1')],
  'front.example': [v4('127.0.0.2')],
  localhost: [v4('127.0.0.1')],
};
const resolver: HostResolver = async (name) => {
  const answer = ZONE[name];
  if (!answer) throw new Error(`ENOTFOUND ${name}`);
  return answer;
};

beforeAll(async () => {
  target = await startLocalServer((_req, res) => reply(res, 200, 'text/plain', 'internal secret'));
  P = target.port;
  front = await startLocalServer((req, res) => {
    const to = new URL(req.url, 'http://x').searchParams.get('to');
    if (to) {
      res.writeHead(302, { location: to });
      res.end();
    } else if (req.url.startsWith('/loop')) {
      res.writeHead(301, { location: `/loop${Number(req.url.slice(5) || 0) + 1}` });
      res.end();
    } else reply(res, 200, 'text/plain', 'front page');
  }, '127.0.0.2');
});
afterAll(async () => {
  await target.close();
  await front.close();
});

async function refusal(client: GuardedHttpClient, url: string): Promise<WebRequestError> {
  const error = await client.request(url).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!WebRequestError.isInstance(error)) throw new Error(`${url} was not refused: ${String(error)}`);
  return error;
}

/** Every spelling of the loopback target the guard must see through. */
const loopbackSpellings = () => [
  `http://127.0.0.1:${P}/`,
  `http://localhost:${P}/`,
  `http://localhost.:${P}/`,
  `http://LOCALHOST:${P}/`,
  `http://sub.localhost:${P}/`,
  `http://0x7f.1:${P}/`,
  `http://0x7f000001:${P}/`,
  `http://2130706433:${P}/`,
  `http://017700000001:${P}/`,
  `http://0177.0.0.1:${P}/`,
  `http://127.1:${P}/`,
  `http://127.0.1:${P}/`,
  `http://127.0.0.1.:${P}/`,
  `http://127.42.0.9:${P}/`,
  `http://%31%32%37.0.0.1:${P}/`,
  `http://[::1]:${P}/`,
  `http://[0:0:0:0:0:0:0:1]:${P}/`,
  `http://[::ffff:127.0.0.1]:${P}/`,
  `http://[0:0:0:0:0:ffff:7f00:1]:${P}/`,
  `http://[::127.0.0.1]:${P}/`,
  `http://[64:ff9b::7f00:1]:${P}/`,
  `http://[2002:7f00:1::]:${P}/`,
  `http://0.0.0.0:${P}/`,
  `http://0:${P}/`,
  `https://127.0.0.1:${P}/`,
  `http://user:pass@127.0.0.1:${P}/`,
  `http://evil.example:${P}/`,
  `http://evil.example.:${P}/`,
  `http://EVIL.example:${P}/`,
  `http://mapped.example:${P}/`,
  `http://six.example:${P}/`,
  `http://mixed.example:${P}/`,
];

/** Redirects from the "public" front host to the inside. */
const redirectSpellings = () =>
  [
    `http://127.0.0.1:${P}/secret`,
    `http://localhost:${P}/`,
    `http://[::ffff:127.0.0.1]:${P}/`,
    `http://2130706433:${P}/`,
    `http://internal.example:${P}/admin`,
    `//127.0.0.1:${P}/protocol-relative`,
  ].map((to) => `http://front.example:${front.port}/?to=${encodeURIComponent(to)}`);

describe('the SSRF guard, end to end through GuardedHttpClient', () => {
  const client = new GuardedHttpClient({ resolver, allowPrivate: ['127.0.0.2', 'front.example'] });
  afterAll(() => client.close());

  it('refuses every spelling of a loopback address, literal or resolved, before connecting', async () => {
    const before = target.requests.length;
    for (const url of loopbackSpellings()) {
      const error = await refusal(client, url);
      expect(error.reason, url).toBe('blocked');
      expect(error.message, url).toMatch(/^refused https?:\/\/.*(loopback|unspecified|IPv4|NAT64|6to4)/);
    }
    expect(target.requests.length).toBe(before);
  });

  it('checks every redirect hop: a public page that redirects inward is refused at the hop', async () => {
    const before = target.requests.length;
    for (const url of redirectSpellings()) {
      const error = await refusal(client, url);
      expect(error.reason, url).toBe('blocked');
    }
    expect(target.requests.length).toBe(before);
    expect(front.requests.length).toBeGreaterThanOrEqual(redirectSpellings().length);
  });

  it('refuses redirects to other schemes and stops after maxRedirects', async () => {
    const toFile = `http://front.example:${front.port}/?to=${encodeURIComponent('file:///etc/passwd')}`;
    expect((await refusal(client, toFile)).reason).toBe('unsupported-url');
    expect((await refusal(client, 'ftp://front.example/')).reason).toBe('unsupported-url');
    const loop = await refusal(client, `http://front.example:${front.port}/loop`);
    expect(loop.reason).toBe('too-many-redirects');
    expect(loop.message).toContain('more than 5 redirects');
  });

  it('admits the same server once allowPrivate lists it (by range, address or name)', async () => {
    const open = new GuardedHttpClient({
      resolver,
      allowPrivate: ['127.0.0.0/8', 'localhost', 'front.example'],
    });
    try {
      for (const url of [
        `http://127.0.0.1:${P}/`,
        `http://localhost:${P}/`,
        `http://0x7f.1:${P}/`,
        `http://2130706433:${P}/`,
        `http://[::ffff:127.0.0.1]:${P}/`,
        `http://evil.example:${P}/`,
        `http://front.example:${front.port}/?to=${encodeURIComponent(`http://127.0.0.1:${P}/in`)}`,
      ]) {
        const response = await open.request(url);
        expect(response.body.toString(), url).toBe('internal secret');
      }
    } finally {
      await open.close();
    }
  });
});

describe('DNS answers that change between lookups (rebinding)', () => {
  it('checks the answer of each new connection and connects to exactly that address', async () => {
    const answers = ['127.0.0.2', '127.0.0.1', '127.0.0.2'];
    const lookups: string[] = [];
    const rebinding: HostResolver = async (name) => {
      const address = answers[lookups.length] ?? '127.0.0.1';
      lookups.push(`${name}→${address}`);
      return [v4(address)];
    };
    const before = target.requests.length;
    // A new client per request: a new connection, so a new lookup (a pooled one keeps its checked address).
    const once = async () => {
      const client = new GuardedHttpClient({ resolver: rebinding, allowPrivate: ['127.0.0.2'] });
      try {
        return await client.request(`http://rebind.example:${front.port}/`);
      } finally {
        await client.close();
      }
    };
    expect((await once()).body.toString()).toBe('front page');
    // Now the name points inside: refused, although it passed a moment ago.
    await expect(once()).rejects.toMatchObject({ reason: 'blocked' });
    expect((await once()).body.toString()).toBe('front page');
    expect(lookups).toEqual([
      'rebind.example→127.0.0.2',
      'rebind.example→127.0.0.1',
      'rebind.example→127.0.0.2',
    ]);
    expect(target.requests.length).toBe(before);
  });

  it('refuses a name when any of its answers is refused, whichever comes first', async () => {
    const client = new GuardedHttpClient({
      resolver: async () => [v4('127.0.0.2'), v4('127.0.0.1')],
      allowPrivate: ['127.0.0.2'],
    });
    try {
      await expect(client.request(`http://both.example:${front.port}/`)).rejects.toMatchObject({
        reason: 'blocked',
        message: expect.stringContaining('both.example resolves to 127.0.0.1 is a loopback address'),
      });
    } finally {
      await client.close();
    }
  });
});

describe('the address policy for ranges never contacted from tests', () => {
  // Checked through resolveChecked, the function the connector calls, so no packet leaves loopback.
  const allow = parseAllowList([]);
  const corpus: [string, RegExp][] = [
    ['10.0.0.1', /private/],
    ['10.255.255.255', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.254', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /metadata/],
    ['169.254.170.2', /metadata/],
    ['169.254.1.1', /link-local/],
    ['168.63.129.16', /metadata/],
    ['100.100.100.200', /metadata/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['240.0.0.1', /reserved/],
    ['0.1.2.3', /unspecified/],
    ['fe80::1', /link-local/],
    ['fc00::1', /unique-local/],
    ['fd00:ec2::254', /metadata/],
    ['ff02::1', /multicast/],
    ['::', /unspecified/],
    ['::ffff:10.0.0.1', /IPv4-mapped/],
    ['::ffff:169.254.169.254', /metadata/],
    ['64:ff9b::a9fe:a9fe', /NAT64/],
    ['64:ff9b:1::1', /NAT64/],
    ['2001::1', /Teredo/],
    ['[fe80::1]', /link-local/],
  ];
  const guard = { allow, resolver };

  it.each(corpus)('refuses %s', async (address, why) => {
    await expect(resolveChecked(address, guard, `http://${address}`)).rejects.toThrow(why);
  });

  it('refuses metadata host names before any lookup', async () => {
    let looked = false;
    const spy: HostResolver = async () => {
      looked = true;
      return [v4('8.8.8.8')];
    };
    for (const host of ['metadata.google.internal', 'METADATA.google.internal.', 'metadata']) {
      await expect(resolveChecked(host, { allow, resolver: spy }, 'http://m')).rejects.toThrow(
        /metadata host/,
      );
    }
    expect(looked).toBe(false);
  });

  it('admits public unicast addresses, and private ones an allowPrivate range covers', async () => {
    expect(await resolveChecked('8.8.8.8', guard, 'http://x')).toBe('8.8.8.8');
    expect(await resolveChecked('2606:4700::1111', guard, 'http://x')).toBe('2606:4700::1111');
    const lan = { allow: parseAllowList(['10.0.0.0/8', 'fd00::/8']), resolver };
    expect(await resolveChecked('10.1.2.3', lan, 'http://x')).toBe('10.1.2.3');
    expect(await resolveChecked('fd12::1', lan, 'http://x')).toBe('fd12::1');
    await expect(resolveChecked('192.168.0.1', lan, 'http://x')).rejects.toThrow(/private/);
  });

  it('opens a metadata address only to an entry naming exactly that address', async () => {
    const broad = { allow: parseAllowList(['169.254.0.0/16', '0.0.0.0/0']), resolver };
    await expect(resolveChecked('169.254.169.254', broad, 'http://m')).rejects.toThrow(/metadata/);
    await expect(resolveChecked('::ffff:169.254.169.254', broad, 'http://m')).rejects.toThrow(/metadata/);
    expect(await resolveChecked('169.254.1.1', broad, 'http://m')).toBe('169.254.1.1');
    const exact = { allow: parseAllowList(['169.254.169.254']), resolver };
    expect(await resolveChecked('169.254.169.254', exact, 'http://m')).toBe('169.254.169.254');
  });

  it('does not open a metadata address to a trusted host name that resolves there', async () => {
    const zone: Record<string, ResolvedAddress[]> = {
      'wiki.intranet': [v4('169.254.169.254')],
      'split.intranet': [v4('10.0.0.5'), v4('169.254.170.2')],
      'mapped.intranet': [{ address: '::ffff:169.254.169.254', family: 6 }],
      'metadata.google.internal': [v4('169.254.169.254')],
      'lan.intranet': [v4('10.0.0.5')],
    };
    const dns: HostResolver = async (name) => zone[name] ?? [];
    const names = { allow: parseAllowList(Object.keys(zone)), resolver: dns };
    for (const host of ['wiki.intranet', 'split.intranet', 'mapped.intranet', 'metadata.google.internal'])
      await expect(resolveChecked(host, names, `http://${host}`)).rejects.toThrow(
        new RegExp(`${host.replace('.', '\\.')} resolves to .* is a cloud metadata address`),
      );
    // The name still opens its private address, and an entry naming the metadata address opens it.
    expect(await resolveChecked('lan.intranet', names, 'http://lan.intranet')).toBe('10.0.0.5');
    const both = { allow: parseAllowList(['wiki.intranet', '169.254.169.254']), resolver: dns };
    expect(await resolveChecked('wiki.intranet', both, 'http://wiki.intranet')).toBe('169.254.169.254');
    // Through the client: refused before any connection (the fetch never reaches a socket).
    const client = new GuardedHttpClient({ resolver: dns, allowPrivate: ['wiki.intranet'] });
    const error = await client.request('http://wiki.intranet/latest/meta-data/').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebRequestError);
    expect((error as WebRequestError).reason).toBe('blocked');
  });

  it('dials the IPv4 answer when a name has both families', async () => {
    const both: HostResolver = async () => [{ address: '2606:4700::1111', family: 6 }, v4('1.1.1.1')];
    expect(await resolveChecked('dual.example', { allow, resolver: both }, 'http://dual.example')).toBe(
      '1.1.1.1',
    );
  });

  it('names a malformed allowPrivate entry', () => {
    expect(() => parseAllowList(['10.0.0.0/99'])).toThrow('"10.0.0.0/99" is not a valid CIDR range');
  });
});
