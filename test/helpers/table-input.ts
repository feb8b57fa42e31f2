import { expect } from 'vitest';
import { stringify } from 'yaml';
import { parseRoutingTable } from '../../src/config/load-routing-table.js';
import { RouterError } from '../../src/shared/errors.js';

/** A routing table given as an object, parsed as its YAML text would be (`source` names the file in errors). */
export function parseTableInput(input: unknown, source = 'test.yaml'): ReturnType<typeof parseRoutingTable> {
  return parseRoutingTable({ text: stringify(input), source, now: 0 });
}

/** The CONFIG_INVALID message of a table that must be rejected. */
export function toTableRejection(input: unknown, source = 'test.yaml'): string {
  try {
    parseTableInput(input, source);
  } catch (error) {
    expect(error).toBeInstanceOf(RouterError);
    return (error as RouterError).message;
  }
  throw new Error('expected the table to be rejected');
}
