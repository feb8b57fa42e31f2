import { toHostileText } from './test/helpers/hostile-texts.js';
const body = Buffer.from(JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: toHostileText('cjk', 333_333, 16) }] }));
for (let i = 0; i < 6; i++) { const r = await fetch('http://127.0.0.1:4560/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body }); await r.text(); }
