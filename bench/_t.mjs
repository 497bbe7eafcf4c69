const t0 = performance.now();
const { Agent } = await import('undici');
const t1 = performance.now();
const d = new Agent();
const url = new URL(process.argv[2] + '/chat/completions');
for (let i = 0; i < 5; i++) {
  const s = performance.now();
  await new Promise((res, rej) => d.dispatch({ origin: url.origin, path: url.pathname, method: 'POST', headers: {'content-type':'application/json'}, body: JSON.stringify({model:'text', messages:[], stream:true}) }, { onRequestStart(){}, onResponseData(){}, onResponseEnd(){res()}, onResponseError(_, e){rej(e)} }));
  console.log('req', (performance.now()-s).toFixed(1));
}
console.log('import', (t1-t0).toFixed(1), 'uptime', (process.uptime()*1000).toFixed(0));
process.exit(0);
