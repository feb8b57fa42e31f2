import { describe, expect, it } from 'vitest';
import { unsupportedUrlParts } from './postgres-url.js';

describe('unsupportedUrlParts', () => {
  it('says nothing about a one-host URL', () => {
    expect(unsupportedUrlParts('postgres://autotier:secret@db:5432/autotier?sslmode=require')).toEqual([]);
    expect(unsupportedUrlParts('postgres://db/autotier?target_session_attrs=any')).toEqual([]);
  });

  it('names several hosts and target_session_attrs, never the password', () => {
    const parts = unsupportedUrlParts(
      'postgresql://autotier:s3cr%2Ct@db-a:5432,db-b:5432/autotier?sslmode=require&target_session_attrs=read-write',
    );
    expect(parts).toHaveLength(2);
    expect(parts[0]).toMatch(/several hosts/);
    expect(parts[1]).toMatch(/target_session_attrs=read-write/);
    expect(parts.join(' ')).not.toMatch(/s3cr/);
  });

  it('does not mistake a comma in the password for a second host', () => {
    expect(unsupportedUrlParts('postgres://autotier:a,b@db:5432/autotier')).toEqual([]);
  });
});
