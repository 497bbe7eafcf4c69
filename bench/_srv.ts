import { startServerProcess } from './lib/server.ts';
const s = await startServerProcess(); console.log(s.baseURL); setTimeout(()=>s.stop(), 120000);
