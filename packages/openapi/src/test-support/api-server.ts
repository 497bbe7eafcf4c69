import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const PETSTORE_TOKEN = 'petstore-token';
export const PETSTORE_API_KEY = 'special-key';
export const TRACKER_READ_KEY = 'read-key';
export const TRACKER_STAFF = { username: 'staff', password: 'hunter2' };

export interface SeenRequest {
  method: string;
  path: string;
  query: Record<string, string[]>;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface ApiServer {
  origin: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

interface Pet {
  id: number;
  name: string;
  photoUrls: string[];
  status: string;
  tags: { id: number; name: string }[];
}

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type });
  res.end(type === 'application/json' ? JSON.stringify(body) : String(body));
}

/**
 * A server implementing the two test specs (the Petstore 3.0 subset under /api/v3 and the
 * Swagger 2.0 ticket tracker under /v1) with an in-memory store and the auth each spec declares.
 * It also serves the specs themselves (/openapi.yaml, /swagger.json).
 */
export async function startApiServer(): Promise<ApiServer> {
  const requests: SeenRequest[] = [];
  const pets = new Map<number, Pet>([
    [1, { id: 1, name: 'doggie', photoUrls: [], status: 'available', tags: [{ id: 1, name: 'tag1' }] }],
    [2, { id: 2, name: 'kitty', photoUrls: [], status: 'pending', tags: [{ id: 2, name: 'tag2' }] }],
    [3, { id: 3, name: 'goldie', photoUrls: [], status: 'available', tags: [{ id: 2, name: 'tag2' }] }],
  ]);
  const tickets = new Map<number, Record<string, unknown>>([
    [7, { id: 7, title: 'Login page times out', state: 'open', labels: ['bug', 'auth'], comments: [] }],
  ]);

  const petstore = (seen: SeenRequest, res: ServerResponse) => {
    const bearer = seen.headers.authorization === `Bearer ${PETSTORE_TOKEN}`;
    const key = seen.headers.api_key === PETSTORE_API_KEY;
    const path = seen.path.slice('/api/v3'.length);
    const petId = /^\/pet\/(\d+)$/.exec(path)?.[1];
    if (path === '/store/inventory' && seen.method === 'GET') {
      if (!key) return send(res, 401, { code: 401, message: 'api_key required' });
      const counts: Record<string, number> = {};
      for (const pet of pets.values()) counts[pet.status] = (counts[pet.status] ?? 0) + 1;
      return send(res, 200, counts);
    }
    if (petId && seen.method === 'GET') {
      if (!key && !bearer) return send(res, 401, { code: 401, message: 'api_key or a token required' });
      const pet = pets.get(Number(petId));
      return pet ? send(res, 200, pet) : send(res, 404, { code: 1, type: 'error', message: 'Pet not found' });
    }
    if (path === '/user/login' && seen.method === 'GET') {
      return send(res, 200, `logged in user session:${seen.query.username?.[0]}`);
    }
    if (!bearer) return send(res, 401, { code: 401, message: 'a petstore_auth token is required' });
    if (path === '/pet/findByStatus') {
      return send(
        res,
        200,
        [...pets.values()].filter((p) => seen.query.status?.includes(p.status)),
      );
    }
    if (path === '/pet/findByTags') {
      const wanted = seen.query.tags ?? [];
      return send(
        res,
        200,
        [...pets.values()].filter((p) => p.tags.some((t) => wanted.includes(t.name))),
      );
    }
    if (path === '/pet' && (seen.method === 'POST' || seen.method === 'PUT')) {
      if (seen.headers['content-type'] !== 'application/json')
        return send(res, 415, { message: 'JSON only' });
      const pet = JSON.parse(seen.body) as Pet;
      if (!pet.name) return send(res, 422, { code: 422, message: 'name is required' });
      const id = pet.id ?? pets.size + 1;
      pets.set(id, {
        ...pet,
        photoUrls: pet.photoUrls ?? [],
        tags: pet.tags ?? [],
        status: pet.status ?? 'available',
        id,
      });
      return send(res, 200, pets.get(id));
    }
    if (petId && seen.method === 'POST') {
      const pet = pets.get(Number(petId));
      if (!pet) return send(res, 404, { message: 'Pet not found' });
      if (seen.query.name) pet.name = seen.query.name[0] as string;
      if (seen.query.status) pet.status = seen.query.status[0] as string;
      return send(res, 200, pet);
    }
    if (petId && seen.method === 'DELETE') {
      pets.delete(Number(petId));
      return send(res, 200, '', 'text/plain');
    }
    return send(res, 404, { message: `no route ${seen.method} ${seen.path}` });
  };

  const tracker = (seen: SeenRequest, res: ServerResponse) => {
    const staff = `Basic ${Buffer.from(`${TRACKER_STAFF.username}:${TRACKER_STAFF.password}`).toString('base64')}`;
    const id = /^\/v1\/tickets\/(\d+)/.exec(seen.path)?.[1];
    if (seen.method === 'GET') {
      if (seen.query.key?.[0] !== TRACKER_READ_KEY)
        return send(res, 401, { code: 401, message: 'bad or missing key' });
      if (id) {
        const ticket = tickets.get(Number(id));
        return ticket
          ? send(res, 200, ticket)
          : send(res, 404, { code: 404, message: `ticket ${id} not found` });
      }
      const labels = seen.query.labels?.[0]?.split(',') ?? [];
      return send(
        res,
        200,
        [...tickets.values()].filter(
          (t) =>
            (!seen.query.state || t.state === seen.query.state[0]) &&
            labels.every((l) => (t.labels as string[]).includes(l)),
        ),
      );
    }
    if (seen.headers.authorization !== staff) return send(res, 401, { code: 401, message: 'staff only' });
    if (seen.path === '/v1/tickets') {
      const ticket = { ...(JSON.parse(seen.body) as object), id: 8, state: 'open', comments: [] };
      tickets.set(8, ticket);
      return send(res, 201, ticket);
    }
    if (id && seen.path.endsWith('/comments')) {
      const form = new URLSearchParams(seen.body);
      return send(res, 201, { id: 1, text: form.get('text'), internal: form.get('internal') === 'true' });
    }
    return send(res, 404, { message: `no route ${seen.method} ${seen.path}` });
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const query: Record<string, string[]> = {};
    for (const name of new Set(url.searchParams.keys())) query[name] = url.searchParams.getAll(name);
    const seen = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(seen);
    if (url.pathname === '/openapi.yaml')
      return send(res, 200, fixture('petstore-openapi-3.0.yaml'), 'application/yaml');
    if (url.pathname === '/swagger.json')
      return send(res, 200, fixture('tracker-swagger-2.0.json'), 'text/plain');
    if (url.pathname.startsWith('/api/v3/')) return petstore(seen, res);
    if (url.pathname.startsWith('/v1/')) return tracker(seen, res);
    return send(res, 404, { message: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
