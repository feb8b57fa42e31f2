// Copies the dashboard's static files next to the compiled server, so `node dist/main.js` serves them.
import { cpSync } from 'node:fs';

cpSync('src/dashboard/public', 'dist/dashboard/public', { recursive: true });
