import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';

/**
 * The recorded model asks for URLs on this port, so the demo listens on a fixed one
 * (`DEMO_PORT` moves it, but then the recording no longer matches its web_fetch call).
 */
export const DEMO_PORT = Number(process.env.DEMO_PORT ?? 48213);
export const SHELTER_API_KEY = 'demo-shelter-key';

const site = (name: string) => readFileSync(new URL(`./site/${name}`, import.meta.url));

const DOGS = [
  {
    id: 'd-101',
    name: 'Biscuit',
    breed: 'beagle',
    years: 11,
    age: 'senior',
    temperament: ['calm', 'gentle'],
    needs: 'daily joint supplement',
  },
  {
    id: 'd-102',
    name: 'Juno',
    breed: 'collie mix',
    years: 4,
    age: 'adult',
    temperament: ['energetic', 'playful'],
    needs: null,
  },
  {
    id: 'd-103',
    name: 'Pepper',
    breed: 'greyhound',
    years: 9,
    age: 'senior',
    temperament: ['calm', 'shy'],
    needs: null,
  },
  {
    id: 'd-104',
    name: 'Rocket',
    breed: 'terrier',
    years: 1,
    age: 'puppy',
    temperament: ['playful'],
    needs: null,
  },
];

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

export interface DemoServers {
  origin: string;
  /** Every request the demo saw: `METHOD path?query [key]`. */
  seen: string[];
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * One local server playing three services: a SearXNG instance (/search), a web site (/guides)
 * and the shelter's API (/openapi.json, /api). Nothing here reaches the internet.
 */
export async function startDemoServers(port = DEMO_PORT): Promise<DemoServers> {
  const seen: string[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    const key = req.headers['x-shelter-key'];
    seen.push(`${req.method} ${url.pathname}${url.search}${key ? ` [key ${key}]` : ''}`);
    if (url.pathname === '/search') {
      return send(
        res,
        200,
        'application/json',
        JSON.stringify({
          query: url.searchParams.get('q'),
          results: [
            {
              url: `${origin}/guides/senior-dogs`,
              title: 'Adopting a senior dog: what to know before you bring one home',
              content:
                'Dogs over seven are often the last to be adopted, yet many make the calmest companions…',
              engine: 'duckduckgo',
            },
            {
              url: `${origin}/guides/first-week`,
              title: 'Your first week with a rescue dog',
              content: 'A calm routine, a quiet corner and patience…',
              engine: 'brave',
            },
          ],
        }),
      );
    }
    if (url.pathname === '/guides/senior-dogs')
      return send(res, 200, 'text/html; charset=utf-8', site('senior-dogs.html'));
    if (url.pathname === '/openapi.json')
      return send(res, 200, 'application/json', site('shelter-openapi.json'));
    if (url.pathname.startsWith('/api/')) {
      if (key !== SHELTER_API_KEY)
        return send(res, 401, 'application/json', '{"error":"missing or wrong X-Shelter-Key"}');
      const id = /^\/api\/dogs\/([\w-]+)$/.exec(url.pathname)?.[1];
      if (id) {
        const dog = DOGS.find((d) => d.id === id);
        return dog
          ? send(res, 200, 'application/json', JSON.stringify(dog))
          : send(res, 404, 'application/json', '{"error":"no such dog"}');
      }
      if (url.pathname === '/api/dogs') {
        const age = url.searchParams.get('age');
        const temperament = url.searchParams.get('temperament');
        const dogs = DOGS.filter(
          (d) => (!age || d.age === age) && (!temperament || d.temperament.includes(temperament)),
        );
        return send(res, 200, 'application/json', JSON.stringify(dogs));
      }
    }
    return send(res, 404, 'text/html', '<h1>Not found</h1>');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`demo servers: port ${port} is in use (set DEMO_PORT)`)
          : error,
      ),
    );
    server.listen(port, '127.0.0.1', resolve);
  });
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`;
  return {
    origin,
    seen,
    env: { SEARCH_URL: origin, SHELTER_URL: origin, SHELTER_API_KEY },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
