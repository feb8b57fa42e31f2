/**
 * Run by src/store/open-embedded.test.ts in a process of its own: opens the embedded database on
 * the directory given, closes it, then opens it again and leaves it open. The process must end by
 * itself all the same, as it did when PGlite ran inside it.
 */
import { openEmbedded } from '../../src/store/open-embedded.js';

const dir = process.argv[2]!;
const first = await openEmbedded(dir);
await first.query('SELECT 1');
await first.close();
process.stdout.write(`closed ${first.pid}\n`);
const second = await openEmbedded(dir);
await second.query('SELECT 1');
process.stdout.write(`left open ${second.pid}\n`);
