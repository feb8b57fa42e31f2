/**
 * The package's public entry: `import { createAutotier } from 'autotier'`, then mount
 * `gateway.router` in an express app (docs/embedding.md).
 */
export { createAutotier } from './create-autotier.js';
export type { Autotier, AutotierActivity, AutotierOptions } from './create-autotier.js';
export type { RoutingTableInput } from './config/routing-table-schema.js';
export type { Logger } from './shared/logger.js';
