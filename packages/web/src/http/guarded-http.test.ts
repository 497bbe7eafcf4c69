import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, reply, startLocalServer } from '../test-support/local-server.js';
import { GuardedHttpClient, parseContentType } from './guarded-http.js';

// `a` (127.0.0.1) redirects to `b` (127.0.0.2): another origin, so credentials must not follow.
let a: LocalServer;
let b: LocalServer;
let http: GuardedHttpClient;

beforeAll(async () => {
  b = await startLocalServer((_req, res) => reply(res, 200, 'text/plain', 'b'), '127.0.0.2');
  a = await startLocalServer((req, res) => {
    const [path, query] = req.url.split('?');
    if (path === '/away') {
      res.writeHead(307, { location: `${b.origin}/landed?${query ?? ''}` });
      return res.end();
    }
    if (path === '/see-other') {
      res.writeHead(303, { location: '/landed' });
      return res.end();
    }
    if (path === '/declared-large') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '999999' });
      return res.end(); // the declared length alone refuses it: the body is never read
    }
    return reply(res, 200, 'text/plain; charset="ISO-8859-2"', 'a');
  });
  http = new GuardedHttpClient({ allowPrivate: ['127.0.0.1', '127.0.0.2'], maxBytes: 1000 });
});
afterAll(async () => {
  await http.close();
  await a.close();
  await b.close();
});

describe('GuardedHttpClient', () => {
  it('drops credentials when a redirect changes origin, keeps the method and body on 307', async () => {
    const response = await http.request(`${a.origin}/away?x=1`, {
      method: 'POST',
      body: '{"q":1}',
      headers: {
        Authorization: 'Bearer secret',
        'X-Api-Key': 'k',
        Cookie: 's=1',
        'Content-Type': 'application/json',
        Accept: 'text/plain',
      },
    });
    expect(response).toMatchObject({
      url: `${b.origin}/landed?x=1`,
      status: 200,
      redirects: [`${a.origin}/away?x=1`],
    });
    const landed = b.requests.at(-1)!;
    expect(landed).toMatchObject({ method: 'POST', body: '{"q":1}' });
    expect(landed.headers).toMatchObject({ 'content-type': 'application/json', accept: 'text/plain' });
    expect(landed.headers.authorization).toBeUndefined();
    expect(landed.headers['x-api-key']).toBeUndefined();
    expect(landed.headers.cookie).toBeUndefined();
    expect(a.requests.at(-1)!.headers.authorization).toBe('Bearer secret');
  });

  it('turns a POST into a GET without a body on 303', async () => {
    await http.request(`${a.origin}/see-other`, {
      method: 'POST',
      body: 'x=1',
      headers: { 'content-type': 'text/plain' },
    });
    expect(a.requests.at(-1)).toMatchObject({ method: 'GET', url: '/landed', body: '' });
    expect(a.requests.at(-1)!.headers['content-type']).toBeUndefined();
  });

  it('refuses a body whose declared length is over the cap, and reads the charset parameter', async () => {
    await expect(http.request(`${a.origin}/declared-large`)).rejects.toMatchObject({ reason: 'too-large' });
    expect(await http.request(`${a.origin}/`)).toMatchObject({
      mediaType: 'text/plain',
      charset: 'ISO-8859-2',
    });
    expect(parseContentType('Text/HTML ; Charset=Shift_JIS')).toEqual({
      mediaType: 'text/html',
      charset: 'Shift_JIS',
    });
  });

  it('stops when the caller cancels (a CancelledError, not a network error)', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(http.request(`${a.origin}/`, { signal: controller.signal })).rejects.toMatchObject({
      code: 'RAF_CANCELLED',
    });
  });
});
