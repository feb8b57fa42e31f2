import { readFile, stat } from 'node:fs/promises';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { dirname, resolve } from 'node:path';
import { RouterError } from '../shared/errors.js';
import { deepFreeze } from '../shared/deep-freeze.js';
import { TIERS } from '../shared/tier.js';
import { findDuplicateKeys, routingTableSchema, type RoutingTable } from './routing-table-schema.js';
import { apiKeySchema, type DeploymentConfig } from './table-part-schemas.js';

export interface TableProblem {
  /** Dotted key path, e.g. `tiers.SIMPLE.timeouts.ttft_ms`. */
  path: string;
  message: string;
}

export interface LoadedTable {
  table: RoutingTable;
  /** Where it came from (file path or `<embedded>`). */
  source: string;
  /** Non-fatal findings, e.g. a group mixing served models. */
  warnings: readonly string[];
  /** Short content hash of the table and its keys file, shown in /autotier/state and logs. */
  version: string;
  loadedAt: number;
  /** Absolute paths of the files read (the table, then its `api_keys_file`): a change to any reloads. */
  files: readonly string[];
}

/** Largest routing table file, bytes: a table of hundreds of deployments is well under 100 KiB. */
export const TABLE_FILE_LIMIT_BYTES = 1024 * 1024;
/** Largest `api_keys_file`, bytes: about 25,000 keys. */
export const KEYS_FILE_LIMIT_BYTES = 4 * 1024 * 1024;

function toPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(root)' : path.map(String).join('.');
}

export function toTableProblems(error: z.ZodError): TableProblem[] {
  return error.issues.map((issue) => ({ path: toPath(issue.path), message: issue.message }));
}

/** Validation failure naming the file and every bad key path. */
function toConfigError(source: string, problems: readonly TableProblem[]): RouterError {
  const lines = problems.map((problem) => `  ${problem.path}: ${problem.message}`);
  return new RouterError({
    code: 'CONFIG_INVALID',
    message: `invalid routing table ${source}:\n${lines.join('\n')}`,
    cause: problems,
  });
}

/** Groups whose deployments serve different models or quantizations answer with random quality. */
export function findMixedGroups(table: RoutingTable): string[] {
  const byId = new Map(table.deployments.map((deployment) => [deployment.id, deployment]));
  const warnings: string[] = [];
  for (const tierName of [...TIERS, 'VISION'] as const) {
    const group = table.tiers[tierName]?.group ?? [];
    const members = group
      .map((id) => byId.get(id))
      .filter((value): value is DeploymentConfig => value !== undefined);
    const models = new Set(members.map((member) => member.model));
    const quantizations = new Set(members.map((member) => member.quantization ?? 'unspecified'));
    if (models.size > 1)
      warnings.push(`tiers.${tierName}.group mixes served models: ${[...models].join(', ')}`);
    if (quantizations.size > 1) {
      warnings.push(`tiers.${tierName}.group mixes quantizations: ${[...quantizations].join(', ')}`);
    }
  }
  const embeddingIds = [...(table.embeddings?.group ?? []), ...(table.embeddings?.fallback ?? [])];
  const embeddingModels = new Set(embeddingIds.map((id) => byId.get(id)?.model));
  if (embeddingModels.size > 1)
    warnings.push(
      `embeddings mixes models (${[...embeddingModels].join(', ')}): "auto" may answer with vectors of either, which are not comparable`,
    );
  return warnings;
}

function hashText(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

export interface ParseTableOptions {
  text: string;
  source: string;
  now: number;
}

/** Parses and validates YAML text; throws CONFIG_INVALID listing every problem. */
export function parseRoutingTable(options: ParseTableOptions): LoadedTable {
  let raw: unknown;
  try {
    raw = parseYaml(options.text);
  } catch (error) {
    const where = error instanceof YAMLParseError ? ` at line ${error.linePos?.[0].line ?? '?'}` : '';
    throw toConfigError(options.source, [{ path: '(yaml)', message: `${(error as Error).message}${where}` }]);
  }
  const result = routingTableSchema.safeParse(raw);
  if (!result.success) throw toConfigError(options.source, toTableProblems(result.error));
  return {
    table: deepFreeze(result.data),
    source: options.source,
    warnings: findMixedGroups(result.data),
    version: hashText(options.text),
    loadedAt: options.now,
    files: [],
  };
}

/** A file's text, refused (CONFIG_INVALID naming `keyPath`) when it is larger than `limitBytes`. */
async function readLimitedFile(file: {
  path: string;
  limitBytes: number;
  keyPath: string;
  source: string;
}): Promise<string> {
  let size: number;
  try {
    size = (await stat(file.path)).size;
  } catch (error) {
    throw toConfigError(file.source, [
      { path: file.keyPath, message: `cannot read ${file.path}: ${(error as Error).message}` },
    ]);
  }
  if (size > file.limitBytes)
    throw toConfigError(file.source, [
      {
        path: file.keyPath,
        message: `${file.path} is ${size} bytes; the limit is ${file.limitBytes} bytes`,
      },
    ]);
  return readFile(file.path, 'utf8');
}

/** A path the table names (`api_keys_file`, `classifier.model_file`, ...): absolute, or relative to the table file. */
export function toTableRelativePath(tablePath: string, file: string): string {
  return resolve(dirname(tablePath), file);
}

/** Reads `api_keys_file` (a YAML list of keys, relative to the table) and adds its keys to the table. */
async function withKeysFile(loaded: LoadedTable, tablePath: string): Promise<LoadedTable> {
  const file = loaded.table.api_keys_file;
  if (file === undefined) return loaded;
  const keysPath = toTableRelativePath(tablePath, file);
  const text = await readLimitedFile({
    path: keysPath,
    limitBytes: KEYS_FILE_LIMIT_BYTES,
    keyPath: 'api_keys_file',
    source: tablePath,
  });
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw toConfigError(keysPath, [{ path: '(yaml)', message: (error as Error).message }]);
  }
  const result = z.array(apiKeySchema).safeParse(raw);
  if (!result.success) throw toConfigError(keysPath, toTableProblems(result.error));
  const keys = [...loaded.table.api_keys, ...result.data];
  const inline = loaded.table.api_keys.length;
  const duplicates = findDuplicateKeys(keys).map((problem) => {
    const [index, ...rest] = problem.path as [number, ...(string | number)[]];
    const where = index < inline ? ['api_keys', index] : [`${file}[${index - inline}]`];
    return { path: toPath([...where, ...rest]), message: problem.message };
  });
  if (duplicates.length > 0) throw toConfigError(keysPath, duplicates);
  return {
    ...loaded,
    table: deepFreeze({ ...loaded.table, api_keys: keys }),
    version: hashText(`${loaded.version}\u0000${text}`),
    files: [...loaded.files, keysPath],
  };
}

/** Reads, parses and validates a table file and its keys file, on the calling thread. */
export async function loadRoutingTableFile(path: string, now: number): Promise<LoadedTable> {
  const tablePath = resolve(path);
  const text = await readLimitedFile({
    path: tablePath,
    limitBytes: TABLE_FILE_LIMIT_BYTES,
    keyPath: '(file)',
    source: path,
  });
  const parsed = parseRoutingTable({ text, source: path, now });
  return withKeysFile({ ...parsed, files: [tablePath] }, path);
}
